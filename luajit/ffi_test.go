package luajit

import "testing"

// TestFFI checks ffi's C scalar types, casts, ctypes, arrays and istype.
// The values come from luajit 2.1 (see luajit_test.go).
func TestFFI(t *testing.T) {
	runLuaJITCases(t, []luajitCase{
		// sizes on x86-64 Linux
		{"ffi.sizeof(\"char\")", "1"},
		{"ffi.sizeof(\"signed char\")", "1"},
		{"ffi.sizeof(\"unsigned char\")", "1"},
		{"ffi.sizeof(\"short\")", "2"},
		{"ffi.sizeof(\"unsigned short int\")", "2"},
		{"ffi.sizeof(\"int\")", "4"},
		{"ffi.sizeof(\"unsigned\")", "4"},
		{"ffi.sizeof(\"long\")", "8"},
		{"ffi.sizeof(\"unsigned long\")", "8"},
		{"ffi.sizeof(\"long long\")", "8"},
		{"ffi.sizeof(\"unsigned long long\")", "8"},
		{"ffi.sizeof(\"long unsigned int\")", "8"},
		{"ffi.sizeof(\"float\")", "4"},
		{"ffi.sizeof(\"double\")", "8"},
		{"ffi.sizeof(\"long double\")", "16"},
		{"ffi.sizeof(\"int8_t\")", "1"},
		{"ffi.sizeof(\"uint8_t\")", "1"},
		{"ffi.sizeof(\"int16_t\")", "2"},
		{"ffi.sizeof(\"uint16_t\")", "2"},
		{"ffi.sizeof(\"int32_t\")", "4"},
		{"ffi.sizeof(\"uint32_t\")", "4"},
		{"ffi.sizeof(\"int64_t\")", "8"},
		{"ffi.sizeof(\"uint64_t\")", "8"},
		{"ffi.sizeof(\"size_t\")", "8"},
		{"ffi.sizeof(\"ssize_t\")", "8"},
		{"ffi.sizeof(\"intptr_t\")", "8"},
		{"ffi.sizeof(\"uintptr_t\")", "8"},
		{"ffi.sizeof(\"ptrdiff_t\")", "8"},
		{"ffi.sizeof(\"bool\")", "1"},
		{"ffi.sizeof(\"_Bool\")", "1"},
		{"ffi.sizeof(\"wchar_t\")", "4"},
		{"ffi.sizeof(\"void\")", "nil"},
		{"ffi.sizeof(\"void *\")", "8"},
		{"ffi.sizeof(\"const char *\")", "8"},
		{"ffi.sizeof(\"char **\")", "8"},
		{"ffi.sizeof(\"char[16]\")", "16"},
		{"ffi.sizeof(\"char [ 16 ]\")", "16"},
		{"ffi.sizeof(\"int[4]\")", "16"},
		{"ffi.sizeof(\"uint64_t[2]\")", "16"},
		{"ffi.sizeof(\"int[3][2]\")", "24"},
		{"ffi.sizeof(\"int[0]\")", "0"},
		{"ffi.sizeof(\"char[]\")", "nil"},
		{"ffi.sizeof(\"char[?]\", 10)", "10"},
		{"ffi.sizeof(\"int[?]\", 10)", "40"},
		{"ffi.sizeof(\"int[?]\", 2.7)", "8"},
		{"ffi.sizeof(\"const int\")", "4"},
		{"ffi.sizeof(\"complex\")", "16"},
		{"ffi.sizeof(LL\"5\")", "8"},
		{"ffi.sizeof(ffi.typeof(\"short\"))", "2"},
		{"ffi.sizeof(ffi.new(\"char[?]\", 7))", "7"},
		{"ffi.sizeof(ffi.new(\"int[5]\"))", "20"},
		{"ffi.sizeof(\"char[?]\")", "error: bad argument #2 to 'sizeof' (value expected)"},
		// a 64-bit integer cdata indexes an array
		{`(function() local a = ffi.new("double[?]", 4) a[LL"2"] = 7 return a[2], a[LL"2"] end)()`, "7, 7"},
		{"ffi.sizeof(5)", "error: bad argument #1 to 'sizeof' (C type expected, got number)"},
		{"ffi.sizeof()", "error: bad argument #1 to 'sizeof' (C type expected, got no value)"},
		{"ffi.alignof(\"int\")", "4"},
		{"ffi.alignof(\"double\")", "8"},
		{"ffi.alignof(\"char[16]\")", "1"},
		{"ffi.alignof(\"long double\")", "16"},
		// ctypes and their names
		{"ffi.typeof(\"int8_t\")", "ctype<char>"},
		{"ffi.typeof(\"uint32_t\")", "ctype<unsigned int>"},
		{"ffi.typeof(\"long\")", "ctype<int64_t>"},
		{"ffi.typeof(\"unsigned long\")", "ctype<uint64_t>"},
		{"ffi.typeof(\"size_t\")", "ctype<uint64_t>"},
		{"ffi.typeof(\"const char *\")", "ctype<const char *>"},
		{"ffi.typeof(\"uint32_t *\")", "ctype<unsigned int *>"},
		{"ffi.typeof(\"char[16]\")", "ctype<char [16]>"},
		{"ffi.typeof(\"int[3][2]\")", "ctype<int [3][2]>"},
		{"ffi.typeof(\"char[?]\")", "ctype<char [?]>"},
		{"ffi.typeof(\"const int\")", "ctype<const int>"},
		{"ffi.typeof(LL\"5\")", "ctype<int64_t>"},
		{"ffi.typeof(ffi.typeof(\"int\"))", "ctype<int>"},
		{"ffi.typeof(\"int\") == ffi.typeof(\"int32_t\")", "true"},
		{"ffi.typeof(\"uint64_t\") == ffi.typeof(\"unsigned long\")", "true"},
		{"ffi.typeof(\"int\") == ffi.typeof(\"const int\")", "false"},
		{"ffi.typeof(\"int\") == ffi.typeof(\"unsigned int\")", "false"},
		// casts
		{"ffi.cast(\"uint32_t\", -1)", "cdata<unsigned int>: ADDR"},
		{"tonumber(ffi.cast(\"uint32_t\", -1))", "4294967295"},
		{"tonumber(ffi.cast(\"int8_t\", 200))", "-56"},
		{"tonumber(ffi.cast(\"uint8_t\", -1))", "255"},
		{"tonumber(ffi.cast(\"int\", 2^31))", "-2147483648"},
		{"tonumber(ffi.cast(\"int\", 3.9))", "3"},
		{"tonumber(ffi.cast(\"int\", -3.9))", "-3"},
		{"tonumber(ffi.cast(\"uint32_t\", 2^32 + 5))", "5"},
		{"tonumber(ffi.cast(\"uint16_t\", 70000))", "4464"},
		{"ffi.cast(\"int64_t\", 2^53)", "9007199254740992LL"},
		{"ffi.cast(\"uint64_t\", -1)", "9223372036854775808ULL"},
		{"ffi.cast(\"int64_t\", -1)", "-1LL"},
		{"ffi.cast(\"uint64_t\", LL\"5\")", "5ULL"},
		{"ffi.cast(\"int64_t\", ULL\"18446744073709551615\")", "-1LL"},
		{"tonumber(ffi.cast(\"int32_t\", 2^32 + LL\"7\"))", "7"},
		{"tonumber(ffi.cast(\"double\", LL\"5\"))", "5"},
		{"tonumber(ffi.cast(\"float\", 0.1))", "0.10000000149012"},
		{"tonumber(ffi.cast(\"bool\", 5))", "1"},
		{"tonumber(ffi.cast(\"bool\", 0))", "0"},
		{"tonumber(ffi.cast(\"int\", true))", "1"},
		{"tonumber(ffi.cast(\"int\", nil))", "0"},
		{"ffi.cast(\"uint64_t\", 2^64)", "0ULL"},
		{"ffi.cast(\"uint64_t\", 2^63)", "9223372036854775808ULL"},
		{"ffi.cast(\"int64_t\", 2^63)", "-9223372036854775808LL"},
		{"ffi.cast(\"uint64_t\", 1e30)", "9223372036854775808ULL"},
		{"ffi.cast(\"const uint64_t\", 3)", "3ULL"},
		{"ffi.cast(ffi.typeof(\"uint32_t\"), -1)", "cdata<unsigned int>: ADDR"},
		{"ffi.cast(\"int\", {})", "error: cannot convert 'table' to 'int'"},
		// small cdata compute in 64 bits
		{"ffi.cast(\"uint32_t\", -1) + 0", "4294967295LL"},
		{"ffi.cast(\"uint32_t\", -1) + ULL\"0\"", "4294967295ULL"},
		{"ffi.cast(\"int\", 5) * 2", "10LL"},
		{"ffi.new(\"double\", 1.5) + 1", "2LL"},
		{"ffi.new(\"uint8_t\", 255) + 1", "256LL"},
		{"-ffi.new(\"int\", 3)", "-3LL"},
		{"ffi.new(\"int\", 3) < ffi.new(\"int\", 4)", "true"},
		{"ffi.new(\"int\", 5) == ffi.new(\"int\", 5)", "true"},
		// ffi.new and ctype calls
		{"ffi.new(\"int\", 7)", "cdata<int>: ADDR"},
		{"tonumber(ffi.new(\"int\", 7))", "7"},
		{"tonumber(ffi.new(\"int\"))", "0"},
		{"ffi.new(\"uint64_t\", 5)", "5ULL"},
		{"ffi.new(\"uint64_t\")", "0ULL"},
		{"ffi.new(\"int64_t\", -2^63)", "-9223372036854775808LL"},
		{"ffi.new(\"int64_t\", 1.9)", "1LL"},
		{"ffi.new(\"int64_t\", -1.9)", "-1LL"},
		{"ffi.new(\"long\", 5)", "5LL"},
		{"ffi.new(\"size_t\", 5)", "5ULL"},
		{"ffi.new(\"uint64_t\", true)", "1ULL"},
		{"tonumber(ffi.new(\"int8_t\", 200))", "-56"},
		{"tonumber(ffi.new(\"int\", 1e10))", "-2147483648"},
		{"tonumber(ffi.new(\"uint32_t\", -1))", "4294967295"},
		{"tonumber(ffi.new(\"uint32_t\", 2^40))", "0"},
		{"tonumber(ffi.new(\"uint16_t\", -1.5))", "65535"},
		{"tonumber(ffi.new(\"uint8_t\", 256.5))", "0"},
		{"tonumber(ffi.new(\"bool\", 0/0))", "1"},
		{"tonumber(ffi.new(\"float\", 1/3))", "0.33333334326744"},
		{"tonumber(ffi.new(\"int\", LL\"1\"))", "1"},
		{"ffi.new(\"uint64_t\", \"12\")", "error: cannot convert 'string' to 'uint64_t'"},
		{"ffi.new(\"uint64_t\", nil)", "error: cannot convert 'nil' to 'uint64_t'"},
		{"ffi.new(\"uint64_t\", {})", "error: cannot convert 'table' to 'uint64_t'"},
		{"ffi.new(\"uint64_t\", 1, 2)", "error: too many initializers for 'uint64_t'"},
		{"ffi.typeof(\"uint64_t\")(5)", "5ULL"},
		{"ffi.typeof(\"int64_t\")()", "0LL"},
		{"ffi.typeof(\"uint64_t\")(-1)", "9223372036854775808ULL"},
		{"(function() local u64 = ffi.typeof(\"uint64_t\") return u64(2^60) + u64(1) end)()", "1152921504606846977ULL"},
		{"tostring(ffi.new(\"int64_t\", 3))", "\"3LL\""},
		{"tostring(ffi.new(\"const int64_t\", 3))", "\"3LL\""},
		{"ffi.new(\"const int64_t\", 3) + 1", "4LL"},
		// arrays
		{"ffi.new(\"int[3]\", 1, 2, 3)[2]", "3"},
		{"ffi.new(\"int[3]\", {4, 5, 6})[1]", "5"},
		{"ffi.new(\"int[3]\", 7)[2]", "7"},
		{"ffi.new(\"uint64_t[2]\", 1)[1]", "1ULL"},
		{"ffi.new(\"uint64_t[2]\", {9})[0]", "9ULL"},
		{"ffi.new(\"double[2]\", 1.5)[1]", "1.5"},
		{"ffi.new(\"char[?]\", 3, 65)[2]", "65"},
		{"ffi.string(ffi.new(\"char[4]\", \"ab\"))", "\"ab\""},
		{"ffi.typeof(ffi.new(\"char[?]\", 3))", "ctype<char [?]>"},
		{"ffi.typeof(ffi.new(\"int[3]\"))", "ctype<int [3]>"},
		{"ffi.typeof(\"char[?]\")(5)", "cdata<char [?]>: ADDR"},
		{"ffi.new(\"int[2]\", 1, 2, 3)", "error: too many initializers for 'int [2]'"},
		{"ffi.new(\"int[?]\", -1)", "error: bad argument #1 to 'new' (size of C type is unknown or too large)"},
		{"#ffi.new(\"int[2]\")", "error: attempt to get length of 'int [2]'"},
		{"(function() local b = ffi.new(\"uint8_t[4]\") b[0] = 300 b[1] = -1 return b[0], b[1], b[2] end)()", "44, 255, 0"},
		{"(function() local b = ffi.new(\"int64_t[2]\") b[1] = 2^53 return b[1] + 1 end)()", "9007199254740993LL"},
		{"(function() local b = ffi.new(\"char[8]\") ffi.copy(b, \"hello\") return ffi.string(b), ffi.string(b, 2) end)()", "\"hello\", \"he\""},
		{"(function() local b = ffi.new(\"char[8]\") ffi.fill(b, 3, 65) return ffi.string(b) end)()", "\"AAA\""},
		{"ffi.string(\"abc\", 2)", "\"ab\""},
		{"ffi.string(LL\"5\")", "error: bad argument #1 to 'string' (cannot convert 'int64_t' to 'const char *')"},
		// istype
		{"ffi.istype(\"int64_t\", LL\"5\")", "true"},
		{"ffi.istype(\"uint64_t\", LL\"5\")", "false"},
		{"ffi.istype(\"int64_t\", 5)", "false"},
		{"ffi.istype(ffi.typeof(\"uint64_t\"), ULL\"5\")", "true"},
		{"ffi.istype(\"long\", LL\"5\")", "true"},
		{"ffi.istype(\"const int64_t\", LL\"5\")", "true"},
		{"ffi.istype(\"int\", ffi.new(\"int32_t\", 3))", "true"},
		{"ffi.istype(\"uint32_t\", ffi.cast(\"uint32_t\", 1))", "true"},
		{"ffi.istype(\"char[?]\", ffi.new(\"char[?]\", 3))", "true"},
		{"ffi.istype(\"char[3]\", ffi.new(\"char[?]\", 3))", "false"},
		{"ffi.istype(\"int64_t\", nil)", "false"},
		{"ffi.istype(\"double\", 1.5)", "false"},
		// the rest of the module
		{"ffi.os", "\"Linux\""},
		{"ffi.arch", "\"x64\""},
		{"ffi.abi(\"64bit\")", "true"},
		{"ffi.abi(\"le\")", "true"},
		{"ffi.abi(\"be\")", "false"},
		{"ffi.abi(\"win\")", "false"},
		{"ffi.errno()", "0"},
		{"type(ffi.typeof(\"int\"))", "\"cdata\""},
		{"type(ffi.new(\"char[4]\"))", "\"cdata\""},
		{"require(\"ffi\") == ffi", "true"},
	})
}

// TestFFIUnsupported: what the ffi module does not model fails with one
// line naming it.
func TestFFIUnsupported(t *testing.T) {
	cases := []luajitCase{
		{`ffi.sizeof("struct foo")`, "error: ffi.sizeof: C type 'struct foo' is not supported by sysbench-go"},
		{`ffi.new("struct { int a; }")`, "error: ffi.new: C type 'struct { int a; }' is not supported by sysbench-go"},
		{`ffi.typeof("useconds_t")`, "error: ffi.typeof: C type 'useconds_t' is not supported by sysbench-go"},
		{`ffi.istype("foo_t", 1)`, "error: ffi.istype: C type 'foo_t' is not supported by sysbench-go"},
		{`ffi.cast("char *", 0)`, "error: ffi.cast: C type 'char *' is not supported by sysbench-go"},
		{`ffi.new("char *")`, "error: ffi.new: C type 'char *' is not supported by sysbench-go"},
		{`ffi.new("int[2][2]")`, "error: ffi.new: C type 'int [2][2]' is not supported by sysbench-go"},
		{`ffi.load("m")`, "error: ffi.load is not supported by sysbench-go"},
		{`ffi.offsetof("struct s", "a")`, "error: ffi.offsetof is not supported by sysbench-go"},
		{`ffi.C.strlen`, "error: ffi.C.strlen is not supported by sysbench-go"},
		// What the shim always did keeps working.
		{`ffi.cdef("int usleep(unsigned int);")`, ""},
		{`ffi.metatype("x", {}), ffi.gc("y", print)`, `"x", "y"`},
		{`ffi.sizeof(ffi.new("char[?]", 7))`, "7"},
	}
	for _, tc := range cases {
		if got := evalCase(t, newLuaJITState(t), tc.expr); got != tc.want {
			t.Errorf("%s = %s, want %s", tc.expr, got, tc.want)
		}
	}
}

// FuzzCType: any C type name parses or is refused, and a parsed one has a
// name and a size that ffi.sizeof can report.
func FuzzCType(f *testing.F) {
	for _, s := range []string{"int", "unsigned long long", "const char *", "char[16]", "int[?]", "struct s", "int[3][2]", "long double"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ct, ok := parseCType(s)
		if !ok {
			return
		}
		if ct.String() == "" || ct.align <= 0 {
			t.Fatalf("%q parsed to %+v", s, ct)
		}
		ct.sizeOf(3, true)
	})
}
