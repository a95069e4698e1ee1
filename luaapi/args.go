package luaapi

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/internal/luanum"
)

// The LuaJIT libraries added here (bit, jit, math.random, table.new, ffi,
// 64-bit cdata, string.format) check their arguments the way LuaJIT's do,
// so scripts see LuaJIT's messages: "bad argument #1 to 'band' (number
// expected, got nil)", with the function named as at the call site.

// argError raises "bad argument #n to 'name' (msg)" at the calling Lua line.
func argError(L *lua.LState, n int, msg string) {
	L.RaiseError("bad argument #%d to '%s' (%s)", n, callName(L), msg)
}

// typeError raises argError for argument n not being a want.
func typeError(L *lua.LState, n int, want string) {
	argError(L, n, want+" expected, got "+argTypeName(L, n))
}

// callName is the name the calling Lua code used for the running Go
// function ("band" for bit.band(...), "f" for a local f), or "?" when
// there is none, as LuaJIT reports it.
func callName(L *lua.LState) string {
	dbg, ok := L.GetStack(0)
	if !ok {
		return "?"
	}
	if _, err := L.GetInfo("n", dbg, lua.LNil); err != nil {
		return "?"
	}
	name := dbg.Name
	if name == "" || name[0] == '(' || name[0] == '<' || name == "main chunk" {
		return "?"
	}
	return name
}

// argTypeName is LuaJIT's name for argument n's type: "no value" past the
// last argument, "cdata" for ffi values.
func argTypeName(L *lua.LState, n int) string {
	if n > L.GetTop() {
		return "no value"
	}
	return luaTypeName(L.Get(n))
}

// luaTypeName is type(v) as LuaJIT answers it.
func luaTypeName(v lua.LValue) string {
	if ud, ok := v.(*lua.LUserData); ok {
		if isFFIValue(ud) {
			return "cdata"
		}
		// The reference's SQL objects are ffi structs too (inspect() then
		// prints an error descriptor's connection as <sql_connection>).
		switch ud.Value.(type) {
		case *sqlDriver, *sqlConn, *sqlStmt, *sqlResult:
			return "cdata"
		}
	}
	return v.Type().String()
}

// checkNum is LuaJIT's lj_lib_checknum: a number, or a string that
// converts to one.
func checkNum(L *lua.LState, n int) float64 {
	switch v := L.Get(n).(type) {
	case lua.LNumber:
		return float64(v)
	case lua.LString:
		if f, ok := luanum.Parse(string(v)); ok {
			return f
		}
	}
	typeError(L, n, "number")
	return 0
}

// checkInt is LuaJIT's lj_lib_checkint: checkNum truncated to 32 bits.
func checkInt(L *lua.LState, n int) int32 {
	return f2i32(checkNum(L, n))
}

// f2i64 converts like the x86-64 instruction C compilers use for
// (int64_t)d: truncation, and 0x8000000000000000 for NaN and for values out
// of range.
func f2i64(f float64) int64 {
	if f >= -9223372036854775808.0 && f < 9223372036854775808.0 {
		return int64(f)
	}
	return -1 << 63
}

// f2i32 is (int32_t)d on x86-64: truncation, 0x80000000 when out of range.
func f2i32(f float64) int32 {
	if f > -2147483649.0 && f < 2147483648.0 {
		return int32(f)
	}
	return -1 << 31
}

// f2u64 is LuaJIT's conversion of a double to uint64_t on x86-64: values
// from 2^63 wrap modulo 2^64, negative ones give 2^63.
func f2u64(f float64) uint64 {
	i := f2i64(f)
	if i < 0 {
		i = f2i64(f - 18446744073709551616.0)
	}
	return uint64(i)
}
