package compile

import (
	"strings"
	"testing"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

func constData(t *testing.T, p *lua.FunctionProto, s string) *byte {
	t.Helper()
	for _, k := range p.Constants {
		if v, ok := k.(lua.LString); ok && string(v) == s {
			return unsafe.StringData(string(v))
		}
	}
	t.Fatalf("no constant %q", s)
	return nil
}

// TestConstantsShareMemory: the same name in two chunks is one copy, and
// InternKeys makes a table's key that copy, so a lookup that finds the key
// compares pointers.
func TestConstantsShareMemory(t *testing.T) {
	name := "interned_" + strings.Repeat("x", 3)
	a := compileChunk(t, "return "+name+".field")
	b := compileChunk(t, "local t = {} t."+name+" = 1 return t")
	if constData(t, a, name) != constData(t, b, name) {
		t.Errorf("the constant %q of two chunks is two copies", name)
	}
	tb := &lua.LTable{}
	key := strings.Clone(name) // a string of its own, as Go code makes them
	tb.RawSetString(key, lua.LTrue)
	InternKeys(&lua.LTable{}, 0) // nothing to do, nothing to fail
	outer := &lua.LTable{}
	outer.RawSetString("inner", tb)
	InternKeys(outer, 1)
	var got *byte
	tb.ForEach(func(k, v lua.LValue) { got = unsafe.StringData(string(k.(lua.LString))) })
	if got != constData(t, a, name) {
		t.Errorf("InternKeys left the key %q a copy of its own", name)
	}
	if tb.RawGetString(name) != lua.LTrue {
		t.Errorf("InternKeys changed the value")
	}
	long := strings.Repeat("y", maxInternLen+1)
	if unsafe.StringData(Intern(long)) != unsafe.StringData(long) {
		t.Errorf("a string longer than %d bytes was interned", maxInternLen)
	}
}
