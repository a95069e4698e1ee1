package luajit

import "testing"

// TestCdata checks 64-bit integer cdata (literals, arithmetic, comparisons between cdata, conversions, errors), tonumber and type.
// The values come from luajit 2.1 (see luajit_test.go).
func TestCdata(t *testing.T) {
	runLuaJITCases(t, []luajitCase{
		// literals (__sysbench_int64 for 5LL / 5ULL) and tostring
		{"LL\"123\"", "123LL"},
		{"ULL\"123\"", "123ULL"},
		{"LL\"-5\"", "-5LL"},
		{"LL\"9223372036854775807\"", "9223372036854775807LL"},
		{"LL\"-9223372036854775808\"", "-9223372036854775808LL"},
		{"LL\"9223372036854775808\"", "-9223372036854775808LL"},
		{"ULL\"18446744073709551615\"", "18446744073709551615ULL"},
		{"tostring(LL\"123\")", "\"123LL\""},
		{"tostring(ULL\"123\")", "\"123ULL\""},
		{"tostring(LL\"-0\")", "\"0LL\""},
		{"type(LL\"1\")", "\"cdata\""},
		// arithmetic: int64 op number gives int64, any uint64 gives uint64, results wrap
		{"LL\"1\" + 2", "3LL"},
		{"LL\"1\" + 2.7", "3LL"},
		{"LL\"1\" + -2.7", "-1LL"},
		{"LL\"1\" + 2^63", "-9223372036854775807LL"},
		{"2^53 + LL\"1\"", "9007199254740993LL"},
		{"ULL\"5\" - 6", "18446744073709551615ULL"},
		{"LL\"5\" - 6", "-1LL"},
		{"LL\"5\" * ULL\"3\"", "15ULL"},
		{"LL\"5\" * 2.5", "10LL"},
		{"2.5 * LL\"5\"", "10LL"},
		{"10 - LL\"4\"", "6LL"},
		{"LL\"9223372036854775807\" + 1", "-9223372036854775808LL"},
		{"ULL\"18446744073709551615\" + 1", "0ULL"},
		{"-LL\"5\"", "-5LL"},
		{"-ULL\"5\"", "18446744073709551611ULL"},
		{"-LL\"-9223372036854775808\"", "-9223372036854775808LL"},
		{"-(2^63 + ULL\"0\")", "9223372036854775808ULL"},
		// division truncates; a zero divisor gives 0x8000000000000000
		{"LL\"7\" / 2", "3LL"},
		{"LL\"-7\" / 2", "-3LL"},
		{"LL\"7\" / -2", "-3LL"},
		{"10 / LL\"4\"", "2LL"},
		{"LL\"7\" / 0", "-9223372036854775808LL"},
		{"LL\"0\" / 0", "-9223372036854775808LL"},
		{"LL\"-9223372036854775808\" / -1", "-9223372036854775808LL"},
		{"ULL\"7\" / 2", "3ULL"},
		{"ULL\"7\" / 0", "9223372036854775808ULL"},
		// modulo has the dividend's sign
		{"LL\"-7\" % 3", "-1LL"},
		{"LL\"7\" % -3", "1LL"},
		{"LL\"-7\" % -3", "-1LL"},
		{"10 % LL\"4\"", "2LL"},
		{"LL\"7\" % 0", "-9223372036854775808LL"},
		{"ULL\"7\" % 0", "9223372036854775808ULL"},
		{"-ULL\"7\" % 3", "0ULL"},
		{"LL\"-9223372036854775808\" % -1", "0LL"},
		// integer powers
		{"LL\"2\" ^ 10", "1024LL"},
		{"LL\"2\" ^ 63", "-9223372036854775808LL"},
		{"LL\"2\" ^ 64", "0LL"},
		{"LL\"2\" ^ -1", "0LL"},
		{"LL\"-2\" ^ 3", "-8LL"},
		{"LL\"0\" ^ 0", "1LL"},
		{"LL\"0\" ^ -1", "9223372036854775807LL"},
		{"LL\"1\" ^ -1", "1LL"},
		{"LL\"-1\" ^ -1", "-1LL"},
		{"LL\"-1\" ^ -2", "1LL"},
		{"ULL\"3\" ^ 41", "18026252303461234787ULL"},
		{"ULL\"2\" ^ 64", "0ULL"},
		{"2 ^ LL\"3\"", "8LL"},
		// numbers convert as C converts a double
		{"2^63 + LL\"0\"", "-9223372036854775808LL"},
		{"-2^63 + LL\"0\"", "-9223372036854775808LL"},
		{"1e20 + LL\"0\"", "-9223372036854775808LL"},
		{"(0/0) + LL\"0\"", "-9223372036854775808LL"},
		{"1/0 + LL\"0\"", "-9223372036854775808LL"},
		{"2^64 + ULL\"0\"", "0ULL"},
		{"-1 + ULL\"0\"", "9223372036854775808ULL"},
		{"1/0 + ULL\"0\"", "9223372036854775808ULL"},
		{"-1.5 + ULL\"0\"", "9223372036854775808ULL"},
		{"2^63 + ULL\"0\"", "9223372036854775808ULL"},
		{"2^64 + 2^12 + ULL\"0\"", "4096ULL"},
		// comparisons between cdata
		{"LL\"1\" == LL\"1\"", "true"},
		{"LL\"1\" == ULL\"1\"", "true"},
		{"LL\"1\" ~= LL\"2\"", "true"},
		{"LL\"1\" < LL\"2\"", "true"},
		{"LL\"2\" <= LL\"2\"", "true"},
		{"LL\"-1\" < ULL\"1\"", "false"},
		{"LL\"-1\" < LL\"1\"", "true"},
		{"ULL\"18446744073709551615\" > ULL\"1\"", "true"},
		{"rawequal(LL\"5\", LL\"5\")", "false"},
		// conversions
		{"tonumber(LL\"1\")", "1"},
		{"tonumber(LL\"-5\")", "-5"},
		{"tonumber(2^63 + ULL\"0\")", "9.2233720368548e+18"},
		{"tonumber(ULL\"18446744073709551615\")", "1.844674407371e+19"},
		{"tonumber(LL\"9007199254740993\")", "9.007199254741e+15"},
		// keys: every cdata is its own key
		{"({[LL\"1\"] = 1})[LL\"1\"]", "nil"},
		{"(function() local k = LL\"1\" local t = {[k] = \"v\"} return t[k] end)()", "\"v\""},
		// errors as LuaJIT words them
		{"\"v=\" .. LL\"1\"", "error: attempt to concatenate 'string' and 'int64_t'"},
		{"LL\"1\" .. \"\"", "error: attempt to concatenate 'int64_t' and 'string'"},
		{"LL\"5\" + \"3\"", "error: attempt to perform arithmetic on 'int64_t' and 'string'"},
		{"LL\"5\" + true", "error: attempt to perform arithmetic on 'int64_t' and 'boolean'"},
		{"LL\"5\" + nil", "error: attempt to perform arithmetic on 'int64_t' and 'nil'"},
		{"LL\"5\" + {}", "error: attempt to perform arithmetic on 'int64_t' and 'table'"},
		{"#LL\"5\"", "error: attempt to get length of 'int64_t'"},
		{"LL\"5\".foo", "error: 'int64_t' has no member named 'foo'"},
		{"LL\"5\"[1]", "error: 'int64_t' cannot be indexed with 'number'"},
		{"LL\"5\"()", "error: 'int64_t' is not callable"},
		{"tonumber(LL\"10\", 16)", "error: bad argument #1 to 'tonumber' (string expected, got cdata)"},
		// tonumber converts strings as LuaJIT does, type() says cdata
		{"tonumber(\"10\")", "10"},
		{"tonumber(\" 10 \")", "10"},
		{"tonumber(\"1e5\")", "100000"},
		{"tonumber(\"0x10\")", "16"},
		{"tonumber(\"0X1f\")", "31"},
		{"tonumber(\"010\")", "10"},
		{"tonumber(\"1_000\")", "nil"},
		{"tonumber(\"inf\")", "inf"},
		{"tonumber(\"-inf\")", "-inf"},
		{"tonumber(\"nan\")", "nan"},
		{"tonumber(\"Infinity\")", "inf"},
		{"tonumber(\"0x1p4\")", "16"},
		{"tonumber(\"0x1.8\")", "1.5"},
		{"tonumber(\".5\")", "0.5"},
		{"tonumber(\"5.\")", "5"},
		{"tonumber(\"-0x10\")", "-16"},
		{"tonumber(\"+5\")", "5"},
		{"tonumber(\"\\t7\\n\")", "7"},
		{"tonumber(\"0b101\")", "5"},
		{"tonumber(\"0o17\")", "nil"},
		{"tonumber(\"1e\")", "nil"},
		{"tonumber(\"\")", "nil"},
		{"tonumber(\" \")", "nil"},
		{"tonumber(\"0x\")", "nil"},
		{"tonumber(\"10LL\")", "nil"},
		{"tonumber(\"1,5\")", "nil"},
		{"tonumber(\"1e400\")", "inf"},
		{"tonumber(\"1e1048576\")", "nil"}, // an exponent LuaJIT refuses
		{"tonumber(\"0b\" .. string.rep(\"1\", 65))", "nil"},
		{"tonumber(\"\\v5\")", "5"},
		{"tonumber(\"ff\", 16)", "255"},
		{"tonumber(\"zz\", 36)", "1295"},
		{"tonumber(\" 11 \", 2)", "3"},
		{"tonumber(nil)", "nil"},
		{"tonumber(true)", "nil"},
		{"tonumber({})", "nil"},
		{"tonumber()", "error: bad argument #1 to 'tonumber' (value expected)"},
		{"type(ffi.new(\"int\"))", "\"cdata\""},
		{"type(ffi.typeof(\"int\"))", "\"cdata\""},
		{"type(ffi.new(\"char[2]\"))", "\"cdata\""},
		{"type(nil)", "\"nil\""},
		{"type()", "error: bad argument #1 to 'type' (value expected)"},
		// metatables are protected, as LuaJIT's
		{"getmetatable(LL\"5\")", "\"ffi\""},
		{"getmetatable(ffi.typeof(\"int\"))", "\"ffi\""},
		{"getmetatable(ffi.new(\"char[2]\"))", "\"ffi\""},
	})
}

// TestCdataNumberComparisons pins what gopher-lua allows between a cdata
// and a plain number. Its VM calls a comparison metamethod only when both
// operands are userdata sharing it, so == is false where LuaJIT compares
// the values (1LL == 1 is true there), and <, <=, >, >= fail where LuaJIT
// compares. Comparing with tonumber(x), or with another cdata, works.
func TestCdataNumberComparisons(t *testing.T) {
	cases := []luajitCase{
		{`LL"1" == 1`, "false"},
		{`1 == LL"1"`, "false"},
		{`LL"1" ~= 1`, "true"},
		{`LL"1" < 2`, "error: attempt to compare userdata with number"},
		{`1 < LL"2"`, "error: attempt to compare number with userdata"},
		{`LL"1" <= 2`, "error: attempt to compare userdata with number"},
		{`LL"3" > 2`, "error: attempt to compare number with userdata"},
		{`tonumber(LL"1") == 1`, "true"},
		{`LL"1" == LL"0" + 1`, "true"},
		{`LL"1" < ffi.new("int64_t", 2)`, "true"},
		{`LL"2" >= ULL"2"`, "true"},
	}
	for _, tc := range cases {
		if got := evalCase(t, newLuaJITState(t), tc.expr); got != tc.want {
			t.Errorf("%s = %s, want %s", tc.expr, got, tc.want)
		}
	}
}
