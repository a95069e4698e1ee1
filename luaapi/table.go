package luaapi

import (
	"reflect"
	"sync"
	"unsafe"

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

// tableClear is clear(t): t emptied in place, keeping its identity and,
// where gopher-lua's layout is the expected one, its allocated room.
func tableClear(L *lua.LState) int {
	t, ok := L.Get(1).(*lua.LTable)
	if !ok {
		typeError(L, 1, "table")
	}
	clearTable(t)
	return 0
}

// ltableFields locates gopher-lua's unexported LTable fields by name and
// type, so that clear can truncate them; ok is false if the layout ever
// differs, and clear then sets every key to nil instead.
var ltableFields = sync.OnceValue(func() (f struct {
	ok                              bool
	array, dict, strdict, keys, k2i uintptr
}) {
	rt := reflect.TypeFor[lua.LTable]()
	want := []struct {
		name string
		typ  reflect.Type
		off  *uintptr
	}{
		{"array", reflect.TypeFor[[]lua.LValue](), &f.array},
		{"dict", reflect.TypeFor[map[lua.LValue]lua.LValue](), &f.dict},
		{"strdict", reflect.TypeFor[map[string]lua.LValue](), &f.strdict},
		{"keys", reflect.TypeFor[[]lua.LValue](), &f.keys},
		{"k2i", reflect.TypeFor[map[lua.LValue]int](), &f.k2i},
	}
	for _, w := range want {
		sf, ok := rt.FieldByName(w.name)
		if !ok || sf.Type != w.typ {
			return f
		}
		*w.off = sf.Offset
	}
	f.ok = true
	return f
})

func clearTable(t *lua.LTable) {
	f := ltableFields()
	if !f.ok {
		var keys []lua.LValue
		t.ForEach(func(k, _ lua.LValue) { keys = append(keys, k) })
		for _, k := range keys {
			t.RawSet(k, lua.LNil)
		}
		return
	}
	p := unsafe.Pointer(t)
	for _, off := range []uintptr{f.array, f.keys} {
		s := (*[]lua.LValue)(unsafe.Add(p, off))
		clear(*s)
		*s = (*s)[:0]
	}
	if m := *(*map[lua.LValue]lua.LValue)(unsafe.Add(p, f.dict)); m != nil {
		clear(m)
	}
	if m := *(*map[string]lua.LValue)(unsafe.Add(p, f.strdict)); m != nil {
		clear(m)
	}
	if m := *(*map[lua.LValue]int)(unsafe.Add(p, f.k2i)); m != nil {
		clear(m)
	}
}
