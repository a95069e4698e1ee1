package luajit

import (
	"sync"

	lua "github.com/yuin/gopher-lua"
)

// A Lua number is an interface value holding a float64: making one from
// a Go number allocates its 8 bytes (Go keeps static copies only of the
// byte values, and no float64 but +0 is one). The whole numbers the API
// returns on every event (a row id, a table number) are mostly small, so
// those below smallInts are boxed once per process and shared: a boxed
// number is never written, so every state may hold the same one.
const smallInts = 1 << 14

var boxedInts = sync.OnceValue(func() *[smallInts]lua.LValue {
	var b [smallInts]lua.LValue
	for i := range b {
		b[i] = lua.LNumber(i)
	}
	return &b
})

// Int is the Lua number v, without an allocation when 0 <= v < 16384.
func Int(v int64) lua.LValue {
	if uint64(v) < smallInts {
		return boxedInts()[v]
	}
	return lua.LNumber(v)
}
