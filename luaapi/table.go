package luaapi

import (
	lua "github.com/yuin/gopher-lua"
)

// registerTableExt makes LuaJIT 2.1's require "table.new" and
// require "table.clear" available; as in LuaJIT, loading one also sets
// table.new or table.clear.
func registerTableExt(L *lua.LState) {
	pl, ok := L.GetField(L.GetGlobal("package"), "preload").(*lua.LTable)
	if !ok {
		return
	}
	for name, fn := range map[string]lua.LGFunction{"new": tableNew, "clear": tableClear} {
		pl.RawSetString("table."+name, L.NewFunction(func(L *lua.LState) int {
			f := L.NewFunction(fn)
			if t, ok := L.GetGlobal("table").(*lua.LTable); ok {
				t.RawSetString(name, f)
			}
			L.Push(f)
			return 1
		}))
	}
}

// maxPrealloc caps the slots table.new reserves: its sizes are a hint, and
// a large one would be paid by every thread's state.
const maxPrealloc = 1 << 20

// tableNew is new(narray, nhash): an empty table with room reserved.
// LuaJIT refuses a hash part beyond 2^26 entries ("table overflow").
func tableNew(L *lua.LState) int {
	narr, nhash := checkInt(L, 1), checkInt(L, 2)
	if nhash < 0 || nhash > 1<<26 {
		L.RaiseError("table overflow")
	}
	L.Push(L.CreateTable(int(min(max(narr, 0), maxPrealloc)), int(min(nhash, maxPrealloc))))
	return 1
}

// tableClear is clear(t): t emptied in place, keeping its identity (and
// its metatable). Every key is set to nil, the only way gopher-lua's API
// empties a table; the room it allocated stays allocated, as in LuaJIT.
func tableClear(L *lua.LState) int {
	t, ok := L.Get(1).(*lua.LTable)
	if !ok {
		typeError(L, 1, "table")
	}
	clearTable(t)
	return 0
}

func clearTable(t *lua.LTable) {
	var keys []lua.LValue
	t.ForEach(func(k, _ lua.LValue) { keys = append(keys, k) })
	for _, k := range keys {
		t.RawSet(k, lua.LNil)
	}
}
