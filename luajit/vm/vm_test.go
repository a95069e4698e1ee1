package vm_test

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/luajit/compile"
	"github.com/sysbench-go/sysbench-go/luajit/parse"
	"github.com/sysbench-go/sysbench-go/luajit/vm"
)

func compileSource(t *testing.T, src string) *lua.FunctionProto {
	t.Helper()
	chunk, err := parse.Parse(strings.NewReader(src), "t.lua")
	if err != nil {
		t.Fatal(err)
	}
	p, err := compile.Compile(chunk, "t.lua")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestStringConstants: the VM's string view holds each string constant
// at its index, which global reads and constant keys go through.
func TestStringConstants(t *testing.T) {
	p := compileSource(t, `local t = {alpha = 1} beta = 2.5 return t.alpha, beta, "gamma"`)
	sc := vm.StringConstants(p)
	if len(sc) != len(p.Constants) {
		t.Fatalf("%d strings for %d constants", len(sc), len(p.Constants))
	}
	for i, k := range p.Constants {
		want := ""
		if s, ok := k.(lua.LString); ok {
			want = string(s)
		}
		if sc[i] != want {
			t.Errorf("constant %d: %q, want %q", i, sc[i], want)
		}
	}
	L := lua.NewState()
	defer L.Close()
	L.Push(L.NewFunctionFromProto(p))
	L.Call(0, lua.MultRet)
	if got := L.Get(1).String() + " " + L.Get(2).String() + " " + L.Get(3).String(); got != "1 2.5 gamma" {
		t.Errorf("the chunk returned %q", got)
	}
}

// TestFrameAndCloseUpvalues: from a Go function, the caller's frame is at
// level 1 with its proto, pc and registers; closing its open upvalues
// detaches a closure from the register, as a return would.
func TestFrameAndCloseUpvalues(t *testing.T) {
	p := compileSource(t, "local x = 'before'\nlocal get = function() return x end\nprobe(x)\nx = 'after'\nreturn get()")
	L := lua.NewState()
	defer L.Close()
	var frame vm.Frame
	var reg0 lua.LValue
	L.SetGlobal("probe", L.NewFunction(func(L *lua.LState) int {
		f, ok := vm.FrameAt(L, 1)
		if !ok {
			t.Fatal("no frame at level 1")
		}
		frame, reg0 = f, vm.Register(L, f.LocalBase)
		vm.CloseUpvalues(L, f.LocalBase)
		return 0
	}))
	L.Push(L.NewFunctionFromProto(p))
	L.Call(0, 1)
	if frame.Fn == nil || frame.Fn.Proto != p {
		t.Fatalf("level 1 is not the chunk: %+v", frame)
	}
	if line := p.DbgSourcePositions[frame.Pc-1]; line != 3 {
		t.Errorf("the frame's pc is on line %d, want 3 (the call)", line)
	}
	if reg0 != lua.LString("before") {
		t.Errorf("register 0 of the frame holds %v, want the local x", reg0)
	}
	if got := L.Get(-1); got != lua.LString("before") {
		t.Errorf("the closure sees %v after its upvalue was closed, want before", got)
	}
}

// TestErrorFuncFlag: the flag reads back as set, and gopher-lua clears it
// when a protected call returns.
func TestErrorFuncFlag(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	vm.SetErrorFuncFlag(L, true)
	if !vm.ErrorFuncFlag(L) {
		t.Fatal("set, reads unset")
	}
	L.Push(L.NewFunction(func(*lua.LState) int { return 0 }))
	if err := L.PCall(0, 0, L.NewFunction(func(*lua.LState) int { return 0 })); err != nil {
		t.Fatal(err)
	}
	if vm.ErrorFuncFlag(L) {
		t.Error("gopher-lua's PCall left the flag set: protectedCall's restoring it is moot, revisit")
	}
}
