// Command luaops is a host of plain gopher-lua that runs a Lua file's
// event() the way a load generator calls it (the function, one argument,
// one result, protected), M times, and nothing else: scripts/luaops.sh
// counts its instructions under callgrind against sysbench-go running the
// same operations, to tell gopher-lua's own cost per operation from what
// sysbench-go adds.
//
//	luaops M FILE.lua
//
// The state looks like a sysbench script's: about 60 globals, a sysbench
// table with opt.table_size, a userdata o_ud whose metatable's __index
// holds Go methods, a table o_tab holding the same methods, and f, a Go
// function of two integers returning their sum.
package main

import (
	"fmt"
	"os"
	"strconv"

	lua "github.com/yuin/gopher-lua"
)

// globals is how many globals the state holds before the file runs, as
// sysbench's _G does.
const globals = 58

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: luaops M FILE.lua")
		os.Exit(2)
	}
	m, err := strconv.Atoi(os.Args[1])
	if err != nil || m < 0 {
		fmt.Fprintf(os.Stderr, "luaops: M: %q is not a count\n", os.Args[1])
		os.Exit(2)
	}
	src, err := os.ReadFile(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "luaops:", err)
		os.Exit(1)
	}
	if err := run(m, string(src)); err != nil {
		fmt.Fprintln(os.Stderr, "luaops:", err)
		os.Exit(1)
	}
}

func run(m int, src string) error {
	L := lua.NewState()
	defer L.Close()
	for i := 0; countGlobals(L) < globals; i++ {
		L.SetGlobal(fmt.Sprintf("filler_%02d", i), lua.LNumber(i))
	}
	L.SetGlobal("f", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(L.CheckInt(1) + L.CheckInt(2)))
		return 1
	}))
	nothing := func(*lua.LState) int { return 0 }
	methods := map[string]lua.LGFunction{"m": nothing, "a": nothing, "b": nothing, "c": nothing, "d": nothing}
	mt := L.NewTable()
	L.SetField(mt, "__index", L.SetFuncs(L.NewTable(), methods))
	ud := L.NewUserData()
	L.SetMetatable(ud, mt)
	L.SetGlobal("o_ud", ud)
	L.SetGlobal("o_tab", L.SetFuncs(L.NewTable(), methods))
	sb, opt := L.NewTable(), L.NewTable()
	for i := 0; i < 30; i++ {
		L.SetField(opt, fmt.Sprintf("opt_%02d", i), lua.LNumber(i))
	}
	L.SetField(opt, "table_size", lua.LNumber(10000))
	L.SetField(sb, "opt", opt)
	for _, k := range []string{"sql", "rand", "cmdline", "hooks", "version", "tid", "histogram", "report"} {
		L.SetField(sb, k, L.NewTable())
	}
	L.SetGlobal("sysbench", sb)

	if err := L.DoString(src); err != nil {
		return err
	}
	if init := L.GetGlobal("thread_init"); init != lua.LNil {
		if err := L.CallByParam(lua.P{Fn: init, Protect: true}); err != nil {
			return err
		}
	}
	event, tid := L.GetGlobal("event"), lua.LNumber(0)
	for range m {
		L.Push(event)
		L.Push(tid)
		if err := L.PCall(1, 1, nil); err != nil {
			return err
		}
		L.Pop(1)
	}
	return nil
}

func countGlobals(L *lua.LState) int {
	n := 0
	L.G.Global.ForEach(func(lua.LValue, lua.LValue) { n++ })
	return n
}
