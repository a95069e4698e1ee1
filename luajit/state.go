package luajit

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"weak"

	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/luajit/compile"
	"github.com/sysbench-go/sysbench-go/luajit/parse"
)

// State is the Go side of one Lua state's libraries: where print and
// io.stdout write, the compiled files the host's states share, the
// coroutines and protected calls running. It sits in the state's
// registry, where Of finds it.
type State struct {
	L *lua.LState // the main thread
	// Out is where print and io.stdout write.
	Out io.Writer
	// Files holds the files loaded at run time (loadfile, dofile, require)
	// by path, each compiled once for all the states that share it.
	Files *sync.Map
	// FFIC, when set, adds the host's functions to ffi.C, which a script
	// declares with ffi.cdef and calls (sysbench's sb_* functions).
	FFIC func(L *lua.LState, C *lua.LTable)
	// Host is the host's own value for the state (sysbench's runtime).
	Host any
	// Interrupted, when set, is closed when the program is interrupted
	// (a signal): the sleeps scripts call (ffi.C.usleep, sleep) end then,
	// so that a script waiting between its steps stops at once, as the
	// reference does (the signal kills it).
	Interrupted <-chan struct{}

	coroutines *coroutines
	protected  []int // the bases of the protected calls running on L (see protectedCall)
}

// registryKey names the State in the registry.
const registryKey = "sysbench-go.runtime"

// NewState makes a Lua state with Lua 5.1's standard libraries, LuaJIT's
// protected calls and its chunk loaders (through our compiler). The host
// adds its globals, then calls OpenLuaJIT. out is where the state prints;
// files is shared by the states of one run (nil: a map of the state's own).
func NewState(out io.Writer, files *sync.Map) *State {
	if files == nil {
		files = &sync.Map{}
	}
	L := lua.NewState(stateOptions)
	openLibs(L)
	registerProtectedCalls(L)
	st := &State{L: L, Out: out, Files: files,
		coroutines: &coroutines{byLua: map[weak.Pointer[lua.LState]]*coroutine{}, byTh: map[*lua.LState]*coroutine{}}}
	registerLoaders(L)
	st.register()
	return st
}

// register puts st in its state's registry.
func (st *State) register() {
	ud := st.L.NewUserData()
	ud.Value = st
	st.L.SetField(st.L.Get(lua.RegistryIndex), registryKey, ud)
}

// OpenLuaJIT gives the standard libraries LuaJIT 2.1's behaviour where
// gopher-lua's differs, and adds what LuaJIT has beyond Lua 5.1 (bit, jit,
// ffi, 64-bit cdata, table.new and table.clear, coroutines as LuaJIT runs
// them).
func (st *State) OpenLuaJIT() {
	openLuaJITLibs(st.L)
	registerCoroutine(st.L)
}

// Close ends the state's coroutines and flushes and closes the files it
// left open, as C does at exit. The host closes st.L itself.
func (st *State) Close() {
	st.coroutines.closeAll()
	closeFiles(st.L)
}

// Of is the State of L or of one of its coroutines.
func Of(L *lua.LState) *State {
	ud, ok := L.GetField(L.Get(lua.RegistryIndex), registryKey).(*lua.LUserData)
	if !ok {
		L.RaiseError("sysbench runtime missing")
	}
	return ud.Value.(*State)
}

// stateOptions configure every Lua state. The call stack grows as it is
// used, up to some 16,000 nested calls before "stack overflow" (LuaJIT
// allows some 20,000 small frames in its 65,500 stack slots); its index
// costs a state 8 bytes per 8 frames of CallStackSize up front. The
// registers are not the limit: gopher-lua cannot report their overflow
// inside a protected call with a handler (it needs a register for the
// handler), and every protected call of ours has one.
var stateOptions = lua.Options{
	SkipOpenLibs:        true,
	CallStackSize:       16384,
	MinimizeStackMemory: true,
	RegistrySize:        256,
	RegistryMaxSize:     1 << 24,
	RegistryGrowStep:    64,
}

// openLuaJITLibs gives the standard libraries LuaJIT 2.1's behaviour where
// gopher-lua's differs, and adds what LuaJIT has beyond Lua 5.1, for
// scripts written for it (coroutines apart: registerCoroutine).
func openLuaJITLibs(L *lua.LState) {
	registerBase(L)
	registerString(L)
	registerTable(L)
	registerIO(L)
	registerOS(L)
	registerDebug(L)
	registerFFI(L)
	patchTableSort(L)
	registerTableExt(L)
	registerBit(L)
	registerJIT(L)
	registerMath(L)
	registerCdata(L)
}

// openLibs opens Lua 5.1's standard libraries; gopher-lua's own channel
// library is left out (sysbench scripts have no use for it).
func openLibs(L *lua.LState) {
	for _, lib := range []struct {
		name string
		fn   lua.LGFunction
	}{
		{lua.LoadLibName, lua.OpenPackage},
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.IoLibName, lua.OpenIo},
		{lua.OsLibName, lua.OpenOs},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
		{lua.DebugLibName, lua.OpenDebug},
		{lua.CoroutineLibName, lua.OpenCoroutine},
	} {
		L.Push(L.NewFunction(lib.fn))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
}

// Compile parses (as LuaJIT 2.1 reads Lua) and compiles Lua source; the
// proto may be shared by every state of a run. source is the chunk name
// as Lua has it ("@file", "=stdin", or the source text of loadstring), as
// debug.getinfo returns it; messages show its compile.ShortSource. An
// error's text is LuaJIT's message.
func Compile(src io.Reader, source string) (*lua.FunctionProto, error) {
	name := compile.ShortSource(source)
	chunk, err := parse.Parse(src, name)
	if err != nil {
		return nil, errors.New(syntaxMessage(name, err))
	}
	proto, err := compile.Compile(chunk, source)
	if err != nil {
		return nil, errors.New(err.Error())
	}
	return proto, nil
}

// syntaxMessage is a syntax error as LuaJIT words it: "file:line: message
// near 'token'".
func syntaxMessage(name string, err error) string {
	var serr *parse.SyntaxError
	if errors.As(err, &serr) {
		return serr.Error()
	}
	return fmt.Sprintf("%s: %v", name, err)
}

// Tables are made with CreateTable and the number of entries they will
// hold (see luaapi's funcTable).

// funcTable returns a table of the Go functions fns.
func funcTable(L *lua.LState, fns map[string]lua.LGFunction) *lua.LTable {
	return L.SetFuncs(L.CreateTable(0, len(fns)), fns)
}

// InternNames makes the names a script looks up on every call share
// their memory with the compiler's constants (compile.InternKeys): the
// keys of the globals and of the tables they hold two levels down
// (sysbench.opt's options, sysbench.rand's functions), and of the
// registry's tables two levels down (a userdata type's methods). A host
// calls it once the script has set its globals up.
func InternNames(L *lua.LState) {
	compile.InternKeys(L.G.Global, 2)
	if reg, ok := L.Get(lua.RegistryIndex).(*lua.LTable); ok {
		compile.InternKeys(reg, 2)
	}
}
