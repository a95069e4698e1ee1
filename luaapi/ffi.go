package luaapi

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/luajit"
	"github.com/sysbench-go/sysbench-go/metrics"
)

// sysbench's part of ffi.C (LuaJIT's ffi is the luajit package's): the
// functions sysbench's scripts declare with ffi.cdef and call (the
// counters, the event loop of a custom thread_run, sb_rand_*) and the
// SB_CNT_* counter constants.

var ffiRandNames = [...]string{"uniform", "default", "gaussian", "special", "pareto", "zipfian", "uniform_uint64", "uniform_double"}

// ffiC returns the state's luajit.State.FFIC. ffi.C.sb_rand_<dist> are
// sysbench.rand's functions as registered, even if the script replaces
// those later.
func ffiC(L *lua.LState) func(L *lua.LState, C *lua.LTable) {
	var rands [len(ffiRandNames)]lua.LValue
	if rnd, ok := getPath(L, "sysbench", "rand").(*lua.LTable); ok {
		for i, d := range ffiRandNames {
			rands[i] = rnd.RawGetString(d)
		}
	}
	return func(L *lua.LState, C *lua.LTable) {
		L.SetFuncs(C, map[string]lua.LGFunction{
			"sb_counter_inc": func(L *lua.LState) int {
				c := luajit.CheckInt(L, 2)
				if c < 0 || c >= int(metrics.CntMax) {
					luajit.ArgError(L, 2, "invalid counter")
				}
				getRuntime(L).count(metrics.Counter(c))
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
					if rt.trace != nil {
						rt.trace.begin()
					}
					rt.loop.Start()
				}
				return 0
			},
			"sb_event_stop": func(L *lua.LState) int {
				if rt := getRuntime(L); rt.loop != nil {
					if rt.trace != nil {
						rt.trace.end(nil)
					}
					if err := rt.eventEnded(); err != nil {
						L.RaiseError("%s", err.Error())
					}
					rt.loop.Stop()
				}
				return 0
			},
		})
		for i, d := range ffiRandNames {
			if rands[i] != nil {
				C.RawSetString("sb_rand_"+d, rands[i])
			}
		}
		for name, v := range map[string]metrics.Counter{"SB_CNT_OTHER": metrics.CntOther, "SB_CNT_READ": metrics.CntRead,
			"SB_CNT_WRITE": metrics.CntWrite, "SB_CNT_TRX": metrics.CntEvent, "SB_CNT_EVENT": metrics.CntEvent,
			"SB_CNT_ERROR": metrics.CntError, "SB_CNT_RECONNECT": metrics.CntReconnect, "SB_CNT_MAX": metrics.CntMax} {
			C.RawSetString(name, lua.LNumber(v))
		}
	}
}

// The reference's SQL objects are ffi structs: type() says "cdata".

func (*sqlDriver) FFIObject() {}
func (*sqlConn) FFIObject()   {}
func (*sqlStmt) FFIObject()   {}
func (*sqlResult) FFIObject() {}

var _ luajit.FFIObject = (*sqlConn)(nil)
