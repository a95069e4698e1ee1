package luajit

import (
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/luajit/compile"
	"github.com/sysbench-go/sysbench-go/luajit/number"
)

// registerString gives the string library LuaJIT 2.1's functions in place
// of gopher-lua's: numbers as arguments written as tostring writes them
// and numeric strings as numbers, bytes (not UTF-8) for upper and lower,
// rep with its separator, LuaJIT's patterns (pattern.go) and format
// (format.go), and LuaJIT's argument errors. Strings get a metatable of
// their own ({__index = string} and the arithmetic below) in place of
// gopher-lua's, which is the string table itself (so string.__index and
// string.gfind existed).
func registerString(L *lua.LState) {
	str, ok := L.GetGlobal("string").(*lua.LTable)
	if !ok {
		return
	}
	str.RawSetString("__index", lua.LNil)
	str.RawSetString("gfind", lua.LNil)
	mt := L.CreateTable(0, 8)
	mt.RawSetString("__index", str)
	for event, op := range map[string]func(a, b float64) float64{
		"__add": func(a, b float64) float64 { return a + b },
		"__sub": func(a, b float64) float64 { return a - b },
		"__mul": func(a, b float64) float64 { return a * b },
		"__div": func(a, b float64) float64 { return a / b },
		"__mod": func(a, b float64) float64 { return a - math.Floor(a/b)*b },
		"__pow": math.Pow,
		"__unm": func(a, _ float64) float64 { return -a },
	} {
		mt.RawSetString(event, L.NewFunction(stringArith(event, op)))
	}
	L.SetMetatable(lua.LString(""), mt)
	for name, fn := range map[string]lua.LGFunction{
		"byte":    strByte,
		"char":    strChar,
		"dump":    strDump,
		"find":    strFind,
		"format":  strFormat,
		"gmatch":  strGmatch,
		"gsub":    strGsub,
		"len":     strLen,
		"lower":   strLower,
		"match":   strMatch,
		"rep":     strRep,
		"reverse": strReverse,
		"sub":     strSub,
		"upper":   strUpper,
	} {
		str.RawSetString(name, L.NewFunction(fn))
	}
}

func strLen(L *lua.LState) int {
	L.SetTop(1) // written in Lua in LuaJIT: no "no value"
	L.Push(lua.LNumber(len(CheckStr(L, 1))))
	return 1
}

// strRange is LuaJIT's string_range: start and stop (1-based, negative
// from the end) clipped to s, as a slice [i, j) with i > j when empty.
func strRange(n int, start, stop int32) (int, int) {
	i, j := int(start), int(stop)
	if j < 0 {
		j += n + 1
	} else if j > n {
		j = n
	}
	if i < 0 {
		i += n + 1
	}
	if i <= 0 {
		i = 1
	}
	return i - 1, j
}

// strByte is string.byte(s [, i [, j]]).
func strByte(L *lua.LState) int {
	s := CheckStr(L, 1)
	start := optInt(L, 2, 1)
	i, j := strRange(len(s), start, optInt(L, 3, start))
	if i >= j {
		return 0
	}
	if j-i > maxUnpack {
		LibError(L, "string slice too long")
	}
	for k := i; k < j; k++ {
		L.Push(lua.LNumber(s[k]))
	}
	return j - i
}

// strChar is string.char(...): bytes 0 to 255.
func strChar(L *lua.LState) int {
	n := L.GetTop()
	var stack [64]byte
	b := stack[:0]
	for i := 1; i <= n; i++ {
		k := checkInt(L, i)
		if k < 0 || k > 255 {
			argError(L, i, "invalid value")
		}
		b = append(b, byte(k))
	}
	L.Push(lua.LString(b))
	return 1
}

// strSub is string.sub(s, i [, j]).
func strSub(L *lua.LState) int {
	s := CheckStr(L, 1)
	start := checkInt(L, 2)
	i, j := strRange(len(s), start, optInt(L, 3, -1))
	switch {
	case i >= j:
		L.Push(lua.LString(""))
	case i == 0 && j == len(s):
		L.Push(L.Get(1))
		if _, ok := L.Get(1).(lua.LString); !ok {
			L.Push(lua.LString(s))
		}
	default:
		L.Push(lua.LString(s[i:j]))
	}
	return 1
}

// maxStringLen is the longest string LuaJIT builds (LJ_MAX_STR); beyond it
// rep fails as LuaJIT's does.
const maxStringLen = 1<<31 - 256

// strRep is string.rep(s, n [, sep]).
func strRep(L *lua.LState) int {
	s := CheckStr(L, 1)
	n := int64(checkInt(L, 2))
	sep := optStr(L, 3, "")
	if n <= 0 {
		L.Push(lua.LString(""))
		return 1
	}
	if total := int64(len(s))*n + int64(len(sep))*(n-1); total > maxStringLen {
		LibError(L, "not enough memory")
	} else if total == 0 {
		L.Push(lua.LString(""))
		return 1
	}
	var b strings.Builder
	b.Grow(int(int64(len(s))*n + int64(len(sep))*(n-1)))
	for k := int64(0); k < n; k++ {
		if k > 0 {
			b.WriteString(sep)
		}
		b.WriteString(s)
	}
	L.Push(lua.LString(b.String()))
	return 1
}

func strReverse(L *lua.LState) int {
	s := CheckStr(L, 1)
	var b strings.Builder
	b.Grow(len(s))
	for i := len(s) - 1; i >= 0; i-- {
		b.WriteByte(s[i])
	}
	L.Push(lua.LString(b.String()))
	return 1
}

// strLower and strUpper change ASCII letters only: other bytes, UTF-8
// sequences included, are left as they are (C's tolower in the C locale).
func strLower(L *lua.LState) int {
	L.Push(lua.LString(mapASCII(CheckStr(L, 1), 'A', 'Z', 32)))
	return 1
}

func strUpper(L *lua.LState) int {
	L.Push(lua.LString(mapASCII(CheckStr(L, 1), 'a', 'z', -32)))
	return 1
}

// mapASCII adds delta to the bytes from lo to hi; s itself when it has
// none.
func mapASCII(s string, lo, hi byte, delta int) string {
	i := 0
	for i < len(s) && (s[i] < lo || s[i] > hi) {
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		c := s[i]
		if c >= lo && c <= hi {
			c = byte(int(c) + delta)
		}
		b.WriteByte(c)
	}
	return b.String()
}

// strDump is string.dump: a Go function has no bytecode, as a C one has
// none in LuaJIT; a Lua function's bytecode is gopher-lua's, which nothing
// can load, so both are refused.
func strDump(L *lua.LState) int {
	fn, ok := L.Get(1).(*lua.LFunction)
	if !ok {
		typeError(L, 1, "function")
	}
	if fn.IsG {
		LibError(L, "unable to dump given function")
	}
	LibError(L, "string.dump is not supported by sysbench-go (no LuaJIT bytecode)")
	return 0
}

// gopher-lua's VM converts a string operand of arithmetic with Go's
// strconv ("010" is octal 8, "0b1" and "1_0" are numbers, "\v1" is not),
// but it consults the string metatable's __add ... __unm before it does.
// Those metamethods give LuaJIT's conversion (number.Parse): "10" + 1 is
// 11, "0x10" * 2 is 32, "010" + 0 is 10. A side effect LuaJIT does not
// have: getmetatable("").__add is a function (docs/differences.md).

// stringArith is the metamethod for event: op on both operands when both
// are numbers or numeric strings; else the metamethod of an operand that
// is not a string, as LuaJIT would look it up; else LuaJIT's error.
func stringArith(event string, op func(a, b float64) float64) lua.LGFunction {
	return func(L *lua.LState) int {
		a, b := L.Get(1), L.Get(2)
		if event == "__unm" {
			b = a
		}
		x, okx := numberOperand(a)
		y, oky := numberOperand(b)
		if okx && oky {
			L.Push(lua.LNumber(op(x, y)))
			return 1
		}
		for _, v := range []lua.LValue{a, b} {
			if _, isString := v.(lua.LString); isString {
				continue
			}
			if mm, ok := L.GetMetaField(v, event).(*lua.LFunction); ok {
				L.Push(mm)
				L.Push(a)
				L.Push(b)
				L.Call(2, 1)
				return 1
			}
		}
		// The VM's message for the operation, named as the compiler names
		// the operands (compile.TranslateError reads the instruction).
		text := "__unm undefined"
		if event != "__unm" {
			text = "cannot perform " + event[2:] + " operation between " + a.Type().String() + " and " + b.Type().String()
		}
		LibError(L, compile.TranslateError(L, 1, text))
		return 0
	}
}

// numberOperand is v as an arithmetic operand: a number, or a string that
// converts to one.
func numberOperand(v lua.LValue) (float64, bool) {
	switch x := v.(type) {
	case lua.LNumber:
		return float64(x), true
	case lua.LString:
		return number.Parse(string(x))
	}
	return 0, false
}
