package luaapi

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// patchStringFormat replaces gopher-lua's string.format, which hands the
// arguments to Go's fmt (printing "%!d(float64=...)" for some and taking
// Go's verbs), with LuaJIT 2.1's: C's conversions and flags, 64-bit
// integer cdata for %d/%u/%x/%o, integers converted as LuaJIT converts a
// double (%d of 2^63 is -9223372036854775808), inf and nan spelt as C,
// ties rounded away from zero (%.0f of 2.5 is 3), and LuaJIT's errors.
func patchStringFormat(L *lua.LState) {
	if str, ok := L.GetGlobal("string").(*lua.LTable); ok {
		str.RawSetString("format", L.NewFunction(strFormat))
	}
}

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
		f = string(appendNumber(nil, float64(v)))
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
			L.RaiseError("invalid option '%s' to 'format'", bad)
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
		return string(appendNumber(nil, float64(x)))
	}
	return L.ToStringMeta(v).String()
}

// appendNumber is LuaJIT's tostring of a number: %.14g.
func appendNumber(out []byte, n float64) []byte {
	return appendFloat(out, spec{prec: 14, conv: 'g'}, n)
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
	var body []byte
	switch sp.conv | 0x20 {
	case 'a':
		body = hexFloat(stack[:0], v, sp, upper)
	case 'e':
		body = expForm(stack[:0], v, precOr6(sp), sp.alt, upper)
	case 'f':
		body = fixedForm(stack[:0], v, precOr6(sp), sp.alt)
	default:
		body = generalForm(stack[:0], v, precOr6(sp), sp.alt, upper)
	}
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

func precOr6(sp spec) int {
	if sp.prec < 0 {
		return 6
	}
	return sp.prec
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

// lowBit is the exponent of v's lowest set bit: v = odd * 2^lowBit(v).
func lowBit(v float64) int {
	b := math.Float64bits(v)
	exp := int(b >> 52 & 0x7ff)
	mant := b & (1<<52 - 1)
	if exp == 0 {
		exp = 1
	} else {
		mant |= 1 << 52
	}
	return exp - 1075 + bits.TrailingZeros64(mant)
}

// Go's strconv rounds the exact binary value correctly but sends ties to
// even, where LuaJIT sends them away from zero. A tie needs the exact
// decimal expansion to end in a 5 right after the last digit kept, which
// only few doubles can: those cases are redone from the exact expansion.

// exactDigits is v's exact decimal expansion: digits without trailing
// zeros and the exponent of the first (v = d.ddd * 10^exp). x is v's
// decimal exponent or more: v = odd*2^e has at most x-min(e,0)+1
// significant digits.
func exactDigits(v float64, x int) ([]byte, int) {
	s := strconv.AppendFloat(nil, v, 'e', x-min(lowBit(v), 0)+1, 64)
	e := len(s) - 1
	for s[e] != 'e' {
		e--
	}
	exp, _ := strconv.Atoi(string(s[e+1:]))
	d := append(s[:1:1], s[2:e]...)
	for len(d) > 1 && d[len(d)-1] == '0' {
		d = d[:len(d)-1]
	}
	return d, exp
}

// roundDigits rounds the digit string d (value d.ddd * 10^exp) to n
// significant digits, ties away from zero; n may be 0 or negative (the
// value then rounds to 10^(exp+1) or to zero: digits nil).
func roundDigits(d []byte, exp, n int) ([]byte, int) {
	if n < 0 {
		return nil, exp
	}
	if len(d) <= n {
		for len(d) < n {
			d = append(d, '0')
		}
		return d, exp
	}
	up := d[n] >= '5'
	d = d[:n]
	if !up {
		if n == 0 {
			return nil, exp
		}
		return d, exp
	}
	i := n - 1
	for ; i >= 0 && d[i] == '9'; i-- {
		d[i] = '0'
	}
	if i >= 0 {
		d[i]++
		return d, exp
	}
	// All nines (or n == 0): the value became 10^(exp+1).
	d = append([]byte{'1'}, d...)
	if n > 0 {
		d = d[:n]
	}
	return d, exp + 1
}

// expForm is %e of v >= 0: d.ddde+XX with p digits after the point.
func expForm(out []byte, v float64, p int, alt, upper bool) []byte {
	digits, exp := expDigits(v, p)
	out = append(out, digits[0])
	if p > 0 || alt {
		out = append(out, '.')
	}
	out = append(out, digits[1:]...)
	return appendExponent(out, exp, upper)
}

// expDigits is v rounded to p+1 significant digits and its exponent.
func expDigits(v float64, p int) ([]byte, int) {
	if v == 0 {
		d := make([]byte, p+1)
		for i := range d {
			d[i] = '0'
		}
		return d, 0
	}
	var buf [32]byte
	s := strconv.AppendFloat(buf[:0], v, 'e', p, 64)
	e := len(s) - 1
	for s[e] != 'e' {
		e--
	}
	exp, _ := strconv.Atoi(string(s[e+1:]))
	// A tie at the last digit kept means v*2*10^(p-exp) is an odd integer,
	// which needs v's lowest bit at 2^(exp-p-1).
	if lowBit(v) == exp-p-1 {
		d, x := exactDigits(v, exp+1)
		return roundDigits(d, x, p+1)
	}
	d := append(make([]byte, 0, p+1), s[0])
	if e > 1 {
		d = append(d, s[2:e]...)
	}
	return d, exp
}

func appendExponent(out []byte, exp int, upper bool) []byte {
	if upper {
		out = append(out, 'E')
	} else {
		out = append(out, 'e')
	}
	if exp < 0 {
		out = append(out, '-')
		exp = -exp
	} else {
		out = append(out, '+')
	}
	if exp < 10 {
		out = append(out, '0')
	}
	return strconv.AppendInt(out, int64(exp), 10)
}

// fixedForm is %f of v >= 0 with p digits after the point.
func fixedForm(out []byte, v float64, p int, alt bool) []byte {
	// A tie needs v's lowest set bit at 2^-(p+1).
	if v != 0 && lowBit(v) == -(p+1) {
		d, x := exactDigits(v, int(math.Log10(v))+1)
		d, x = roundDigits(d, x, x+1+p)
		out = appendFixedDigits(out, d, x, p)
	} else {
		out = strconv.AppendFloat(out, v, 'f', p, 64)
	}
	if alt && p == 0 {
		out = append(out, '.')
	}
	return out
}

// appendFixedDigits writes d.ddd * 10^x with p digits after the point.
func appendFixedDigits(out []byte, d []byte, x, p int) []byte {
	digit := func(i int) byte { // digit at position i (0 is the first of d)
		if i >= 0 && i < len(d) {
			return d[i]
		}
		return '0'
	}
	if len(d) == 0 {
		x = 0
	}
	if x < 0 {
		out = append(out, '0')
	} else {
		for i := 0; i <= x; i++ {
			out = append(out, digit(i))
		}
	}
	if p > 0 {
		out = append(out, '.')
		for i := 1; i <= p; i++ {
			out = append(out, digit(x+i))
		}
	}
	return out
}

// generalForm is %g of v >= 0 with p significant digits (0 means 1): the
// %e or %f form as C chooses it, trailing zeros removed without '#'.
func generalForm(out []byte, v float64, p int, alt, upper bool) []byte {
	if p == 0 {
		p = 1
	}
	digits, exp := expDigits(v, p-1)
	start := len(out)
	if exp >= -4 && exp < p {
		// The %f form with p-1-exp decimals shows the same digits.
		dec := p - 1 - exp
		out = appendFixedDigits(out, digits, exp, dec)
		if alt && dec == 0 {
			out = append(out, '.')
		}
		if !alt {
			out = stripZeros(out, start)
		}
		return out
	}
	out = append(out, digits[0])
	if p > 1 || alt {
		out = append(out, '.')
		out = append(out, digits[1:]...)
	}
	if !alt {
		out = stripZeros(out, start)
	}
	return appendExponent(out, exp, upper)
}

// stripZeros drops trailing zeros after a decimal point in out[start:],
// and the point itself if nothing follows it.
func stripZeros(out []byte, start int) []byte {
	hasDot := false
	for _, c := range out[start:] {
		if c == '.' {
			hasDot = true
			break
		}
	}
	if !hasDot {
		return out
	}
	for out[len(out)-1] == '0' {
		out = out[:len(out)-1]
	}
	if out[len(out)-1] == '.' {
		out = out[:len(out)-1]
	}
	return out
}

// hexFloat is %a of v >= 0 as LuaJIT writes it: 0x1.8p+0, subnormals
// normalised, the shortest exact digits by default.
func hexFloat(out []byte, v float64, sp spec, upper bool) []byte {
	digits := "0123456789abcdefpx"
	if upper {
		digits = "0123456789ABCDEFPX"
	}
	b := math.Float64bits(v)
	e := int(b >> 52 & 0x7ff)
	m := b & (1<<52 - 1)
	switch {
	case e != 0:
		m |= 1 << 52
		e -= 1023
	case m != 0:
		shift := bits.LeadingZeros64(m) - 11
		e = -1022 - shift
		m <<= shift
	}
	prec := sp.prec
	if prec < 0 {
		if m&(1<<52-1) == 0 {
			prec = 0
		} else {
			prec = 13 - bits.TrailingZeros64(m&(1<<52-1))/4
		}
	} else if prec < 13 {
		m += 1 << (51 - 4*prec)
	}
	out = append(out, '0', digits[17], byte('0'+m>>52))
	if prec > 0 || sp.alt {
		out = append(out, '.')
		frac := m & (1<<52 - 1)
		for i := 0; i < prec; i++ {
			if i < 13 {
				out = append(out, digits[frac>>(48-4*i)&15])
			} else {
				out = append(out, '0')
			}
		}
	}
	out = append(out, digits[16])
	if e < 0 {
		out = append(out, '-')
		e = -e
	} else {
		out = append(out, '+')
	}
	return strconv.AppendInt(out, int64(e), 10)
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
