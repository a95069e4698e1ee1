package luajit

import (
	"fmt"
	"math"
	"strconv"
	"unsafe"

	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/luajit/number"
)

// string.format is LuaJIT 2.1's (gopher-lua's hands the arguments to Go's
// fmt, printing "%!d(float64=...)" for some and taking Go's verbs): C's
// conversions and flags, 64-bit integer cdata for %d/%u/%x/%o, integers
// converted as LuaJIT converts a double (%d of 2^63 is
// -9223372036854775808), inf and nan spelt as C, ties rounded away from
// zero (%.0f of 2.5 is 3), and LuaJIT's errors.

// spec is one parsed conversion: flags, width and precision (-1 when not
// given), and the conversion character.
type spec struct {
	left, plus, zero, space, alt bool
	width, prec                  int
	conv                         byte
}

// parseSpec reads the conversion after a '%' at f[i:] the way LuaJIT's
// lj_strfmt_parse does: any flags, at most two digits of width and of
// precision. It returns the index after it, or ok false with the text to
// show in "invalid option '%...' to 'format'".
func parseSpec(f string, i int) (sp spec, next int, bad string, ok bool) {
	start := i - 1
	sp.prec = -1
	at := func(j int) byte {
		if j < len(f) {
			return f[j]
		}
		return 0
	}
flags:
	for ; ; i++ {
		switch at(i) {
		case '-':
			sp.left = true
		case '+':
			sp.plus = true
		case '0':
			sp.zero = true
		case ' ':
			sp.space = true
		case '#':
			sp.alt = true
		default:
			break flags
		}
	}
	if c := at(i); c >= '0' && c <= '9' {
		sp.width = int(c - '0')
		i++
		if c := at(i); c >= '0' && c <= '9' {
			sp.width = sp.width*10 + int(c-'0')
			i++
		}
	}
	if at(i) == '.' {
		i++
		sp.prec = 0
		if c := at(i); c >= '0' && c <= '9' {
			sp.prec = int(c - '0')
			i++
			if c := at(i); c >= '0' && c <= '9' {
				sp.prec = sp.prec*10 + int(c-'0')
				i++
			}
		}
	}
	switch c := at(i); c {
	case 'd', 'i', 'u', 'o', 'x', 'X', 'a', 'A', 'e', 'E', 'f', 'F', 'g', 'G', 'c', 's', 'q', 'p':
		sp.conv = c
		return sp, i + 1, "", true
	default:
		end := i
		if c >= 32 && i < len(f) {
			end++
		}
		return sp, 0, f[start:end], false
	}
}

func strFormat(L *lua.LState) int {
	var f string
	switch v := L.Get(1).(type) {
	case lua.LString:
		f = string(v)
	case lua.LNumber:
		f = string(number.Append(nil, float64(v)))
	default:
		typeError(L, 1, "string")
	}
	var stack [128]byte
	out := stack[:0]
	arg := 1
	for i := 0; i < len(f); {
		c := f[i]
		if c != '%' {
			j := i + 1
			for j < len(f) && f[j] != '%' {
				j++
			}
			out = append(out, f[i:j]...)
			i = j
			continue
		}
		if i+1 < len(f) && f[i+1] == '%' {
			out = append(out, '%')
			i += 2
			continue
		}
		sp, next, bad, ok := parseSpec(f, i+1)
		if !ok {
			LibError(L, "invalid option '"+bad+"' to 'format'")
		}
		i = next
		arg++
		if arg > L.GetTop() {
			argError(L, arg, "value expected")
		}
		out = formatArg(L, out, sp, arg)
	}
	L.Push(lua.LString(out))
	return 1
}

func formatArg(L *lua.LState, out []byte, sp spec, arg int) []byte {
	v := L.Get(arg)
	switch sp.conv {
	case 'd', 'i':
		if cd := int64Cdata(v); cd != nil {
			return appendInt(out, sp, cd.bits, true)
		}
		n := checkNum(L, arg)
		k := f2i64(n)
		if sp == (spec{prec: -1, conv: sp.conv}) && k == int64(int32(k)) {
			return strconv.AppendInt(out, k, 10)
		}
		return appendInt(out, sp, uint64(k), true)
	case 'u', 'o', 'x', 'X':
		if cd := int64Cdata(v); cd != nil {
			return appendInt(out, sp, cd.bits, false)
		}
		n := checkNum(L, arg)
		var k int64
		if n >= 9223372036854775808.0 {
			k = f2i64(n - 18446744073709551616.0)
		} else {
			k = f2i64(n)
		}
		return appendInt(out, sp, uint64(k), false)
	case 'a', 'A', 'e', 'E', 'f', 'F', 'g', 'G':
		return appendFloat(out, sp, checkNum(L, arg))
	case 'c':
		return appendPadded(out, sp, []byte{byte(checkInt(L, arg))})
	case 's':
		if n, ok := v.(lua.LNumber); ok && sp.width == 0 && sp.prec < 0 {
			return number.Append(out, float64(n))
		}
		s := formatString(L, v)
		if sp.prec >= 0 && sp.prec < len(s) {
			s = s[:sp.prec]
		}
		if sp.width == 0 {
			return append(out, s...)
		}
		return appendPadded(out, sp, unsafe.Slice(unsafe.StringData(s), len(s)))
	case 'q':
		return appendQuoted(out, formatString(L, v))
	default: // 'p'
		return appendPointer(out, v)
	}
}

// int64Cdata returns v's cdata when it is a 64-bit integer one, which %d,
// %u, %x and %o print exactly.
func int64Cdata(v lua.LValue) *cdata {
	if ud, ok := v.(*lua.LUserData); ok {
		if cd, ok := ud.Value.(*cdata); ok && cd.ct.kind == kindInt && cd.ct.size == 8 {
			return cd
		}
	}
	return nil
}

// formatString is the text %s and %q show for v: a number as tostring does
// in LuaJIT (%.14g), anything else through its __tostring.
func formatString(L *lua.LState, v lua.LValue) string {
	switch x := v.(type) {
	case lua.LString:
		return string(x)
	case lua.LNumber:
		return number.Format(float64(x))
	}
	return lua.LVAsString(toStringMeta(L, v))
}

// appendPadded writes s within sp.width with spaces, on the right for '-'.
func appendPadded(out []byte, sp spec, s []byte) []byte {
	pad := sp.width - len(s)
	if sp.left {
		out = append(out, s...)
	}
	for ; pad > 0; pad-- {
		out = append(out, ' ')
	}
	if !sp.left {
		out = append(out, s...)
	}
	return out
}

// appendInt is LuaJIT's lj_strfmt_putfxint: k as a signed (%d) or
// unsigned (%u %o %x %X) 64-bit integer with C's flags.
func appendInt(out []byte, sp spec, k uint64, signed bool) []byte {
	var prefix []byte
	if signed {
		switch {
		case int64(k) < 0:
			k = -k
			prefix = []byte{'-'}
		case sp.plus:
			prefix = []byte{'+'}
		case sp.space:
			prefix = []byte{' '}
		}
	}
	var buf [24]byte
	q := len(buf)
	zero := sp.zero && sp.prec < 0
	switch {
	case k == 0:
		if sp.prec != 0 || sp.conv == 'o' && sp.alt {
			q--
			buf[q] = '0'
		}
	case sp.conv == 'x' || sp.conv == 'X':
		digits := "0123456789abcdef"
		if sp.conv == 'X' {
			digits = "0123456789ABCDEF"
		}
		for ; k != 0; k >>= 4 {
			q--
			buf[q] = digits[k&15]
		}
		if sp.alt {
			prefix = []byte{'0', sp.conv}
		}
	case sp.conv == 'o':
		for ; k != 0; k >>= 3 {
			q--
			buf[q] = byte('0' + k&7)
		}
		if sp.alt {
			q--
			buf[q] = '0'
		}
	default:
		for ; k != 0; k /= 10 {
			q--
			buf[q] = byte('0' + k%10)
		}
	}
	digits := buf[q:]
	prec := max(sp.prec, len(digits))
	total := prec + len(prefix)
	if !sp.left && !zero {
		for w := sp.width; w > total; w-- {
			out = append(out, ' ')
		}
	}
	out = append(out, prefix...)
	if !sp.left && zero {
		for w := sp.width; w > total; w-- {
			out = append(out, '0')
		}
	}
	for p := prec; p > len(digits); p-- {
		out = append(out, '0')
	}
	out = append(out, digits...)
	if sp.left {
		for w := sp.width; w > total; w-- {
			out = append(out, ' ')
		}
	}
	return out
}

// appendFloat formats n for %a %e %f %g (and their upper-case forms).
func appendFloat(out []byte, sp spec, n float64) []byte {
	upper := sp.conv >= 'A' && sp.conv <= 'Z'
	var prefix byte
	switch {
	case math.IsNaN(n):
		if sp.space {
			prefix = ' '
		}
		return appendSpecial(out, sp, prefix, "nan", upper)
	case math.Signbit(n):
		prefix = '-'
	case sp.plus:
		prefix = '+'
	case sp.space:
		prefix = ' '
	}
	v := math.Abs(n)
	if math.IsInf(v, 0) {
		return appendSpecial(out, sp, prefix, "inf", upper)
	}
	var stack [64]byte
	body := number.AppendFloat(stack[:0], v, sp.conv, sp.prec, sp.alt)
	n0 := len(body)
	if prefix != 0 {
		n0++
	}
	if !sp.left && !sp.zero {
		for w := sp.width; w > n0; w-- {
			out = append(out, ' ')
		}
	}
	if prefix != 0 {
		out = append(out, prefix)
	}
	if !sp.left && sp.zero {
		lead := 0
		if sp.conv|0x20 == 'a' {
			lead = 2 // after "0x"
			out = append(out, body[:2]...)
		}
		for w := sp.width; w > n0; w-- {
			out = append(out, '0')
		}
		body = body[lead:]
	}
	out = append(out, body...)
	if sp.left {
		for w := sp.width; w > n0; w-- {
			out = append(out, ' ')
		}
	}
	return out
}

// appendSpecial writes inf or nan, padded with spaces only (C's '0' flag
// does not apply).
func appendSpecial(out []byte, sp spec, prefix byte, word string, upper bool) []byte {
	var s [4]byte
	b := s[:0]
	if prefix != 0 {
		b = append(b, prefix)
	}
	for i := 0; i < len(word); i++ {
		c := word[i]
		if upper {
			c -= 'a' - 'A'
		}
		b = append(b, c)
	}
	sp.zero = false
	return appendPadded(out, sp, b)
}

// appendQuoted is %q: the string in double quotes with ", \ and newline
// escaped by a backslash and other control characters as \ddd (shortest
// unless a digit follows).
func appendQuoted(out []byte, s string) []byte {
	out = append(out, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\' || c == '\n':
			out = append(out, '\\', c)
		case c < 32 || c == 127:
			out = append(out, '\\')
			nextDigit := i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9'
			switch {
			case c >= 100 || nextDigit:
				out = append(out, '0'+c/100, '0'+c/10%10, '0'+c%10)
			case c >= 10:
				out = append(out, '0'+c/10, '0'+c%10)
			default:
				out = append(out, '0'+c)
			}
		default:
			out = append(out, c)
		}
	}
	return append(out, '"')
}

// appendPointer is %p: an object's address, NULL for values that have none.
func appendPointer(out []byte, v lua.LValue) []byte {
	var p unsafe.Pointer
	switch x := v.(type) {
	case *lua.LTable:
		p = unsafe.Pointer(x)
	case *lua.LFunction:
		p = unsafe.Pointer(x)
	case *lua.LUserData:
		p = unsafe.Pointer(x)
	case *lua.LState:
		p = unsafe.Pointer(x)
	case lua.LString:
		p = unsafe.Pointer(unsafe.StringData(string(x)))
	}
	if p == nil {
		return append(out, "NULL"...)
	}
	return fmt.Appendf(out, "%p", p)
}
