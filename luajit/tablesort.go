package luajit

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"
)

// patchTableSort replaces gopher-lua's table.sort. Its version sorts the
// table's whole array part, so after `t[n] = nil` on trailing elements it
// compares the nils left there ("attempt to compare nil with number")
// although #t is right. Ours sorts elements 1..#t with LuaJIT's algorithm
// (lib_table.c auxsort): the same comparisons in the same order, so equal
// elements end up where the reference puts them and an inconsistent
// comparator fails the same way.
func patchTableSort(L *lua.LState) {
	tbl, ok := L.GetGlobal("table").(*lua.LTable)
	if !ok {
		return
	}
	tbl.RawSetString("sort", L.NewFunction(tableSort))
}

// tableSort is table.sort(t [, comp]).
func tableSort(L *lua.LState) int {
	t := checkTab(L, 1)
	s := tableSorter{L: L, t: t}
	if L.Get(2) != lua.LNil {
		fn, ok := L.Get(2).(*lua.LFunction)
		if !ok {
			typeError(L, 2, "function")
		}
		s.comp = fn
	}
	// t.Len is the raw length: LuaJIT's lj_tab_len, and gopher-lua's #t
	// for any table without a __len metamethod.
	s.sort(1, t.Len())
	return 0
}

// tableSorter sorts t in place with raw reads and writes, as the
// reference does.
type tableSorter struct {
	L    *lua.LState
	t    *lua.LTable
	comp *lua.LFunction // nil: the < operator
}

// less is comp(a, b), or a < b. Errors (comparing a number with a
// string, an error in comp) are raised as Lua errors.
func (s *tableSorter) less(a, b lua.LValue) bool {
	if s.comp == nil {
		switch x := a.(type) {
		case lua.LNumber:
			if y, ok := b.(lua.LNumber); ok {
				return x < y
			}
		case lua.LString:
			if y, ok := b.(lua.LString); ok {
				return x < y // bytewise, as LuaJIT and gopher-lua compare
			}
		}
		// Other values compare through one __lt shared by both.
		if a.Type() == b.Type() {
			lt := s.L.GetMetaField(a, "__lt")
			if lt.Type() == lua.LTFunction && lt == s.L.GetMetaField(b, "__lt") {
				return s.L.LessThan(a, b)
			}
		}
		s.compareError(a, b)
		return false // not reached: compareError raises a Lua error
	}
	// Unprotected: an error in comp propagates to table.sort's caller.
	_ = s.L.CallByParam(lua.P{Fn: s.comp, NRet: 1}, a, b)
	r := s.L.Get(-1)
	s.L.Pop(1)
	return lua.LVAsBool(r)
}

// compareError raises LuaJIT's message for two values < cannot order,
// without a position as LuaJIT reports it from table.sort.
func (s *tableSorter) compareError(a, b lua.LValue) {
	msg := fmt.Sprintf("attempt to compare %s with %s", a.Type(), b.Type())
	if a.Type() == b.Type() {
		msg = fmt.Sprintf("attempt to compare two %s values", a.Type())
	}
	s.L.Error(lua.LString(msg), 0)
}

func (s *tableSorter) invalidOrder() {
	s.L.RaiseError("invalid order function for sorting")
}

// sort is LuaJIT's auxsort over t[l..u]: quicksort with a median of three
// pivot, recursing into the smaller half. The bound checks in the scans
// catch a comparator that is not a strict order before they leave l..u.
func (s *tableSorter) sort(l, u int) {
	t := s.t
	for l < u {
		// Order t[l], t[m] and t[u].
		if a, b := t.RawGetInt(l), t.RawGetInt(u); s.less(b, a) {
			t.RawSetInt(l, b)
			t.RawSetInt(u, a)
		}
		if u-l == 1 {
			break
		}
		i := (l + u) / 2
		if a, b := t.RawGetInt(i), t.RawGetInt(l); s.less(a, b) {
			t.RawSetInt(i, b)
			t.RawSetInt(l, a)
		} else if c := t.RawGetInt(u); s.less(c, a) {
			t.RawSetInt(i, c)
			t.RawSetInt(u, a)
		}
		if u-l == 2 {
			break
		}
		// The pivot goes to u-1; t[l] <= p <= t[u] already.
		p := t.RawGetInt(i)
		t.RawSetInt(i, t.RawGetInt(u-1))
		t.RawSetInt(u-1, p)
		j := u - 1
		i = l
		for {
			var ai, aj lua.LValue
			for {
				i++
				if ai = t.RawGetInt(i); !s.less(ai, p) {
					break
				}
				if i >= u {
					s.invalidOrder()
				}
			}
			for {
				j--
				if aj = t.RawGetInt(j); !s.less(p, aj) {
					break
				}
				if j <= l {
					s.invalidOrder()
				}
			}
			if j < i {
				break
			}
			t.RawSetInt(i, aj)
			t.RawSetInt(j, ai)
		}
		// Swap the pivot into place: t[l..i-1] <= t[i] == p <= t[i+1..u].
		a, b := t.RawGetInt(u-1), t.RawGetInt(i)
		t.RawSetInt(u-1, b)
		t.RawSetInt(i, a)
		if i-l < u-i {
			j, i, l = l, i-1, i+1
		} else {
			j, i, u = i+1, u, i-1
		}
		s.sort(j, i)
	}
}
