package luaapi

import (
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/internal/luacomp"
	"github.com/sysbench-go/sysbench-go/internal/luavm"
)

// Protected calls as LuaJIT makes them, for pcall, xpcall and every call
// the Go side makes into Lua:
//
//   - the error message is LuaJIT's ("attempt to index local 't' (a nil
//     value)"), rewritten by luacomp.TranslateError in a handler that runs
//     while the frame that raised it is still on the stack;
//   - an error closes the upvalues of the frames it unwinds, and only
//     those: gopher-lua, without a handler, closes every open upvalue of
//     the state, which cut the closures of the functions still running
//     outside the pcall off their variables; with a handler, none, which
//     left closures made by the unwound frames reading reused registers.
//     We keep a handler set (luavm.ErrorFuncFlag) through every nesting
//     level and close what the unwound frames left open, by calling an
//     empty Lua function placed right above the caller's frame: its
//     RETURN closes every upvalue from its base up.

// emptyProto is a Lua function that does nothing.
var emptyProto = sync.OnceValue(func() *lua.FunctionProto {
	p, err := compile(strings.NewReader(""), "=?")
	if err != nil {
		panic("sysbench-go: the empty chunk does not compile: " + err.Error())
	}
	return p
})

// translator is the handler of protected calls without one of their own.
var translator = &lua.LFunction{IsG: true, GFunction: translateHandler, Env: &lua.LTable{}}

func translateHandler(L *lua.LState) int {
	L.Push(translated(L, L.Get(1)))
	return 1
}

// translated is v, an error value raised by the frame below the running
// handler, with LuaJIT's wording when it is one of the VM's messages.
func translated(L *lua.LState, v lua.LValue) lua.LValue {
	if s, ok := v.(lua.LString); ok {
		return lua.LString(luacomp.TranslateError(L, 1, string(s)))
	}
	return v
}

// protectedCall calls the function below the nargs arguments on top of
// L's stack, as L.PCall does, with handler (nil for none) called on the
// error value, which is first translated.
func protectedCall(L *lua.LState, nargs, nret int, handler *lua.LFunction) error {
	fn := translator
	if handler != nil {
		fn = L.NewClosure(func(L *lua.LState) int {
			L.Push(L.Get(lua.UpvalueIndex(1)))
			L.Push(translated(L, L.Get(1)))
			L.Call(1, 1)
			return 1
		}, handler)
	}
	prev := luavm.ErrorFuncFlag(L)
	err := L.PCall(nargs, nret, fn)
	luavm.SetErrorFuncFlag(L, prev)
	if err != nil {
		if ae, ok := err.(*lua.ApiError); ok && ae.Object == lua.LString("lua callstack overflow") {
			// The call stack was full: not even the handler could run.
			ae.Object = lua.LString("stack overflow")
		}
		// The called function's slot is the top now: an empty function
		// there has its base where the callee's frame had.
		L.Push(L.NewFunctionFromProto(emptyProto()))
		L.Call(0, 0)
	}
	return err
}

// callProtected calls fn with args through protectedCall, leaving nret
// results on the stack.
func callProtected(L *lua.LState, fn lua.LValue, nret int, args ...lua.LValue) error {
	L.Push(fn)
	for _, a := range args {
		L.Push(a)
	}
	return protectedCall(L, len(args), nret, nil)
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
	if s, ok := v.(lua.LString); ok && level > 0 {
		v = lua.LString(where(L, pos(level)) + string(s))
	}
	L.Push(v)
	L.Panic(L)
	return 0
}
