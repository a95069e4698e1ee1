package luaapi

import (
	"math"

	lua "github.com/yuin/gopher-lua"
)

// registerMath replaces gopher-lua's math.random and math.randomseed
// (Go's math/rand, which panics on an empty interval) with LuaJIT 2.1's:
// the same Tausworthe generator, the same fixed seed in every new state
// (sysbench never seeds it, so each thread's sequence is the same on every
// run, whatever --rand-seed), and the same range arithmetic, which
// never fails: math.random(m, n) is floor(r*(n-m+1))+m for r in [0, 1).
func registerMath(L *lua.LState) {
	m, ok := L.GetGlobal("math").(*lua.LTable)
	if !ok {
		return
	}
	g := &tw223{}
	g.seedFixed()
	m.RawSetString("random", L.NewFunction(g.random))
	m.RawSetString("randomseed", L.NewFunction(g.randomseed))
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
