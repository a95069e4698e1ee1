package luaapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/luajit"
	"github.com/sysbench-go/sysbench-go/options"
)

// Shell completion, deploy's option check and the manual page need what a
// script declares (sysbench.cmdline.options and .commands) without running
// it: a TAB must not write a file, open a connection or start a process.
// Declarations are built by Lua code of every shape (literal tables, fields
// set one by one, loops, tables from a required module), so the main chunk
// runs, but in a sandbox: every Go function of the state that is not on
// the allow list below (pure string, table, math and bit functions, the
// generators, require of Lua modules) is replaced before the chunk runs by
// one that raises an error, print writes nothing, and a time budget ends
// a chunk that loops.

// Declarations are a script's options and commands.
type Declarations struct {
	Options  []options.Option
	Declared bool // the script has sysbench.cmdline.options
	Commands []string
}

// ErrNeedsRun says that a script's declarations cannot be read without
// running it: its main chunk called something the sandbox refuses, or did
// not finish within the budget.
var ErrNeedsRun = errors.New("the script's main chunk does more than declare its options")

// sandbox is the state of one ReadDeclarations.
type sandbox struct {
	ctx     context.Context
	refused atomic.Bool // set from the state's goroutines (coroutines run on their own)
}

// ReadDeclarations loads the script or module testname as Load does, its
// main chunk (and the modules it requires) run in the sandbox, and returns
// what it declares. A chunk that fails because of a refusal or runs past
// budget gives ErrNeedsRun; one that fails on its own gives its error. env
// serves this read only.
func ReadDeclarations(env *Env, testname string, budget time.Duration) (Declarations, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sb := &sandbox{ctx: ctx}
	env.sandbox = sb
	env.Out = io.Discard
	if env.Rand.Seed == 0 {
		env.Rand.Seed = 1 // not the clock's
	}
	done := make(chan declared, 1)
	clock := make(chan threadClock, 1)
	go func() {
		// On a thread of its own, whose CPU clock is the chunk's.
		goruntime.LockOSThread()
		defer goruntime.UnlockOSThread()
		clock <- newThreadClock()
		defer func() {
			if r := recover(); r != nil {
				done <- declared{err: fmt.Errorf("%w: %v", ErrNeedsRun, r)}
			}
		}()
		s, err := Load(env, testname)
		if err != nil {
			done <- declared{err: err}
			return
		}
		d := Declarations{Options: s.Options(), Declared: s.DeclaresOptions(), Commands: s.Commands()}
		s.Close()
		done <- declared{d: d}
	}()
	r, ok := withinBudget(<-clock, budget, done)
	if !ok {
		// The cancelled context stops the chunk at its next instruction;
		// the goroutine then closes the state by itself.
		return Declarations{}, ErrNeedsRun
	}
	if r.err != nil && sb.refused.Load() {
		return Declarations{}, ErrNeedsRun
	}
	return r.d, r.err
}

// declared is what a read of a script's declarations gave.
type declared struct {
	d   Declarations
	err error
}

// budgetPoll is how often the chunk's CPU time is read.
const budgetPoll = 5 * time.Millisecond

// withinBudget waits for the chunk's result on done; false if it spends
// more than budget of its thread's CPU time first. Where the thread's
// clock cannot be read, the budget is the wall clock's; and the wall clock
// bounds the wait at twenty budgets (10 s at least), for a chunk that
// cannot get a processor at all.
func withinBudget(clock threadClock, budget time.Duration, done <-chan declared) (declared, bool) {
	start := time.Now()
	cpu0, byCPU := clock.used()
	wall := max(20*budget, 10*time.Second)
	if !byCPU {
		wall = budget
	}
	tick := time.NewTicker(budgetPoll)
	defer tick.Stop()
	for {
		select {
		case r := <-done:
			return r, true
		case <-tick.C:
		}
		if time.Since(start) > wall {
			return declared{}, false
		}
		if cpu, ok := clock.used(); byCPU && ok && cpu-cpu0 > budget {
			return declared{}, false
		}
	}
}

// enter makes L, set up with the whole API, a sandbox for script s's main
// chunk.
func (sb *sandbox) enter(L *lua.LState, s *Script) {
	L.SetContext(sb.ctx)
	for _, name := range []string{"ffi", "bit", "jit"} {
		if t, ok := L.GetGlobal(name).(*lua.LTable); ok {
			luajit.FillLazy(L, t) // so that the walk sees their functions
		}
	}
	sb.refuseUnsafe(L)
	L.SetGlobal("print", L.NewFunction(func(*lua.LState) int { return 0 }))
	L.SetGlobal("loadfile", L.NewFunction(func(L *lua.LState) int {
		fn, err := luajit.LoadFile(L, sb.besideScript(L, s, "loadfile"))
		if err != nil {
			L.Push(lua.LNil)
			L.Push(lua.LString(err.Error()))
			return 2
		}
		L.Push(fn)
		return 1
	}))
	L.SetGlobal("dofile", L.NewFunction(func(L *lua.LState) int {
		fn, err := luajit.LoadFile(L, sb.besideScript(L, s, "dofile"))
		if err != nil {
			L.Error(lua.LString(err.Error()), 0)
		}
		top := L.GetTop()
		L.Push(fn)
		L.Call(0, lua.MultRet)
		return L.GetTop() - top
	}))
}

// besideScript is loadfile's and dofile's argument when it names a regular
// file in the script's directory (as a script of the 0.5 era loads its
// common part); anything else is refused.
func (sb *sandbox) besideScript(L *lua.LState, s *Script, fn string) string {
	path, ok := L.Get(1).(lua.LString)
	if ok && s.dir != "" {
		dir, err1 := filepath.Abs(s.dir)
		file, err2 := filepath.Abs(string(path))
		st, err3 := os.Stat(string(path))
		if err1 == nil && err2 == nil && err3 == nil && st.Mode().IsRegular() && filepath.Dir(file) == dir {
			return string(path)
		}
	}
	sb.refuse(L, fn)
	return ""
}

// refuse raises the sandbox's error for the function name.
func (sb *sandbox) refuse(L *lua.LState, name string) {
	sb.refused.Store(true)
	L.RaiseError("%s is not available while the script's options are read", name)
}

// sandboxSafe are the Go functions, by the name the walk finds them under,
// that neither read nor write anything outside the Lua state, nor the
// clock; sandboxSafeTables are the tables all of whose functions are.
var (
	sandboxSafe = setOf("assert", "collectgarbage", "error", "gcinfo", "getfenv", "getmetatable",
		"ipairs", "load", "loadstring", "module", "newproxy", "next", "pairs", "pcall", "rawequal",
		"rawget", "rawlen", "rawset", "require", "select", "setfenv", "setmetatable", "tonumber",
		"tostring", "type", "unpack", "xpcall",
		"os.getenv", "os.difftime",
		"debug.traceback", "debug.getinfo", "debug.getlocal", "debug.getupvalue", "debug.getmetatable",
		"debug.getfenv",
		"ffi.cdef", "ffi.metatype", "ffi.gc", "ffi.new", "ffi.cast", "ffi.typeof", "ffi.istype",
		"ffi.sizeof", "ffi.alignof", "ffi.string", "ffi.copy", "ffi.fill", "ffi.abi", "ffi.errno",
		"package.seeall", "__sysbench_int64", "sb_rnd", "sb_rand_uniq",
		"debug.setfenv", "debug.setlocal", "debug.setmetatable", "debug.setupvalue", "debug.gethook")
	// package.loaders read Lua modules from where require looks; what
	// they load runs in this sandbox too.
	sandboxSafeTables = []string{"string", "table", "math", "bit", "coroutine", "jit", "jit.opt", "sysbench.rand",
		"package.loaders", "package.preload", "(string metatable)"}
)

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

func sandboxAllows(table, name string) bool {
	return sandboxSafe[name] || slices.Contains(sandboxSafeTables, table)
}

// refuseUnsafe replaces every Go function reachable from the globals, the
// string metatable and the registry (where the userdata types keep their
// methods) by a refusal, unless it is on the allow list under one of its
// names (sysbench.rand.uniform is also the 0.5-era sb_rand_uniform). The
// walk is breadth first from the globals, keys in order, so a table is
// named by its shortest name (string, not package.loaded.string).
func (sb *sandbox) refuseUnsafe(L *lua.LState) {
	type node struct {
		v    lua.LValue
		path string
	}
	type slot struct {
		t  *lua.LTable
		k  lua.LValue
		fn *lua.LFunction
	}
	var slots []slot
	allowed := map[*lua.LFunction]bool{}
	name := map[*lua.LFunction]string{}
	seen := map[lua.LValue]bool{}
	walk := func(root lua.LValue, path string) {
		queue := []node{{root, path}}
		for len(queue) > 0 {
			n := queue[0]
			queue = queue[1:]
			if ud, ok := n.v.(*lua.LUserData); ok {
				queue = append(queue, node{ud.Metatable, n.path + "(metatable)"})
				continue
			}
			t, ok := n.v.(*lua.LTable)
			if !ok || seen[t] {
				continue
			}
			seen[t] = true
			queue = append(queue, node{t.Metatable, n.path + "(metatable)"})
			var keys []lua.LValue
			t.ForEach(func(k, _ lua.LValue) { keys = append(keys, k) })
			slices.SortFunc(keys, func(a, b lua.LValue) int { return strings.Compare(a.String(), b.String()) })
			for _, k := range keys {
				full := k.String()
				if n.path != "" {
					full = n.path + "." + full
				}
				switch v := t.RawGet(k).(type) {
				case *lua.LFunction:
					if v.IsG {
						slots = append(slots, slot{t, k, v})
						allowed[v] = allowed[v] || sandboxAllows(n.path, full)
						if _, ok := name[v]; !ok {
							name[v] = full
						}
					}
				case *lua.LTable, *lua.LUserData:
					queue = append(queue, node{v, full})
				}
			}
		}
	}
	walk(L.Get(lua.GlobalsIndex), "")
	walk(L.GetMetatable(lua.LString("")), "(string metatable)")
	walk(L.Get(lua.RegistryIndex), "(registry)")
	refusal := map[*lua.LFunction]*lua.LFunction{}
	for _, s := range slots {
		if allowed[s.fn] {
			continue
		}
		r, ok := refusal[s.fn]
		if !ok {
			fn := name[s.fn]
			r = L.NewFunction(func(L *lua.LState) int { sb.refuse(L, fn); return 0 })
			refusal[s.fn] = r
		}
		s.t.RawSet(s.k, r)
	}
}
