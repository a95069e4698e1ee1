package number

import (
	"math"
	"math/bits"
	"strconv"
)

// Format is LuaJIT's tostring of a number.
func Format(f float64) string {
	if s, ok := smallInt(f); ok {
		return s
	}
	var buf [32]byte
	return string(Append(buf[:0], f))
}

// smallInts holds the text of the integers most often turned to text
// (loop counters, ids, sizes), so Format of one does not allocate.
var smallInts = func() (t [256]string) {
	for i := range t {
		t[i] = strconv.Itoa(i)
	}
	return t
}()

func smallInt(f float64) (string, bool) {
	if f >= 0 && f < float64(len(smallInts)) && f == math.Trunc(f) && !(f == 0 && math.Signbit(f)) {
		return smallInts[int(f)], true
	}
	return "", false
}

// Append appends LuaJIT's tostring of f to dst: C's %.14g with ties
// rounded away from zero (123456789012345 is 1.2345678901235e+14, where
// glibc's printf gives ...234e+14), "inf", "-inf", "nan" for every NaN,
// and "-0".
func Append(dst []byte, f float64) []byte {
	// Integers of at most 14 digits print as themselves, the common case.
	if f == math.Trunc(f) && f > -1e14 && f < 1e14 {
		if f == 0 && math.Signbit(f) {
			return append(dst, '-', '0')
		}
		return strconv.AppendInt(dst, int64(f), 10)
	}
	switch {
	case math.IsNaN(f):
		return append(dst, "nan"...)
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	case f < 0:
		dst = append(dst, '-')
		f = -f
	}
	return appendG(dst, f, 14, false, false)
}

// AppendFloat appends v, finite and not negative, in C's conversion conv
// (one of a A e E f F g G) with precision prec (negative for C's
// default) and the '#' flag alt, as LuaJIT's string.format writes it:
// the value's exact binary expansion rounded with ties away from zero
// (%.0f of 2.5 is 3), %a with the shortest exact digits by default and
// subnormals normalised. Signs, inf, nan and padding are the caller's.
func AppendFloat(dst []byte, v float64, conv byte, prec int, alt bool) []byte {
	upper := conv >= 'A' && conv <= 'Z'
	switch conv | 0x20 {
	case 'a':
		return appendHex(dst, v, prec, alt, upper)
	case 'e':
		return appendE(dst, v, precOr6(prec), alt, upper)
	case 'f':
		return appendF(dst, v, precOr6(prec), alt)
	}
	return appendG(dst, v, precOr6(prec), alt, upper)
}

func precOr6(p int) int {
	if p < 0 {
		return 6
	}
	return p
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

// appendE is %e of v >= 0: d.ddde+XX with p digits after the point.
func appendE(out []byte, v float64, p int, alt, upper bool) []byte {
	var buf [40]byte
	digits, exp := expDigits(buf[:0], v, p)
	out = append(out, digits[0])
	if p > 0 || alt {
		out = append(out, '.')
	}
	out = append(out, digits[1:]...)
	return appendExponent(out, exp, upper)
}

// expDigits is v rounded to p+1 significant digits and its exponent; the
// digits are written in buf when they fit.
func expDigits(buf []byte, v float64, p int) ([]byte, int) {
	if v == 0 {
		d := buf[:0]
		for range p + 1 {
			d = append(d, '0')
		}
		return d, 0
	}
	s := strconv.AppendFloat(buf[:0], v, 'e', p, 64)
	e := len(s) - 1
	for s[e] != 'e' {
		e--
	}
	exp := 0
	for _, c := range s[e+2:] {
		exp = exp*10 + int(c-'0')
	}
	if s[e+1] == '-' {
		exp = -exp
	}
	// A tie at the last digit kept means v*2*10^(p-exp) is an odd integer,
	// which needs v's lowest bit at 2^(exp-p-1).
	if lowBit(v) == exp-p-1 {
		d, x := exactDigits(v, exp+1)
		return roundDigits(d, x, p+1)
	}
	// Drop the point and the exponent in place: d.ddd -> dddd.
	if e > 1 {
		copy(s[1:], s[2:e])
		return s[:e-1], exp
	}
	return s[:1], exp
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

// appendF is %f of v >= 0 with p digits after the point.
func appendF(out []byte, v float64, p int, alt bool) []byte {
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

// appendG is %g of v >= 0 with p significant digits (0 means 1): the %e
// or %f form as C chooses it, trailing zeros removed without '#'.
func appendG(out []byte, v float64, p int, alt, upper bool) []byte {
	if p == 0 {
		p = 1
	}
	var buf [40]byte
	digits, exp := expDigits(buf[:0], v, p-1)
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

// appendHex is %a of v >= 0 as LuaJIT writes it: 0x1.8p+0, subnormals
// normalised, the shortest exact digits when prec is negative.
func appendHex(out []byte, v float64, prec int, alt, upper bool) []byte {
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
	if prec > 0 || alt {
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
