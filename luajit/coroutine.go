package luajit

import (
	goruntime "runtime"
	"sync"
	"weak"

	lua "github.com/yuin/gopher-lua"
)

// Coroutines run on goroutines of their own, handing control back and
// forth over channels, so a coroutine can yield from anywhere LuaJIT lets
// it: inside pcall and xpcall, inside a for-in iterator, inside a
// metamethod. gopher-lua's own coroutines run on the caller's Go stack
// and cannot yield across any Go function; they crashed there.
//
// A script holds a coroutine by a handle, a thread value of its own that
// never runs Lua: when the script drops the handle, the collector runs a
// cleanup that ends the coroutine's goroutine, so an abandoned coroutine
// (a generator left after a break) does not keep its goroutine and state
// forever. Only a coroutine that refers to its own handle (one that keeps
// coroutine.running() in a variable and stays suspended) lives until its
// Lua state closes.

const (
	coSuspended = iota
	coRunning
	coNormal // it resumed another coroutine
	coDead
)

var coStatusNames = [...]string{coSuspended: "suspended", coRunning: "running", coNormal: "normal", coDead: "dead"}

// transfer is what passes between a coroutine and its resumer.
type transfer struct {
	vals []lua.LValue
	err  lua.LValue // an error value when the coroutine failed
	done bool       // the coroutine returned or failed
}

type coroutine struct {
	handle  weak.Pointer[lua.LState]
	th      *lua.LState // runs the coroutine's function
	cancel  func()      // ends th's context
	fn      lua.LValue
	status  int
	started bool
	resume  chan []lua.LValue // resumer -> coroutine
	yield   chan transfer     // coroutine -> resumer
	kill    chan struct{}     // closed to end a suspended coroutine
	once    sync.Once
	// protected are the bases of th's protected calls (see protectedCall).
	protected []int
}

// coroutines are the coroutines of one Lua state and its threads.
type coroutines struct {
	mu      sync.Mutex // the collector's cleanups run on goroutines of their own
	byLua   map[weak.Pointer[lua.LState]]*coroutine
	byTh    map[*lua.LState]*coroutine
	current *coroutine // the running coroutine, nil in the main thread
}

func (cs *coroutines) lookup(h *lua.LState) *coroutine {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.byLua[weak.Make(h)]
}

func (cs *coroutines) ofThread(th *lua.LState) *coroutine {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.byTh[th]
}

// end ends co: its goroutine returns if it is suspended, and it leaves
// the table of running threads. forget also drops its handle's entry,
// once the handle is gone; a dead coroutine's handle still answers
// status and resume.
func (cs *coroutines) end(co *coroutine, forget bool) {
	co.once.Do(func() {
		close(co.kill)
		if co.cancel != nil {
			co.cancel()
		}
	})
	cs.mu.Lock()
	if forget {
		delete(cs.byLua, co.handle)
	}
	delete(cs.byTh, co.th)
	cs.mu.Unlock()
}

// closeAll ends every coroutine of the state, when it closes.
func (cs *coroutines) closeAll() {
	cs.mu.Lock()
	all := make([]*coroutine, 0, len(cs.byLua))
	for _, co := range cs.byLua {
		all = append(all, co)
	}
	cs.mu.Unlock()
	for _, co := range all {
		cs.end(co, true)
	}
}

func coroutinesOf(L *lua.LState) *coroutines { return Of(L).coroutines }

func registerCoroutine(L *lua.LState) {
	t := funcTable(L, map[string]lua.LGFunction{
		"create":      coCreate,
		"resume":      coResume,
		"yield":       coYield,
		"status":      coStatus,
		"running":     coRunningFn,
		"wrap":        coWrap,
		"isyieldable": coIsYieldable,
	})
	L.SetGlobal("coroutine", t)
	SetLoaded(L, "coroutine", t)
}

func newCoroutine(L *lua.LState, fn lua.LValue) *lua.LState {
	cs := coroutinesOf(L)
	th, cancel := L.NewThread()
	h := &lua.LState{G: L.G, Env: L.Env, Options: L.Options}
	co := &coroutine{handle: weak.Make(h), th: th, cancel: cancel, fn: fn,
		resume: make(chan []lua.LValue), yield: make(chan transfer), kill: make(chan struct{})}
	cs.mu.Lock()
	cs.byLua[co.handle] = co
	cs.byTh[th] = co
	cs.mu.Unlock()
	goruntime.AddCleanup(h, func(co *coroutine) { cs.end(co, true) }, co)
	return h
}

func coCreate(L *lua.LState) int {
	fn := L.CheckFunction(1)
	L.Push(newCoroutine(L, fn))
	return 1
}

func checkCoroutine(L *lua.LState, n int) *coroutine {
	h, ok := L.Get(n).(*lua.LState)
	if !ok {
		L.ArgError(n, "coroutine expected")
	}
	co := coroutinesOf(L).lookup(h)
	if co == nil {
		L.ArgError(n, "coroutine expected")
	}
	return co
}

// run hands args to co and waits for what it yields or returns.
func (co *coroutine) run(cs *coroutines, args []lua.LValue) transfer {
	prev := cs.current
	if prev != nil {
		prev.status = coNormal
	}
	co.status = coRunning
	cs.current = co
	// debug.setfenv(co, t) sets the handle's environment; the coroutine
	// runs in it, and what it sets for itself shows through the handle.
	h := co.handle.Value()
	if h != nil {
		co.th.Env = h.Env
	}
	if !co.started {
		co.started = true
		go co.main(cs, args)
	} else {
		co.resume <- args
	}
	t := <-co.yield
	if h != nil {
		h.Env = co.th.Env
	}
	cs.current = prev
	if prev != nil {
		prev.status = coRunning
	}
	if t.done {
		co.status = coDead
		cs.end(co, false)
	} else {
		co.status = coSuspended
	}
	return t
}

// main runs the coroutine's function on its goroutine.
func (co *coroutine) main(cs *coroutines, args []lua.LValue) {
	th := co.th
	defer th.Close()
	th.Push(co.fn)
	for _, a := range args {
		th.Push(a)
	}
	if err := protectedCall(th, len(args), lua.MultRet, nil); err != nil {
		co.yield <- transfer{err: errorValue(err), done: true}
		return
	}
	n := th.GetTop()
	vals := make([]lua.LValue, n)
	for i := range vals {
		vals[i] = th.Get(i + 1)
	}
	co.yield <- transfer{vals: vals, done: true}
}

func args(L *lua.LState, from int) []lua.LValue {
	n := L.GetTop() - from + 1
	if n <= 0 {
		return nil
	}
	vals := make([]lua.LValue, n)
	for i := range vals {
		vals[i] = L.Get(from + i)
	}
	return vals
}

func coResume(L *lua.LState) int {
	co := checkCoroutine(L, 1)
	if msg := co.notResumable(); msg != "" {
		L.Push(lua.LFalse)
		L.Push(lua.LString(msg))
		return 2
	}
	t := co.run(coroutinesOf(L), args(L, 2))
	if t.err != nil {
		L.Push(lua.LFalse)
		L.Push(t.err)
		return 2
	}
	L.Push(lua.LTrue)
	for _, v := range t.vals {
		L.Push(v)
	}
	return len(t.vals) + 1
}

func (co *coroutine) notResumable() string {
	switch co.status {
	case coDead:
		return "cannot resume dead coroutine"
	case coRunning, coNormal:
		return "cannot resume non-suspended coroutine"
	}
	return ""
}

func coYield(L *lua.LState) int {
	cs := coroutinesOf(L)
	co := cs.ofThread(L)
	if co == nil {
		L.RaiseError("attempt to yield across C-call boundary")
	}
	co.yield <- transfer{vals: args(L, 1)}
	select {
	case vals := <-co.resume:
		L.SetTop(0)
		for _, v := range vals {
			L.Push(v)
		}
		return len(vals)
	case <-co.kill:
		// Nobody will resume it: end the goroutine, running the
		// deferred functions of the protected calls on its way out.
		goruntime.Goexit()
		return 0
	}
}

func coStatus(L *lua.LState) int {
	co := checkCoroutine(L, 1)
	L.Push(lua.LString(coStatusNames[co.status]))
	return 1
}

func coRunningFn(L *lua.LState) int {
	co := coroutinesOf(L).ofThread(L)
	if co == nil {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(co.handle.Value())
	return 1
}

func coIsYieldable(L *lua.LState) int {
	L.Push(lua.LBool(coroutinesOf(L).ofThread(L) != nil))
	return 1
}

// coWrap is coroutine.wrap(f): a function that resumes the coroutine and
// raises its errors.
func coWrap(L *lua.LState) int {
	fn := L.CheckFunction(1)
	h := newCoroutine(L, fn)
	L.Push(L.NewClosure(func(L *lua.LState) int {
		h := L.Get(lua.UpvalueIndex(1)).(*lua.LState)
		co := coroutinesOf(L).lookup(h)
		if co == nil || co.notResumable() != "" {
			msg := "cannot resume dead coroutine"
			if co != nil {
				msg = co.notResumable()
			}
			panic(&lua.ApiError{Type: lua.ApiErrorRun, Object: lua.LString(msg)})
		}
		t := co.run(coroutinesOf(L), args(L, 1))
		if t.err != nil {
			panic(&lua.ApiError{Type: lua.ApiErrorRun, Object: t.err})
		}
		for _, v := range t.vals {
			L.Push(v)
		}
		return len(t.vals)
	}, h))
	return 1
}
