package luaapi

import (
	"time"

	lua "github.com/yuin/gopher-lua"

	"sysbench-go/engine"
)

// ffiBuffer is what ffi.new returns: a byte buffer, or a numeric array.
type ffiBuffer struct {
	b    []byte
	nums []lua.LNumber
}

// registerFFI installs a small "ffi" module covering what real sysbench
// scripts do with LuaJIT's ffi: cdef declarations (ignored), ffi.C calls
// into sysbench (usleep, sb_counter_inc, the event loop, sb_rand_*), and
// simple buffers. Anything else fails naming the symbol.
func registerFFI(L *lua.LState) {
	m := L.CreateTable(0, 8)
	noop := L.NewFunction(func(L *lua.LState) int { return 0 })
	m.RawSetString("cdef", noop)
	m.RawSetString("metatype", L.NewFunction(func(L *lua.LState) int { L.Push(L.Get(1)); return 1 }))
	m.RawSetString("typeof", L.NewFunction(func(L *lua.LState) int { L.Push(L.Get(1)); return 1 }))
	m.RawSetString("gc", L.NewFunction(func(L *lua.LState) int { L.Push(L.Get(1)); return 1 }))
	m.RawSetString("os", lua.LString("Linux"))
	m.RawSetString("arch", lua.LString("x64"))

	bufMT := L.CreateTable(0, 3)
	bufMT.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		b := L.CheckUserData(1).Value.(*ffiBuffer)
		i := L.CheckInt(2)
		switch {
		case b.nums != nil && i >= 0 && i < len(b.nums):
			L.Push(b.nums[i])
		case i >= 0 && i < len(b.b):
			L.Push(lua.LNumber(b.b[i]))
		default:
			L.Push(lua.LNil)
		}
		return 1
	}))
	bufMT.RawSetString("__newindex", L.NewFunction(func(L *lua.LState) int {
		b := L.CheckUserData(1).Value.(*ffiBuffer)
		i := L.CheckInt(2)
		switch {
		case b.nums != nil && i >= 0 && i < len(b.nums):
			b.nums[i] = L.CheckNumber(3)
		case i >= 0 && i < len(b.b):
			b.b[i] = byte(L.CheckInt(3))
		default:
			L.ArgError(2, "index out of range")
		}
		return 0
	}))
	bufMT.RawSetString("__len", L.NewFunction(func(L *lua.LState) int {
		b := L.CheckUserData(1).Value.(*ffiBuffer)
		if b.nums != nil {
			L.Push(lua.LNumber(len(b.nums)))
		} else {
			L.Push(lua.LNumber(len(b.b)))
		}
		return 1
	}))
	m.RawSetString("new", L.NewFunction(func(L *lua.LState) int {
		ctype := L.CheckString(1)
		n := L.OptInt(2, 1)
		if n < 0 {
			L.ArgError(2, "negative size")
		}
		b := &ffiBuffer{}
		if len(ctype) >= 4 && ctype[:4] == "char" || len(ctype) >= 13 && ctype[:13] == "unsigned char" || len(ctype) >= 7 && ctype[:7] == "uint8_t" {
			b.b = make([]byte, n)
		} else {
			b.nums = make([]lua.LNumber, n)
		}
		ud := L.NewUserData()
		ud.Value = b
		L.SetMetatable(ud, bufMT)
		L.Push(ud)
		return 1
	}))
	m.RawSetString("string", L.NewFunction(func(L *lua.LState) int {
		v := L.Get(1)
		var s []byte
		switch x := v.(type) {
		case lua.LString:
			s = []byte(x)
		case *lua.LUserData:
			if b, ok := x.Value.(*ffiBuffer); ok {
				s = b.b
			}
		}
		if L.GetTop() >= 2 {
			n := L.CheckInt(2)
			if n < len(s) {
				s = s[:n]
			}
		} else {
			for i, c := range s {
				if c == 0 {
					s = s[:i]
					break
				}
			}
		}
		L.Push(lua.LString(s))
		return 1
	}))
	m.RawSetString("copy", L.NewFunction(func(L *lua.LState) int {
		dst, ok := L.CheckUserData(1).Value.(*ffiBuffer)
		if !ok {
			L.ArgError(1, "buffer expected")
		}
		src := L.CheckString(2)
		n := L.OptInt(3, len(src)+1)
		data := append([]byte(src), 0)
		if n > len(data) {
			n = len(data)
		}
		copy(dst.b, data[:n])
		return 0
	}))
	m.RawSetString("sizeof", L.NewFunction(func(L *lua.LState) int {
		if ud, ok := L.Get(1).(*lua.LUserData); ok {
			if b, ok := ud.Value.(*ffiBuffer); ok {
				L.Push(lua.LNumber(len(b.b) + 8*len(b.nums)))
				return 1
			}
		}
		L.Push(lua.LNumber(8))
		return 1
	}))

	C := L.CreateTable(0, 24)
	fns := map[string]lua.LGFunction{
		"usleep": func(L *lua.LState) int {
			time.Sleep(time.Duration(L.CheckInt64(1)) * time.Microsecond)
			L.Push(lua.LNumber(0))
			return 1
		},
		"sb_counter_inc": func(L *lua.LState) int {
			c := L.CheckInt(2)
			if c < 0 || c >= int(engine.CntMax) {
				L.ArgError(2, "invalid counter")
			}
			getRuntime(L).count(engine.Counter(c))
			return 0
		},
		"sb_more_events": func(L *lua.LState) int {
			rt := getRuntime(L)
			if rt.loop == nil {
				L.Push(lua.LFalse)
				return 1
			}
			L.Push(lua.LBool(rt.loop.More()))
			return 1
		},
		"sb_event_start": func(L *lua.LState) int {
			if rt := getRuntime(L); rt.loop != nil {
				rt.loop.Start()
			}
			return 0
		},
		"sb_event_stop": func(L *lua.LState) int {
			if rt := getRuntime(L); rt.loop != nil {
				rt.loop.Stop()
			}
			return 0
		},
	}
	for k, f := range fns {
		C.RawSetString(k, L.NewFunction(f))
	}
	// ffi.C.sb_rand_<dist> are the same functions as sysbench.rand.<dist>.
	if rnd, ok := getPath(L, "sysbench", "rand").(*lua.LTable); ok {
		for _, d := range []string{"uniform", "default", "gaussian", "special", "pareto", "zipfian", "uniform_uint64", "uniform_double"} {
			C.RawSetString("sb_rand_"+d, rnd.RawGetString(d))
		}
	}
	for name, v := range map[string]engine.Counter{"SB_CNT_OTHER": engine.CntOther, "SB_CNT_READ": engine.CntRead,
		"SB_CNT_WRITE": engine.CntWrite, "SB_CNT_TRX": engine.CntEvent, "SB_CNT_EVENT": engine.CntEvent,
		"SB_CNT_ERROR": engine.CntError, "SB_CNT_RECONNECT": engine.CntReconnect, "SB_CNT_MAX": engine.CntMax} {
		C.RawSetString(name, lua.LNumber(v))
	}
	cmt := L.CreateTable(0, 1)
	cmt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("ffi.C.%s is not supported by sysbench-go", L.CheckString(2))
		return 0
	}))
	L.SetMetatable(C, cmt)
	m.RawSetString("C", C)

	pl := L.GetField(L.GetGlobal("package"), "preload").(*lua.LTable)
	pl.RawSetString("ffi", L.NewFunction(func(L *lua.LState) int { L.Push(m); return 1 }))
	L.SetGlobal("ffi", m)
}
