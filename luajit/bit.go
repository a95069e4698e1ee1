package luajit

import (
	"math"
	"math/bits"

	"github.com/sysbench-go/sysbench-go/luajit/number"

	lua "github.com/yuin/gopher-lua"
)

// registerBit installs LuaJIT's bit library as the global bit and as
// require "bit". Numbers are normalised to 32 bits as LuaJIT does and the
// results are signed 32-bit numbers; a 64-bit cdata argument makes the
// operation 64-bit and its result a cdata (uint64_t when any argument is
// one, else int64_t), as in LuaJIT 2.1.
func registerBit(L *lua.LState) {
	lazyLibrary(L, "bit", func(L *lua.LState, t *lua.LTable) {
		L.SetFuncs(t, bitFunctions)
	})
}

var bitFunctions = map[string]lua.LGFunction{
	"tobit":   bitToBit,
	"tohex":   bitToHex,
	"bnot":    bitBnot,
	"bswap":   bitBswap,
	"band":    bitNary(func(a, b uint64) uint64 { return a & b }, ^uint64(0)),
	"bor":     bitNary(func(a, b uint64) uint64 { return a | b }, 0),
	"bxor":    bitNary(func(a, b uint64) uint64 { return a ^ b }, 0),
	"lshift":  bitShift(func(x uint32, n uint) uint32 { return x << n }, func(x uint64, n uint) uint64 { return x << n }),
	"rshift":  bitShift(func(x uint32, n uint) uint32 { return x >> n }, func(x uint64, n uint) uint64 { return x >> n }),
	"arshift": bitShift(func(x uint32, n uint) uint32 { return uint32(int32(x) >> n) }, func(x uint64, n uint) uint64 { return uint64(int64(x) >> n) }),
	"rol":     bitShift(func(x uint32, n uint) uint32 { return bits.RotateLeft32(x, int(n)) }, func(x uint64, n uint) uint64 { return bits.RotateLeft64(x, int(n)) }),
	"ror":     bitShift(func(x uint32, n uint) uint32 { return bits.RotateLeft32(x, -int(n)) }, func(x uint64, n uint) uint64 { return bits.RotateLeft64(x, -int(n)) }),
}

// tobit32 is LuaJIT's lj_num2bit: the low 32 bits of n + 2^52 + 2^51.
// Within ±2^51 that rounds to the nearest integer, ties to even, and
// wraps modulo 2^32; beyond, it keeps the low bits of the double's
// mantissa (bit.tobit(2^53+2) is 1).
func tobit32(n float64) int32 {
	return int32(uint32(math.Float64bits(n + 6755399441055744.0)))
}

// bitArg is one argument of a bit operation: its 64-bit value (a number's
// is its 32-bit normalisation, zero-extended) and, for a cdata, its type.
type bitArg struct {
	v  uint64
	cd *cdata // nil for a number
}

// checkBitArg is LuaJIT's lj_carith_check64 for argument n.
func checkBitArg(L *lua.LState, n int) bitArg {
	switch v := L.Get(n).(type) {
	case lua.LNumber:
		return bitArg{v: uint64(uint32(tobit32(float64(v))))}
	case lua.LString:
		if f, ok := number.Parse(string(v)); ok {
			return bitArg{v: uint64(uint32(tobit32(f)))}
		}
	case *lua.LUserData:
		if cd, ok := v.Value.(*cdata); ok {
			return bitArg{v: cd.int64Bits(), cd: cd}
		}
	}
	typeError(L, n, "number")
	return bitArg{}
}

// bitResultType is the cdata type of a 64-bit result over args: uint64_t when
// any argument is a uint64_t, else int64_t; nil when none is a cdata.
func bitResultType(args ...bitArg) *ctype {
	var t *ctype
	for _, a := range args {
		if a.cd == nil {
			continue
		}
		if a.cd.ct.isUint64() {
			return ctUint64
		}
		t = ctInt64
	}
	return t
}

// push32 pushes a 32-bit result as a number.
func push32(L *lua.LState, x uint32) int {
	L.Push(lua.LNumber(int32(x)))
	return 1
}

func bitToBit(L *lua.LState) int {
	a := checkBitArg(L, 1)
	return push32(L, uint32(a.v))
}

func bitBnot(L *lua.LState) int {
	a := checkBitArg(L, 1)
	if t := bitResultType(a); t != nil {
		return pushCdata(L, t, ^a.v)
	}
	return push32(L, ^uint32(a.v))
}

func bitBswap(L *lua.LState) int {
	a := checkBitArg(L, 1)
	if t := bitResultType(a); t != nil {
		return pushCdata(L, t, bits.ReverseBytes64(a.v))
	}
	return push32(L, bits.ReverseBytes32(uint32(a.v)))
}

// bitNary is band, bor and bxor over one or more arguments. With a cdata
// among them every argument is converted to the result's 64-bit type as
// C would (a number by truncation, not by 32-bit normalisation).
func bitNary(op func(a, b uint64) uint64, identity uint64) lua.LGFunction {
	return func(L *lua.LState) int {
		n := L.GetTop()
		if n == 0 {
			typeError(L, 1, "number")
		}
		var t *ctype
		acc := identity
		for i := 1; i <= n; i++ {
			a := checkBitArg(L, i)
			acc = op(acc, a.v)
			if a.cd != nil && t != ctUint64 {
				t = bitResultType(a)
			}
		}
		if t == nil {
			return push32(L, uint32(acc))
		}
		acc = identity
		for i := 1; i <= n; i++ {
			acc = op(acc, convertTo64(L.Get(i), t))
		}
		return pushCdata(L, t, acc)
	}
}

// convertTo64 converts a bit argument already checked to the bits of the
// 64-bit type t.
func convertTo64(v lua.LValue, t *ctype) uint64 {
	var f float64
	switch x := v.(type) {
	case *lua.LUserData:
		return x.Value.(*cdata).as(t)
	case lua.LNumber:
		f = float64(x)
	case lua.LString:
		f, _ = number.Parse(string(x))
	}
	if t.isUint64() {
		return f2u64(f)
	}
	return uint64(f2i64(f))
}

// bitShift is lshift, rshift, arshift, rol and ror: 32-bit with the count
// taken modulo 32, or 64-bit (count modulo 64) when the value is a cdata.
func bitShift(op32 func(x uint32, n uint) uint32, op64 func(x uint64, n uint) uint64) lua.LGFunction {
	return func(L *lua.LState) int {
		x := checkBitArg(L, 1)
		n := checkBitArg(L, 2)
		if t := bitResultType(x); t != nil {
			return pushCdata(L, t, op64(x.v, uint(n.v&63)))
		}
		return push32(L, op32(uint32(x.v), uint(n.v&31)))
	}
}

// bitToHex is tohex(x [, n]): n hexadecimal digits (default 8, or 16 for a
// cdata), upper case for negative n. The rules past 8 digits are those of
// the LuaJIT sysbench 1.0.20 runs on (2.1.0-beta3, Debian's 2022 build):
// up to 16 digits of the 64-bit value (a number's is its 32 bits), then
// zero padding up to 254 digits, and n wrapping modulo 256 beyond.
func bitToHex(L *lua.LState) int {
	x := checkBitArg(L, 1)
	var n int32 = 8
	if x.cd != nil {
		n = 16
	}
	if L.GetTop() >= 2 {
		n = int32(uint32(checkBitArg(L, 2).v))
	}
	upper := false
	if n < 0 {
		n = -n // -MinInt32 stays MinInt32, as in LuaJIT
		upper = true
	}
	prec := int((uint32(n)+1)&255) - 1 // -1: as many digits as needed
	b := x.v
	if n < 16 {
		b &= 1<<(uint32(4*n)&63) - 1
	}
	digits := "0123456789abcdef"
	if upper {
		digits = "0123456789ABCDEF"
	}
	var buf [16]byte
	i := len(buf)
	for v := b; v != 0; v >>= 4 {
		i--
		buf[i] = digits[v&15]
	}
	if b == 0 && prec != 0 {
		i--
		buf[i] = '0'
	}
	out := make([]byte, 0, max(prec, len(buf)-i))
	for pad := prec - (len(buf) - i); pad > 0; pad-- {
		out = append(out, '0')
	}
	out = append(out, buf[i:]...)
	L.Push(lua.LString(out))
	return 1
}
