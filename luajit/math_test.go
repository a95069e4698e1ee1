package luajit

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

// TestMathLibrary checks the math functions against values recorded with
// luajit 2.1 (see luajit_test.go).
func TestMathLibrary(t *testing.T) {
	runLuaJITCases(t, []luajitCase{
		// math.huge is an infinity; numeric strings; x86's min/max; C's modf, frexp, ldexp, fmod
		{"math.huge, -math.huge, 1/math.huge, math.pi, math.mod", "inf, -inf, 0, 3.1415926535898, nil"},
		{"math.floor(-0.5), math.ceil(-0.5), math.floor(\"3.7\"), math.abs(\"-2\"), math.abs(-(0/1)*1), math.floor(2^53+0.5)", "-1, -0, 3, 2, 0, 9.007199254741e+15"},
		{"math.floor(1e100), math.ceil(-1e100), math.floor(0/0), math.ceil(1/0), math.abs(-1/0)", "1e+100, -1e+100, nan, inf, inf"},
		{"math.max(1, 0/0), math.max(0/0, 1), math.min(1, 0/0), math.min(0/0, 1), math.max(3), math.max(1, \"5\", 2)", "nan, 1, nan, 1, 3, 5"},
		{"(function(z) return math.min(-z, z), math.max(-z, z), math.max(z, -z) end)(0)", "0, 0, -0"},
		{"math.max()", "error: bad argument #1 to 'max' (number expected, got no value)"},
		{"math.min(1, \"x\")", "error: bad argument #2 to 'min' (number expected, got string)"},
		{"math.fmod(7, 3), math.fmod(-7, 3), math.fmod(7, -3), math.fmod(7, 0), math.fmod(1/0, 2), math.fmod(5, 1/0), math.fmod(\"7\", \"2\"), math.fmod(-6, 3)", "1, -1, 1, nan, nan, 5, 1, -0"},
		{"math.modf(3.7)", "3, 0.7"},
		{"math.modf(-3.7)", "-3, -0.7"},
		{"math.modf(1/0)", "inf, 0"},
		{"math.modf(-1/0)", "-inf, -0"},
		{"math.modf(0/0)", "nan, nan"},
		{"math.modf(-(0/1)*1)", "-0, -0"},
		{"math.modf(\"2.5\")", "2, 0.5"},
		{"math.frexp(0)", "0, 0"},
		{"math.frexp(8)", "0.5, 4"},
		{"math.frexp(-3)", "-0.75, 2"},
		{"math.frexp(1/0)", "inf, 0"},
		{"math.frexp(5e-324)", "0.5, -1073"},
		{"math.ldexp(1, \"2\"), math.ldexp(1.5, 2.7), math.ldexp(1, 2000), math.ldexp(1, -1075), math.ldexp(1, 1e10), math.ldexp(1, 0/0)", "4, 6, inf, 0, inf, nan"},
		{"math.ldexp(1)", "error: bad argument #2 to 'ldexp' (number expected, got no value)"},
		{"math.log(8, 2), math.log(100, 10), math.log(2, 8), math.log(1024, 2), math.log(0), math.log(-1), math.log10(1000)", "3, 2, 0.33333333333333, 10, -inf, nan, 3"},
		{"math.exp(1), math.sqrt(-1), math.sqrt(\"4\"), math.pow(2, 0.5), math.pow(\"2\", \"3\"), math.atan2(1, 1), math.atan2(\"1\", 1)", "2.718281828459, nan, 2, 1.4142135623731, 8, 0.78539816339745, 0.78539816339745"},
		{"math.sin(1), math.cos(1), math.tan(1), math.asin(0.5), math.acos(0.5), math.atan(1), math.sinh(1), math.cosh(1), math.tanh(1)", "0.8414709848079, 0.54030230586814, 1.5574077246549, 0.5235987755983, 1.0471975511966, 0.78539816339745, 1.1752011936438, 1.5430806348152, 0.76159415595576"},
		{"math.deg(math.pi), math.rad(180), math.deg(\"10\")", "180, 3.1415926535898, 572.95779513082"},
		{"math.deg()", "error: attempt to perform arithmetic on a nil value"},
		{"math.rad({})", "error: attempt to perform arithmetic on a table value"},
		{"math.floor()", "error: bad argument #1 to 'floor' (number expected, got no value)"},
		{"math.floor({})", "error: bad argument #1 to 'floor' (number expected, got table)"},
		{"math.abs(\"x\")", "error: bad argument #1 to 'abs' (number expected, got string)"},
		{"math.log(1, nil)", "error: bad argument #2 to 'log' (number expected, got nil)"},
		{"math.random(1, \"3\") >= 1, math.random(\"2\") <= 2", "true, true"},
		{"math.random(\"x\")", "error: bad argument #1 to 'random' (number expected, got string)"},
	})
}
