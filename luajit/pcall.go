package luajit

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/luajit/compile"
	"github.com/sysbench-go/sysbench-go/luajit/number"
	"github.com/sysbench-go/sysbench-go/luajit/vm"
)

// Protected calls as LuaJIT makes them, for pcall, xpcall and every call
// the Go side makes into Lua:
//
//   - the error message is LuaJIT's ("attempt to index local 't' (a nil
//     value)"), rewritten by compile.TranslateError while the frame that
//     raised it is still on the stack;
//   - an error closes the upvalues of the frames it unwinds, and only
//     those: gopher-lua, without a handler, closes every open upvalue of
//     the state, which cut the closures of the functions still running
//     outside the pcall off their variables; with a handler, none, which
//     left closures made by the unwound frames reading reused registers.
//     We keep a handler set (vm.ErrorFuncFlag) through every nesting
//     level, and the handler closes the upvalues from the called
//     function's base up before gopher-lua clears those registers; each
//     state keeps the bases of its protected calls for that.

// translator is the handler of protected calls without one of their own.
var translator = &lua.LFunction{IsG: true, GFunction: translateHandler, Env: &lua.LTable{}}

func translateHandler(L *lua.LState) int {
	closeUnwound(L)
	L.Push(translated(L, L.Get(1)))
	return 1
}

// protectedBases returns the stack of L's protected calls: the absolute
// register of each called function's first argument, from which the
// frames an error unwinds have their registers.
func protectedBases(L *lua.LState) *[]int {
	st := Of(L)
	if L == st.L {
		return &st.protected
	}
	if co := st.coroutines.ofThread(L); co != nil {
		return &co.protected
	}
	return nil
}

// closeUnwound closes the upvalues of the frames the error being handled
// unwinds: those of the innermost protected call.
func closeUnwound(L *lua.LState) {
	if b := protectedBases(L); b != nil && len(*b) > 0 {
		vm.CloseUpvalues(L, (*b)[len(*b)-1])
	}
}

// translated is v, an error value raised by the frame below the running
// handler, with LuaJIT's wording when it is one of the VM's messages.
func translated(L *lua.LState, v lua.LValue) lua.LValue {
	if s, ok := v.(lua.LString); ok {
		return lua.LString(compile.TranslateError(L, 1, string(s)))
	}
	return v
}

// protectedCall calls the function below the nargs arguments on top of
// L's stack, as L.PCall does, with handler (nil for none) called on the
// error value, which is first translated. A handler is called right above
// the frame that raised the error, as in LuaJIT (debug.getlocal(3, 1) in
// it is the raising function's): the message is translated as it is
// raised, by a gopher-lua panic function that a G function between the
// caller and the function sets once PCall has set its own.
func protectedCall(L *lua.LState, nargs, nret int, handler *lua.LFunction) error {
	return protectedCallBases(L, nargs, nret, handler, protectedBases(L))
}

// protectedCallBases is protectedCall with L's stack of protected calls
// (protectedBases) already known.
func protectedCallBases(L *lua.LState, nargs, nret int, handler *lua.LFunction, bases *[]int) error {
	fn := translator
	if handler != nil {
		fn = handler
		L.Insert(translateOnRaise, L.GetTop()-nargs)
		nargs++
	}
	if bases != nil {
		*bases = append(*bases, vm.Top(L)-nargs)
	}
	prev := vm.ErrorFuncFlag(L)
	err := L.PCall(nargs, nret, fn)
	vm.SetErrorFuncFlag(L, prev)
	if bases != nil {
		*bases = (*bases)[:len(*bases)-1]
	}
	if ae, ok := err.(*lua.ApiError); ok && ae.Object == lua.LString("lua callstack overflow") {
		// The call stack was full: not even the handler could run.
		ae.Object = lua.LString("stack overflow")
	}
	return err
}

// translateOnRaise calls its first argument with the others, with L's
// panic function translating errors as they are raised.
var translateOnRaise = &lua.LFunction{IsG: true, GFunction: func(L *lua.LState) int {
	L.Panic = translatingPanic
	L.Call(L.GetTop()-1, lua.MultRet)
	return L.GetTop()
}, Env: &lua.LTable{}}

// translatingPanic is gopher-lua's panic function for errors raised
// inside a protected call (the error value on top of the stack), with
// LuaJIT's wording.
func translatingPanic(L *lua.LState) {
	closeUnwound(L)
	v := L.Get(-1)
	if s, ok := v.(lua.LString); ok {
		v = lua.LString(compile.TranslateError(L, 0, string(s)))
	}
	panic(&lua.ApiError{Type: lua.ApiErrorRun, Object: v})
}

// CallProtected calls fn with args through protectedCall, leaving nret
// results on the stack.
func CallProtected(L *lua.LState, fn lua.LValue, nret int, args ...lua.LValue) error {
	L.Push(fn)
	for _, a := range args {
		L.Push(a)
	}
	return protectedCall(L, len(args), nret, nil)
}

// Call is CallProtected on the state's main thread, for a host calling
// into Lua once per event: it finds the state's protected calls without
// looking the State up in the registry.
func (st *State) Call(fn lua.LValue, nret int, args ...lua.LValue) error {
	L := st.L
	L.Push(fn)
	for _, a := range args {
		L.Push(a)
	}
	return protectedCallBases(L, len(args), nret, nil, &st.protected)
}

// errorValue is the value a failed protected call raised.
func errorValue(err error) lua.LValue {
	if ae, ok := err.(*lua.ApiError); ok && ae.Object != nil {
		return ae.Object
	}
	return lua.LString(err.Error())
}

func registerProtectedCalls(L *lua.LState) {
	L.SetGlobal("pcall", L.NewFunction(luaPcall))
	L.SetGlobal("xpcall", L.NewFunction(luaXpcall))
	L.SetGlobal("error", L.NewFunction(luaRaise))
}

// notCallable is LuaJIT's answer when pcall or xpcall are given a value
// they cannot call, or "" when they can.
func notCallable(L *lua.LState, v lua.LValue) string {
	if _, ok := v.(*lua.LFunction); ok {
		return ""
	}
	if _, ok := L.GetMetaField(v, "__call").(*lua.LFunction); ok {
		return ""
	}
	return "attempt to call a " + v.Type().String() + " value"
}

func luaPcall(L *lua.LState) int {
	if L.GetTop() == 0 {
		L.ArgError(1, "value expected")
	}
	if msg := notCallable(L, L.Get(1)); msg != "" {
		L.SetTop(0)
		L.Push(lua.LFalse)
		L.Push(lua.LString(msg))
		return 2
	}
	if err := protectedCall(L, L.GetTop()-1, lua.MultRet, nil); err != nil {
		L.Push(lua.LFalse)
		L.Push(errorValue(err))
		return 2
	}
	L.Insert(lua.LTrue, 1)
	return L.GetTop()
}

// luaXpcall is xpcall(f, handler, ...): LuaJIT passes f the arguments
// after the handler.
func luaXpcall(L *lua.LState) int {
	if L.GetTop() < 2 {
		L.ArgError(2, "value expected")
	}
	fn, h := L.Get(1), L.Get(2)
	L.Remove(2)
	if msg := notCallable(L, fn); msg != "" {
		// LuaJIT hands the message to the handler, as for any error.
		L.SetTop(0)
		L.Push(h)
		L.Push(lua.LString(msg))
		if err := protectedCall(L, 1, 1, nil); err != nil {
			L.Push(lua.LFalse)
			L.Push(errorValue(err))
			return 2
		}
		L.Insert(lua.LFalse, 1)
		return 2
	}
	handler, ok := h.(*lua.LFunction)
	if !ok {
		handler = L.NewFunction(func(L *lua.LState) int {
			L.Push(L.Get(1))
			return 1
		})
	}
	if err := protectedCall(L, L.GetTop()-1, lua.MultRet, handler); err != nil {
		L.Push(lua.LFalse)
		L.Push(errorValue(err))
		return 2
	}
	L.Insert(lua.LTrue, 1)
	return L.GetTop()
}

// luaRaise is error(message [, level]): a string message gets the
// position of the function at level (1, the caller of error, by
// default; 0 for none), as LuaJIT does; error() raises nil.
func luaRaise(L *lua.LState) int {
	v := L.Get(1)
	level := 1
	if L.GetTop() >= 2 {
		level = L.CheckInt(2)
	}
	// As LuaJIT's error(): a number is raised as its text, and a string
	// (or number) gets the position of the level asked for.
	if n, ok := v.(lua.LNumber); ok {
		v = lua.LString(number.Format(float64(n)))
	}
	if s, ok := v.(lua.LString); ok && level > 0 {
		v = lua.LString(Where(L, level) + string(s))
	}
	// Raised as is: the message is the script's, not the VM's.
	panic(&lua.ApiError{Type: lua.ApiErrorRun, Object: v})
}

// Where is the "chunk:line: " prefix of an error raised at level (1: the
// function that called the one running), or "" for a Go function.
func Where(L *lua.LState, level int) string {
	dbg, ok := L.GetStack(level)
	if !ok {
		return ""
	}
	if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil || dbg.CurrentLine <= 0 {
		return "" // a Go function: pcall, or the host calling a Lua function
	}
	return fmt.Sprintf("%s:%d: ", compile.ShortSource(dbg.Source), dbg.CurrentLine)
}
