package luaapi

import "testing"

// TestMathRandom checks math.random and math.randomseed: LuaJIT's generator, fixed seed and range rules.
// The values come from luajit 2.1 (see luajit_test.go).
func TestMathRandom(t *testing.T) {
	runLuaJITCases(t, []luajitCase{
		// the first draws of a new state: LuaJIT's fixed seed
		{"math.random()", "0.79420629243124"},
		{"(function() math.random() return math.random() end)()", "0.69885246563716"},
		{"math.random(100)", "80"},
		{"math.random(1, 100)", "80"},
		// floats are used as given: floor(r*(n-m+1))+m
		{"math.random(0)", "1"},
		{"math.random(3, 1)", "2"},
		{"math.random(-1)", "0"},
		{"math.random(1.5)", "2"},
		{"math.random(0.5)", "1"},
		{"math.random(3.7, 3.9)", "3.7"},
		{"math.random(3.2, 3.1)", "3.2"},
		{"math.random(-3.5, -3.2)", "-2.5"},
		{"math.random(1, 1.5)", "2"},
		{"math.random(5, 5)", "5"},
		{"math.random(1, 2, 3)", "2"},
		{"math.random(\"3\")", "3"},
		// wide ranges are fine, and exact while doubles are
		{"math.random(0, 2^53)", "7.1535743252973e+15"},
		{"math.random(-2^63, 2^63)", "5.4271481813541e+18"},
		{"math.random(0, 9223372036854775807)", "7.3252601091044e+18"},
		{"math.random(2^31)", "1705545027"},
		{"math.random(2^32)", "3411090053"},
		{"math.random(2^53)", "7.1535743252973e+15"},
		{"math.random(1e300)", "7.9420629243124e+299"},
		{"math.random(-2^31, 2^31)", "1263606405"},
		{"math.random(1/0)", "inf"},
		{"math.random(0/0)", "nan"},
		{"math.random(-1/0, 1/0)", "nan"},
		// seeding
		{"(function() math.randomseed(42) local a = math.random() math.randomseed(42) return a == math.random(), a end)()", "true, 0.95607928791821"},
		{"(function() math.randomseed(42) return math.random(1, 100), math.random(1, 100), math.random(1, 100) end)()", "96, 1, 54"},
		{"(function() math.randomseed(1.5) return math.random() end)()", "0.73848483355984"},
		{"(function() math.randomseed(-7) return math.random(0, 2^53) end)()", "5.7529329303152e+15"},
		{"(function() math.randomseed(0) return math.random() end)()", "0.79420629243124"},
		{"(function() math.randomseed(2^60) return math.random(1000) end)()", "987"},
		{"(function() math.randomseed(\"12\") return math.random(1000) end)()", "557"},
		{"math.randomseed(1)", ""},
		// errors
		{"math.random(\"x\")", "error: bad argument #1 to 'random' (number expected, got string)"},
		{"math.random(nil)", "error: bad argument #1 to 'random' (number expected, got nil)"},
		{"math.random(1, nil)", "error: bad argument #2 to 'random' (number expected, got nil)"},
		{"math.random(1, {})", "error: bad argument #2 to 'random' (number expected, got table)"},
		{"math.random(LL\"5\")", "error: bad argument #1 to 'random' (number expected, got cdata)"},
		{"math.randomseed()", "error: bad argument #1 to 'randomseed' (number expected, got no value)"},
		{"math.randomseed(\"x\")", "error: bad argument #1 to 'randomseed' (number expected, got string)"},
		{"math.randomseed({})", "error: bad argument #1 to 'randomseed' (number expected, got table)"},
		// a failed call still draws, as in LuaJIT
		{"(function() pcall(math.random, \"x\") return math.random() end)()", "0.69885246563716"},
	})
}
