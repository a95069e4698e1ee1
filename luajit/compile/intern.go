package compile

import (
	"sync"
	"sync/atomic"

	lua "github.com/yuin/gopher-lua"
)

// Field names are looked up by gopher-lua in Go maps keyed by string, and
// Go compares two strings of the same length by their bytes unless they
// share their memory. Every string constant the compiler makes, and every
// key InternKeys rewrites, is one process-wide copy of its text, so a
// GETGLOBAL or GETTABLEKS finding its key compares two pointers. Only
// short strings are kept, and no more than maxInterned of them: names,
// not the data a generated chunk may carry.

const (
	maxInternLen = 40
	maxInterned  = 1 << 16
)

var (
	interned  sync.Map // string -> the same string, the process's copy
	ninterned atomic.Int32
)

// The event names gopher-lua looks metamethods up by are its string
// literals, which the linker keeps one copy of: they are the copies.
func init() {
	for _, s := range []string{"__index", "__newindex", "__call", "__tostring", "__gc", "__mode",
		"__metatable", "__eq", "__lt", "__le", "__len", "__concat", "__unm", "__add", "__sub",
		"__mul", "__div", "__mod", "__pow", "__name", "__close", "__pairs", "__ipairs"} {
		Intern(s)
	}
}

// Intern returns the process's copy of s (s itself when there is none yet
// and it is short enough to keep).
func Intern(s string) string {
	if len(s) > maxInternLen {
		return s
	}
	if v, ok := interned.Load(s); ok {
		return v.(string)
	}
	if ninterned.Load() >= maxInterned {
		return s
	}
	v, loaded := interned.LoadOrStore(s, s)
	if !loaded {
		ninterned.Add(1)
	}
	return v.(string)
}

// InternKeys makes the string keys of tb, and of the tables its string
// keys hold down to depth levels further, the process's copies of their
// text (setting a key that is already there replaces the key's memory
// and nothing else: not the value, not the order of next).
func InternKeys(tb *lua.LTable, depth int) {
	internKeys(tb, depth, map[*lua.LTable]bool{})
}

func internKeys(tb *lua.LTable, depth int, seen map[*lua.LTable]bool) {
	if seen[tb] {
		return
	}
	seen[tb] = true
	var keys []string
	var vals []lua.LValue
	tb.ForEach(func(k, v lua.LValue) {
		if s, ok := k.(lua.LString); ok && len(s) <= maxInternLen {
			keys = append(keys, string(s))
			vals = append(vals, v)
		}
	})
	for i, k := range keys {
		tb.RawSetString(Intern(k), vals[i])
		if depth > 0 {
			if sub, ok := vals[i].(*lua.LTable); ok {
				internKeys(sub, depth-1, seen)
			}
		}
	}
}
