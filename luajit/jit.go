package luajit

import (
	lua "github.com/yuin/gopher-lua"
)

// The jit table reports the LuaJIT sysbench 1.0.20 runs on, so scripts
// that sniff jit.version or jit.version_num take the same branch as under
// the reference; jit.status() answers false, since nothing is compiled.
const (
	jitVersion    = "LuaJIT 2.1.0-beta3"
	jitVersionNum = 20100
)

// registerJIT installs the global jit (also require "jit" and "jit.opt"):
// version, version_num, os, arch, and on, off, flush, attach and
// jit.opt.start as no-ops for scripts that toggle or tune the compiler.
func registerJIT(L *lua.LState) {
	jit := lazyLibrary(L, "jit", fillJIT)
	if pl, ok := L.GetField(L.GetGlobal("package"), "preload").(*lua.LTable); ok {
		pl.RawSetString("jit.opt", L.NewFunction(func(L *lua.LState) int {
			L.Push(L.GetField(jit, "opt"))
			return 1
		}))
	}
}

func fillJIT(L *lua.LState, t *lua.LTable) {
	L.SetFuncs(t, map[string]lua.LGFunction{
		"on":     jitOnOff,
		"off":    jitOnOff,
		"flush":  jitNoop,
		"attach": jitNoop,
		"status": func(L *lua.LState) int { L.Push(lua.LFalse); return 1 },
	})
	t.RawSetString("version", lua.LString(jitVersion))
	t.RawSetString("version_num", lua.LNumber(jitVersionNum))
	t.RawSetString("os", lua.LString("Linux"))
	t.RawSetString("arch", lua.LString("x64"))
	t.RawSetString("opt", funcTable(L, map[string]lua.LGFunction{"start": jitNoop}))
}

func jitNoop(L *lua.LState) int { return 0 }

// jitOnOff is jit.on and jit.off: they take nothing, a boolean or a
// function (and a flag), as LuaJIT's.
func jitOnOff(L *lua.LState) int {
	switch L.Get(1).Type() {
	case lua.LTNil, lua.LTBool, lua.LTFunction:
	default:
		typeError(L, 1, "function")
	}
	return 0
}
