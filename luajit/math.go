package luajit

import (
	"math"

	lua "github.com/yuin/gopher-lua"
)

// registerMath gives the math library LuaJIT 2.1's functions in place of
// gopher-lua's: numeric strings as arguments, math.huge an infinity (not
// the largest double), min and max with x86's NaN rules, modf and ldexp
// of infinities as C, log with a base, no math.mod, LuaJIT's errors.
//
// math.random and math.randomseed are LuaJIT's (gopher-lua's use Go's
// math/rand, which panics on an empty interval): the same Tausworthe
// generator, the same fixed seed in every new state (sysbench never seeds
// it, so each thread's sequence is the same on every run, whatever
// --rand-seed), and the same range arithmetic, which never fails:
// math.random(m, n) is floor(r*(n-m+1))+m for r in [0, 1).
func registerMath(L *lua.LState) {
	m, ok := L.GetGlobal("math").(*lua.LTable)
	if !ok {
		return
	}
	m.RawSetString("mod", lua.LNil)
	m.RawSetString("huge", lua.LNumber(math.Inf(1)))
	m.RawSetString("pi", lua.LNumber(math.Pi))
	for name, f := range map[string]func(float64) float64{
		"abs": math.Abs, "ceil": math.Ceil, "floor": math.Floor, "sqrt": math.Sqrt,
		"exp": math.Exp, "log10": math.Log10,
		"sin": math.Sin, "cos": math.Cos, "tan": math.Tan,
		"asin": math.Asin, "acos": math.Acos, "atan": math.Atan,
		"sinh": math.Sinh, "cosh": math.Cosh, "tanh": math.Tanh,
	} {
		m.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			L.Push(lua.LNumber(f(checkNum(L, 1))))
			return 1
		}))
	}
	for name, f := range map[string]func(x, y float64) float64{
		"atan2": math.Atan2, "pow": math.Pow, "fmod": math.Mod, "ldexp": ldexp,
	} {
		m.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			x := checkNum(L, 1)
			L.Push(lua.LNumber(f(x, checkNum(L, 2))))
			return 1
		}))
	}
	for name, factor := range map[string]float64{"deg": 57.29577951308232, "rad": 0.017453292519943295} {
		m.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			// LuaJIT writes these two in Lua: x * factor, with its error.
			x, ok := numberOperand(L.Get(1))
			if !ok {
				L.Error(lua.LString("[builtin:"+name+"]:0: attempt to perform arithmetic on a "+luaTypeName(L.Get(1))+" value"), 0)
			}
			L.Push(lua.LNumber(x * factor))
			return 1
		}))
	}
	m.RawSetString("log", L.NewFunction(mathLog))
	m.RawSetString("max", L.NewFunction(func(L *lua.LState) int {
		return minMax(L, func(res, d float64) bool { return res > d })
	}))
	m.RawSetString("min", L.NewFunction(func(L *lua.LState) int {
		return minMax(L, func(res, d float64) bool { return res < d })
	}))
	m.RawSetString("modf", L.NewFunction(mathModf))
	m.RawSetString("frexp", L.NewFunction(mathFrexp))
	g := &tw223{}
	g.seedFixed()
	m.RawSetString("random", L.NewFunction(g.random))
	m.RawSetString("randomseed", L.NewFunction(g.randomseed))
}

// mathLog is log(x [, base]), with a base computed as LuaJIT does:
// log2(x) * (1/log2(base)).
func mathLog(L *lua.LState) int {
	x := checkNum(L, 1)
	if L.GetTop() >= 2 {
		y := checkNum(L, 2)
		L.Push(lua.LNumber(math.Log2(x) * (1 / math.Log2(y))))
		return 1
	}
	L.Push(lua.LNumber(math.Log(x)))
	return 1
}

// minMax folds the arguments with x86's maxsd/minsd: the running value is
// kept only when keep(res, d) holds, so a NaN argument wins unless it is
// the first.
func minMax(L *lua.LState, keep func(res, d float64) bool) int {
	res := checkNum(L, 1)
	for i := 2; i <= L.GetTop(); i++ {
		if d := checkNum(L, i); !keep(res, d) {
			res = d
		}
	}
	L.Push(lua.LNumber(res))
	return 1
}

// mathModf is modf(x): integral and fractional parts, the fraction of an
// infinity a zero of its sign, as C's modf.
func mathModf(L *lua.LState) int {
	x := checkNum(L, 1)
	i, f := math.Modf(x)
	if math.IsInf(x, 0) {
		f = math.Copysign(0, x)
	}
	L.Push(lua.LNumber(i))
	L.Push(lua.LNumber(f))
	return 2
}

func mathFrexp(L *lua.LState) int {
	f, e := math.Frexp(checkNum(L, 1))
	L.Push(lua.LNumber(f))
	L.Push(lua.LNumber(e))
	return 2
}

// ldexp is x*2^trunc(e), an exponent of any size as x87's fscale takes it.
func ldexp(x, e float64) float64 {
	if math.IsNaN(e) {
		return math.NaN()
	}
	return math.Ldexp(x, int(max(min(math.Trunc(e), 4000), -4000)))
}

// tw223 is LuaJIT's math.random generator: a combined Tausworthe generator
// with period 2^223 (L'Ecuyer 1991, table 3, first entry). One per Lua
// state, so workers never share it.
type tw223 struct{ u [4]uint64 }

// seedFixed is the state every LuaJIT math library starts in: seed(0).
func (g *tw223) seedFixed() {
	g.u = [4]uint64{0xa0d277570a345b8c, 0x764a296c5d4aa64f, 0x51220704070adeaa, 0x2a2717b5a7b7b927}
}

// seed is math.randomseed(d): four words from d*pi+e iterated, each with
// its top bits forced on, then ten steps to mix.
func (g *tw223) seed(d float64) {
	r := uint32(0x11090601) // 64-k for each of the four generators, one per byte
	for i := range g.u {
		m := uint64(1) << (r & 255)
		r >>= 8
		d = float64(d*3.14159265358979323846) + 2.7182818284590452354 // no fused multiply-add
		u := math.Float64bits(d)
		if u < m {
			u += m
		}
		g.u[i] = u
	}
	for range 10 {
		g.next()
	}
}

func (g *tw223) next() uint64 {
	var r uint64
	step := func(i int, k, q, s uint) {
		z := g.u[i]
		z = ((z<<q)^z)>>(k-s) ^ (z&(^uint64(0)<<(64-k)))<<s
		r ^= z
		g.u[i] = z
	}
	step(0, 63, 31, 18)
	step(1, 58, 19, 28)
	step(2, 55, 24, 7)
	step(3, 47, 21, 8)
	return r
}

// float is a draw in [0, 1) with 52 random bits, as LuaJIT makes it.
func (g *tw223) float() float64 {
	return math.Float64frombits(g.next()&0x000fffffffffffff|0x3ff0000000000000) - 1
}

func (g *tw223) random(L *lua.LState) int {
	d := g.float()
	switch n := L.GetTop(); {
	case n == 1:
		d = math.Floor(d*checkNum(L, 1)) + 1
	case n >= 2:
		lo, hi := checkNum(L, 1), checkNum(L, 2)
		d = math.Floor(d*(hi-lo+1)) + lo
	}
	L.Push(lua.LNumber(d))
	return 1
}

func (g *tw223) randomseed(L *lua.LState) int {
	g.seed(checkNum(L, 1))
	return 0
}
