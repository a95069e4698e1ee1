package luajit

import (
	"strconv"

	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/luajit/compile"
	"github.com/sysbench-go/sysbench-go/luajit/number"
	"github.com/sysbench-go/sysbench-go/luajit/vm"
)

// The standard libraries and LuaJIT's (bit, jit, ffi, 64-bit cdata) check
// their arguments the way LuaJIT's do, so scripts see LuaJIT's messages:
// "bad argument #1 to 'rep' (number expected, got no value)", with the
// function named as at the call site and the position of the Lua line
// that called it. Every argument error goes through argError.

// argError raises "bad argument #n to 'name' (msg)" as LuaJIT's
// luaL_argerror, naming the function as the calling code did
// (compile.CallerName: "rep" for string.rep(...), "f" for a local f, "?"
// when it has no name there): in a method call (s:rep(...)) the arguments
// are counted after self, and a bad self is "calling 'name' on bad self
// (msg)". The message starts with the calling line's position when the
// caller is Lua code.
func argError(L *lua.LState, n int, msg string) {
	kind, name := compile.CallerName(L, 0)
	if name == "" {
		name = "?"
	}
	var b []byte
	b = append(b, callerWhere(L)...)
	if kind == "method" {
		n--
		if n == 0 {
			b = append(b, "calling '"...)
			b = append(b, name...)
			b = append(b, "' on bad self ("...)
			b = append(b, msg...)
			b = append(b, ')')
			L.Error(lua.LString(b), 0)
		}
	}
	b = append(b, "bad argument #"...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, " to '"...)
	b = append(b, name...)
	b = append(b, "' ("...)
	b = append(b, msg...)
	b = append(b, ')')
	L.Error(lua.LString(b), 0)
}

// FFIArgError raises what LuaJIT's FFI raises for argument n of a C
// function that cannot be converted to the C type ctype ("bad argument #1
// to 'f' (cannot convert 'table' to 'unsigned int')"): sysbench's API
// functions that are C functions bound through the FFI answer so.
func FFIArgError(L *lua.LState, n int, ctype string) {
	argError(L, n, "cannot convert '"+luaTypeName(L.Get(n))+"' to '"+ctype+"'")
}

// LibError raises msg with the calling line's position, as LuaJIT's
// luaL_error from a library function.
func LibError(L *lua.LState, msg string) {
	L.Error(lua.LString(callerWhere(L)+msg), 0)
}

// callerWhere is "chunk:line: " for the Lua function that called the
// running Go function, "" when a Go function (pcall) called it.
func callerWhere(L *lua.LState) string {
	return frameWhere(L, 1)
}

// frameWhere is "chunk:line: " for the Lua function at level, "" for a
// Go function.
func frameWhere(L *lua.LState, level int) string {
	f, ok := vm.FrameAt(L, level)
	if !ok || f.Fn == nil || f.Fn.IsG || f.Pc <= 0 || f.Pc > len(f.Fn.Proto.DbgSourcePositions) {
		return ""
	}
	line := f.Fn.Proto.DbgSourcePositions[f.Pc-1]
	return compile.ShortSource(f.Fn.Proto.SourceName) + ":" + strconv.Itoa(line) + ": "
}

// typeError raises argError for argument n not being a want.
func typeError(L *lua.LState, n int, want string) {
	argError(L, n, want+" expected, got "+argTypeName(L, n))
}

// argTypeName is LuaJIT's name for argument n's type: "no value" past the
// last argument, "cdata" for ffi values.
func argTypeName(L *lua.LState, n int) string {
	if n > L.GetTop() {
		return "no value"
	}
	return luaTypeName(L.Get(n))
}

// FFIObject is a host's userdata value that type() reports as "cdata", as
// LuaJIT does for a C struct the host hands to Lua through ffi.
type FFIObject interface{ FFIObject() }

// luaTypeName is type(v) as LuaJIT answers it.
func luaTypeName(v lua.LValue) string {
	if ud, ok := v.(*lua.LUserData); ok {
		if isFFIValue(ud) {
			return "cdata"
		}
		// A host's objects may be ffi structs too (sysbench's SQL objects:
		// inspect() then prints an error descriptor's connection as
		// <sql_connection>).
		if _, ok := ud.Value.(FFIObject); ok {
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
		if f, ok := number.Parse(string(v)); ok {
			return f
		}
	}
	typeError(L, n, "number")
	return 0
}

// optNum is checkNum with def for a missing or nil argument.
func optNum(L *lua.LState, n int, def float64) float64 {
	if L.Get(n) == lua.LNil {
		return def
	}
	return checkNum(L, n)
}

// checkInt is LuaJIT's lj_lib_checkint: checkNum truncated to 32 bits.
func checkInt(L *lua.LState, n int) int32 {
	return f2i32(checkNum(L, n))
}

// optInt is checkInt with def for a missing or nil argument.
func optInt(L *lua.LState, n int, def int32) int32 {
	if L.Get(n) == lua.LNil {
		return def
	}
	return checkInt(L, n)
}

// CheckStr is LuaJIT's lj_lib_checkstr: a string, or a number as
// tostring writes it.
func CheckStr(L *lua.LState, n int) string {
	switch v := L.Get(n).(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return number.Format(float64(v))
	}
	typeError(L, n, "string")
	return ""
}

// optStr is CheckStr with def for a missing or nil argument.
func optStr(L *lua.LState, n int, def string) string {
	if L.Get(n) == lua.LNil {
		return def
	}
	return CheckStr(L, n)
}

// checkTab is a table argument.
func checkTab(L *lua.LState, n int) *lua.LTable {
	t, ok := L.Get(n).(*lua.LTable)
	if !ok {
		typeError(L, n, "table")
	}
	return t
}

// checkFunc is a function argument.
func checkFunc(L *lua.LState, n int) *lua.LFunction {
	f, ok := L.Get(n).(*lua.LFunction)
	if !ok {
		typeError(L, n, "function")
	}
	return f
}

// checkAny is an argument that may be anything, nil included, but must be
// there.
func checkAny(L *lua.LState, n int) lua.LValue {
	if n > L.GetTop() {
		argError(L, n, "value expected")
	}
	return L.Get(n)
}

// checkOption is argument n (def when missing or nil) as an index in
// opts, or "invalid option 'x'".
func checkOption(L *lua.LState, n int, def string, opts ...string) int {
	s := def
	if L.Get(n) != lua.LNil || def == "" {
		s = CheckStr(L, n)
	}
	for i, o := range opts {
		if o == s {
			return i
		}
	}
	argError(L, n, "invalid option '"+s+"'")
	return -1
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
