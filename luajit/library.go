package luajit

import (
	lua "github.com/yuin/gopher-lua"
)

// LuaJIT's extra libraries (bit, jit, ffi) exist in every Lua state, one
// per thread, but most scripts never touch them, and a gopher-lua table of
// a dozen functions costs some 3 KiB. Each is therefore a global table
// filled on first use: when the script first reads or sets one of its
// fields, requires it, or iterates over it (pairs, next).

// lazyTables holds a state's library tables not yet filled.
type lazyTables struct {
	fill map[*lua.LTable]func(L *lua.LState, t *lua.LTable)
	meta *lua.LTable // the stubs' metatable, removed once filled
}

const lazyKey = "sysbench-go.lazy"

// lazyLibrary makes the global name and require(name) give a table that
// fill populates on first use, and returns it.
func lazyLibrary(L *lua.LState, name string, fill func(L *lua.LState, t *lua.LTable)) *lua.LTable {
	lt := lazyTablesOf(L)
	t := L.CreateTable(0, 0)
	lt.fill[t] = func(L *lua.LState, t *lua.LTable) {
		fill(L, t)
		SetLoaded(L, name, t)
	}
	t.Metatable = lt.meta
	L.SetGlobal(name, t)
	if pl, ok := L.GetField(L.GetGlobal("package"), "preload").(*lua.LTable); ok {
		pl.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			lt.load(L, t)
			L.Push(t)
			return 1
		}))
	}
	return t
}

func lazyTablesOf(L *lua.LState) *lazyTables {
	reg := L.Get(lua.RegistryIndex).(*lua.LTable)
	if ud, ok := reg.RawGetString(lazyKey).(*lua.LUserData); ok {
		return ud.Value.(*lazyTables)
	}
	lt := &lazyTables{fill: map[*lua.LTable]func(*lua.LState, *lua.LTable){}}
	lt.meta = L.CreateTable(0, 2)
	lt.meta.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		t := L.CheckTable(1)
		lt.load(L, t)
		L.Push(t.RawGet(L.Get(2)))
		return 1
	}))
	lt.meta.RawSetString("__newindex", L.NewFunction(func(L *lua.LState) int {
		t := L.CheckTable(1)
		lt.load(L, t)
		t.RawSet(L.Get(2), L.Get(3))
		return 0
	}))
	ud := L.NewUserData()
	ud.Value = lt
	reg.RawSetString(lazyKey, ud)
	return lt
}

// FillLazy fills t if it is a library table not filled yet, so pairs and
// next see its functions.
func FillLazy(L *lua.LState, t *lua.LTable) {
	if t.Metatable == lua.LNil {
		return
	}
	reg, ok := L.Get(lua.RegistryIndex).(*lua.LTable)
	if !ok {
		return
	}
	if ud, ok := reg.RawGetString(lazyKey).(*lua.LUserData); ok {
		if lt := ud.Value.(*lazyTables); t.Metatable == lt.meta {
			lt.load(L, t)
		}
	}
}

// load fills t if it is still a stub.
func (lt *lazyTables) load(L *lua.LState, t *lua.LTable) {
	if fill, ok := lt.fill[t]; ok {
		delete(lt.fill, t)
		if t.Metatable == lt.meta {
			t.Metatable = lua.LNil
		}
		fill(L, t)
	}
}

// SetLoaded makes require(name) return v.
func SetLoaded(L *lua.LState, name string, v lua.LValue) {
	if loaded, ok := L.GetField(L.Get(lua.RegistryIndex), "_LOADED").(*lua.LTable); ok {
		loaded.RawSetString(name, v)
	}
}
