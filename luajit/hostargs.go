package luajit

import lua "github.com/yuin/gopher-lua"

// The checks a host's Go functions (sysbench's API) make of their
// arguments, with LuaJIT's messages rather than gopher-lua's: "bad
// argument #1 to 'query' (string expected, got nil)", the function named
// as the calling code named it ('?' when pcall called it), after the
// calling line's position. gopher-lua's LState.CheckString and the like
// say "bad argument #1 to query (...)" and always give a position.

// ArgError raises msg for argument n as LuaJIT's luaL_argerror.
func ArgError(L *lua.LState, n int, msg string) { argError(L, n, msg) }

// CheckNumber is a number argument (or a string that converts to one).
func CheckNumber(L *lua.LState, n int) lua.LNumber { return lua.LNumber(checkNum(L, n)) }

// OptNumber is CheckNumber with def for a missing or nil argument.
func OptNumber(L *lua.LState, n int, def lua.LNumber) lua.LNumber {
	return lua.LNumber(optNum(L, n, float64(def)))
}

// CheckInt is an integer argument: a number truncated to 32 bits.
func CheckInt(L *lua.LState, n int) int { return int(checkInt(L, n)) }

// OptInt is CheckInt with def for a missing or nil argument.
func OptInt(L *lua.LState, n int, def int) int { return int(optInt(L, n, int32(def))) }

// CheckString is a string argument (or a number, as tostring writes it).
func CheckString(L *lua.LState, n int) string { return CheckStr(L, n) }

// OptString is CheckString with def for a missing or nil argument.
func OptString(L *lua.LState, n int, def string) string { return optStr(L, n, def) }

// CheckTable is a table argument.
func CheckTable(L *lua.LState, n int) *lua.LTable { return checkTab(L, n) }

// CheckFunction is a function argument.
func CheckFunction(L *lua.LState, n int) *lua.LFunction { return checkFunc(L, n) }

// CheckUserData is a userdata argument.
func CheckUserData(L *lua.LState, n int) *lua.LUserData {
	ud, ok := L.Get(n).(*lua.LUserData)
	if !ok {
		typeError(L, n, "userdata")
	}
	return ud
}
