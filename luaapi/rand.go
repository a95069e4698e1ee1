package luaapi

import (
	"math"

	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/luajit"
	"github.com/sysbench-go/sysbench-go/sbrand"
)

// randAPI is sysbench.rand for one Lua state. The reference declares its
// functions through LuaJIT's FFI with uint32_t parameters and results, so a
// Lua number argument is truncated toward zero and taken modulo 2^32 (-5
// becomes 4294967291) and results are numbers in [0, 2^32), except
// uniform_uint64's: a uint64_t cdata as in LuaJIT ("123ULL" when printed,
// exact to 64 bits). sb_rnd keeps its low 32 bits as a number.
type randAPI struct {
	get func(L *lua.LState) *sbrand.Rand
	buf []byte // reused by string and varstring; only the result is copied
}

// RegisterRand creates sysbench.rand in sysbench and the 0.5-era globals that
// sysbench 1.0 keeps for old scripts (sb_rand, sb_rand_uniform,
// sb_rand_gaussian, sb_rand_special, sb_rand_str, sb_rand_uniq, sb_rnd). get
// returns the calling worker's generator; call RegisterRand once per state.
func RegisterRand(L *lua.LState, sysbench *lua.LTable, get func(L *lua.LState) *sbrand.Rand) {
	api := &randAPI{get: get}
	fns := map[string]lua.LGFunction{
		"default":        api.distribution((*sbrand.Rand).Default),
		"uniform":        api.distribution((*sbrand.Rand).Uniform),
		"gaussian":       api.distribution((*sbrand.Rand).Gaussian),
		"special":        api.distribution((*sbrand.Rand).Special),
		"pareto":         api.distribution((*sbrand.Rand).Pareto),
		"zipfian":        api.distribution((*sbrand.Rand).Zipfian),
		"unique":         api.unique,
		"string":         api.string,
		"varstring":      api.varstring,
		"uniform_uint64": api.uniformUint64,
		"uniform_double": api.uniformDouble,
	}
	t := funcTable(L, fns)
	L.SetField(sysbench, "rand", t)

	// The compatibility globals are the same function values, as in the
	// reference (sb_rand == sysbench.rand.default).
	for global, name := range map[string]string{
		"sb_rand":          "default",
		"sb_rand_uniform":  "uniform",
		"sb_rand_gaussian": "gaussian",
		"sb_rand_special":  "special",
		"sb_rand_str":      "string",
	} {
		L.SetGlobal(global, L.GetField(t, name))
	}
	L.SetGlobal("sb_rand_uniq", L.NewFunction(api.uniq))
	L.SetGlobal("sb_rnd", L.NewFunction(api.rnd))
}

func (api *randAPI) rand(L *lua.LState) *sbrand.Rand {
	r := api.get(L)
	if r == nil {
		L.RaiseError("sysbench.rand: no random number generator in this Lua state")
	}
	return r
}

// checkUint32Arg converts argument n the way LuaJIT's FFI converts a number
// or a cdata for a uint32_t parameter: truncate toward zero; the sbrand
// functions then reduce it modulo 2^32. Anything else (a string, nil, a
// missing argument) is the FFI's conversion error, as the reference's
// sysbench.rand functions are C functions.
func checkUint32Arg(L *lua.LState, n int) int64 {
	v := L.Get(n)
	num, ok := v.(lua.LNumber) // the common case first: this is per query
	if !ok {
		if i, ok := luajit.CdataInt64(v); ok {
			return i // a 64-bit cdata keeps its low 32 bits
		}
		luajit.FFIArgError(L, n, "unsigned int")
	}
	f := float64(num)
	if !(f > -9.2e18 && f < 9.2e18) {
		return 0 // NaN and infinities: as the x86-64 conversion's low bits
	}
	return int64(f)
}

func (api *randAPI) distribution(f func(r *sbrand.Rand, a, b int64) int64) lua.LGFunction {
	return func(L *lua.LState) int {
		a, b := checkUint32Arg(L, 1), checkUint32Arg(L, 2)
		L.Push(luajit.Int(f(api.rand(L), a, b)))
		return 1
	}
}

func (api *randAPI) unique(L *lua.LState) int {
	L.Push(lua.LNumber(api.rand(L).Unique()))
	return 1
}

func (api *randAPI) uniformUint64(L *lua.LState) int {
	return luajit.PushUint64(L, api.rand(L).UniformUint64())
}

func (api *randAPI) uniformDouble(L *lua.LState) int {
	L.Push(lua.LNumber(api.rand(L).UniformDouble()))
	return 1
}

// string is sysbench.rand.string(template): '#' a digit, '@' a lowercase
// letter, anything else copied.
func (api *randAPI) string(L *lua.LState) int {
	tmpl := luajit.CheckString(L, 1)
	api.buf = api.rand(L).StringTemplate(api.buf, tmpl)
	L.Push(lua.LString(api.buf))
	return 1
}

// varstring is sysbench.rand.varstring(min_len, max_len) from sysbench 1.1.
// The reference asserts min_len <= max_len and max_len > 0 before drawing.
func (api *randAPI) varstring(L *lua.LState) int {
	lo, hi := luajit.CheckNumber(L, 1), luajit.CheckNumber(L, 2)
	if !(lo <= hi) {
		luajit.ArgError(L, 1, "min_len must not be greater than max_len")
	}
	if !(hi > 0) {
		luajit.ArgError(L, 2, "max_len must be greater than 0")
	}
	api.buf = api.rand(L).VarString(api.buf, int(checkUint32Arg(L, 1)), int(checkUint32Arg(L, 2)))
	L.Push(lua.LString(api.buf))
	return 1
}

// rnd is sb_rnd(): the low 32 bits of uniform_uint64.
func (api *randAPI) rnd(L *lua.LState) int {
	L.Push(lua.LNumber(uint32(api.rand(L).UniformUint64())))
	return 1
}

// uniq is sb_rand_uniq([a [, b]]): the next unique value within [a, b]
// (defaults 0 and 2^32-1), skipping the ones outside. The reference loops
// forever on a range holding no 32-bit value; that is an error here, and a
// long search stops when the run is cancelled.
func (api *randAPI) uniq(L *lua.LState) int {
	a := float64(luajit.OptNumber(L, 1, 0))
	b := float64(luajit.OptNumber(L, 2, math.MaxUint32))
	if !(math.Ceil(math.Max(a, 0)) <= math.Floor(math.Min(b, math.MaxUint32))) {
		luajit.ArgError(L, 1, "empty range")
	}
	r := api.rand(L)
	for i := 1; ; i++ {
		v := float64(r.Unique())
		if v >= a && v <= b {
			L.Push(lua.LNumber(v))
			return 1
		}
		if i%(1<<16) == 0 {
			if ctx := L.Context(); ctx != nil && ctx.Err() != nil {
				L.RaiseError("sb_rand_uniq: %v", ctx.Err())
			}
		}
	}
}
