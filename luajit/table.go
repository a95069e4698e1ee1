package luajit

import (
	"strconv"

	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/luajit/number"
)

// registerTable gives the table library LuaJIT 2.1's functions where
// gopher-lua's differ: numeric strings for positions, LuaJIT's errors
// ("wrong number of arguments to 'insert'", "invalid value (table) at
// index 2 in table for 'concat'"), numbers concatenated as tostring
// writes them, insert and remove moving elements as LuaJIT's do.
// table.sort is tablesort.go's.
func registerTable(L *lua.LState) {
	tbl, ok := L.GetGlobal("table").(*lua.LTable)
	if !ok {
		return
	}
	for name, fn := range map[string]lua.LGFunction{
		"concat":   tableConcat,
		"foreach":  tableForeach,
		"foreachi": tableForeachi,
		"getn":     tableGetn,
		"insert":   tableInsertFn,
		"maxn":     tableMaxn,
		"remove":   tableRemove,
	} {
		tbl.RawSetString(name, L.NewFunction(fn))
	}
}

// tableInsertFn is table.insert(t, [pos,] v): raw writes, elements from
// pos to #t moved up by one (whatever pos is, as LuaJIT does).
func tableInsertFn(L *lua.LState) int {
	t := checkTab(L, 1)
	i := t.Len() + 1
	switch L.GetTop() {
	case 2:
	case 3:
		n := int(checkInt(L, 2))
		if n >= 1 && n < i {
			// Within the sequence, which lies in the array part (Len
			// counts only that): one slice move.
			t.Insert(n, L.Get(3))
			return 0
		}
		for ; i > n; i-- {
			t.RawSetInt(i, t.RawGetInt(i-1))
		}
		i = n
	default:
		LibError(L, "wrong number of arguments to 'insert'")
	}
	t.RawSetInt(i, L.Get(L.GetTop()))
	return 0
}

// LuaJIT writes table.remove, getn, foreach and foreachi (and string.len,
// math.deg and math.rad) in Lua, so a missing argument is nil in their
// errors, not "no value": they start with L.SetTop(parameters).

// tableRemove is table.remove(t [, pos]): nothing when pos is not within
// 1..#t; reads and writes go through metamethods, as in LuaJIT (whose
// remove is written in Lua).
func tableRemove(L *lua.LState) int {
	L.SetTop(2) // a Lua function's parameters: a missing one is nil
	t := checkTab(L, 1)
	n := t.Len()
	if L.Get(2) == lua.LNil {
		if n == 0 {
			return 0
		}
		old := L.GetTable(t, lua.LNumber(n))
		L.SetTable(t, lua.LNumber(n), lua.LNil)
		L.Push(old)
		return 1
	}
	pos := int(checkInt(L, 2))
	if pos < 1 || pos > n {
		return 0
	}
	if t.Metatable == lua.LNil {
		// No metamethods to honour: the raw path, which a queue
		// (table.remove(q, 1)) runs at every step. 1 <= pos <= #t lies
		// in the array part (Len counts only that), which Remove moves
		// down in one copy; the slots after #t there are nil.
		L.Push(t.Remove(pos))
		return 1
	}
	old := L.GetTable(t, lua.LNumber(pos))
	for i := pos + 1; i <= n; i++ {
		L.SetTable(t, lua.LNumber(i-1), L.GetTable(t, lua.LNumber(i)))
	}
	L.SetTable(t, lua.LNumber(n), lua.LNil)
	L.Push(old)
	return 1
}

// tableConcat is table.concat(t [, sep [, i [, j]]]) over raw reads of
// strings and numbers.
func tableConcat(L *lua.LState) int {
	t := checkTab(L, 1)
	sep := optStr(L, 2, "")
	i := int(optInt(L, 3, 1))
	var e int
	if L.Get(4) != lua.LNil {
		e = int(checkInt(L, 4))
	} else {
		e = t.Len()
	}
	if i > e {
		L.Push(lua.LString(""))
		return 1
	}
	var stack [256]byte
	b := stack[:0]
	for k := i; ; k++ {
		switch v := t.RawGetInt(k).(type) {
		case lua.LString:
			b = append(b, v...)
		case lua.LNumber:
			b = number.Append(b, float64(v))
		default:
			LibError(L, "invalid value ("+luaTypeName(v)+") at index "+strconv.Itoa(k)+" in table for 'concat'")
		}
		if k >= e {
			break
		}
		b = append(b, sep...)
	}
	L.Push(lua.LString(b))
	return 1
}

// tableMaxn is table.maxn(t): the largest positive numeric key, 0 if none.
func tableMaxn(L *lua.LState) int {
	t := checkTab(L, 1)
	m := 0.0
	t.ForEach(func(k, _ lua.LValue) {
		if n, ok := k.(lua.LNumber); ok && float64(n) > m {
			m = float64(n)
		}
	})
	L.Push(lua.LNumber(m))
	return 1
}

func tableGetn(L *lua.LState) int {
	L.SetTop(1)
	L.Push(lua.LNumber(checkTab(L, 1).Len()))
	return 1
}

// tableForeachi is table.foreachi(t, f): f(i, t[i]) for i in 1..#t until
// f returns a value other than nil, which is returned.
func tableForeachi(L *lua.LState) int {
	L.SetTop(2)
	t := checkTab(L, 1)
	f := checkFunc(L, 2)
	for i := 1; i <= t.Len(); i++ {
		L.Push(f)
		L.Push(lua.LNumber(i))
		L.Push(L.GetTable(t, lua.LNumber(i)))
		L.Call(2, 1)
		if r := L.Get(-1); r != lua.LNil {
			return 1
		}
		L.Pop(1)
	}
	return 0
}

// tableForeach is table.foreach(t, f): f(k, v) over pairs(t) until f
// returns a value other than nil, which is returned.
func tableForeach(L *lua.LState) int {
	L.SetTop(2)
	t := checkTab(L, 1)
	f := checkFunc(L, 2)
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		L.Push(f)
		L.Push(k)
		L.Push(v)
		L.Call(2, 1)
		if r := L.Get(-1); r != lua.LNil {
			return 1
		}
		L.Pop(1)
	}
	return 0
}

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
		LibError(L, "table overflow")
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
