package luaparse

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

const numImaginary = numUint64 + 1

type numberValue struct {
	kind  int     // numFloat, numInt64, numUint64 or numImaginary
	value float64 // numFloat
	bits  uint64  // numInt64 (two's complement) and numUint64
	odd   bool    // gopher-lua's lexer would read the text otherwise
}

// Formats a literal is scanned into (LuaJIT's StrScanFmt, less U32).
const (
	fmtNum = iota
	fmtImag
	fmtInt
	fmtI64
	fmtU64
)

// scanNumber converts a numeric literal the way LuaJIT's lexer does: with
// decimal, 0x (with p exponents and fractions) and 0b forms, the LL, ULL
// and i suffixes in any case, and nothing else (no octal, no "_"). Its
// acceptance rules are those of LuaJIT's lj_strscan.c; the float values
// are correctly rounded, as LuaJIT's are.
func scanNumber(s string) (n numberValue, ok bool) {
	lit, ok := splitLiteral(s)
	if !ok {
		return n, false
	}
	n.odd = lit.base == 2 || lit.format != fmtInt && lit.format != fmtNum ||
		lit.base == 10 && s[0] == '0' && len(s) > 1 && is(int(s[1]), chDigit) ||
		lit.base == 16 && (lit.format == fmtNum || len(lit.digits) > 16 ||
			len(lit.digits) == 16 && hexValue(int(lit.digits[0])) >= 8)
	switch {
	case lit.format == fmtI64 || lit.format == fmtU64:
		if n.bits, ok = lit.integer(); !ok {
			return n, false
		}
		n.kind = numInt64
		if lit.format == fmtU64 {
			n.kind = numUint64
		}
		return n, true
	case lit.base == 2:
		x, ok := lit.integer()
		if !ok {
			return n, false
		}
		n.value = float64(x)
	case lit.base == 16:
		text := lit.mantissa
		if !hasExponent(text) {
			text += "p0" // Go's hex floats need the exponent LuaJIT's may omit
		}
		if n.value, ok, _ = parseFloat(text); !ok {
			return n, false
		}
	default:
		var outOfRange bool
		if n.value, ok, outOfRange = parseFloat(lit.mantissa); !ok {
			return n, false
		}
		n.odd = n.odd || outOfRange // gopher-lua makes those NaN
	}
	n.kind = numFloat
	if lit.format == fmtImag {
		n.kind = numImaginary
	}
	return n, true
}

// literal is a number's text taken apart by LuaJIT's rules.
type literal struct {
	base     int
	format   int    // fmtNum, fmtImag, fmtInt (no point, exponent or suffix), fmtI64, fmtU64
	digits   string // an integer's digits after its leading zeros
	mantissa string // the text without its suffix, for ParseFloat
}

// splitLiteral checks s against LuaJIT's number syntax.
func splitLiteral(s string) (lit literal, ok bool) {
	const maxExp = 1 << 20 // exponents and fraction lengths LuaJIT refuses
	at := func(i int) byte {
		if i < len(s) {
			return s[i]
		}
		return 0
	}
	class := uint8(chDigit)
	lit.base, lit.format = 10, fmtInt
	hasDigit, dp, p := false, -1, 0
	if at(0) <= '0' { // '0' or '.': base prefix, then leading zeros
		if at(0) == '0' {
			switch at(1) | 0x20 {
			case 'x':
				lit.base, class, p = 16, chXDigit, 2
			case 'b':
				lit.base, p = 2, 2
			}
		}
		for ; at(p) == '0' || at(p) == '.'; p++ {
			if at(p) == '0' {
				hasDigit = true
			} else if dp >= 0 {
				return lit, false
			} else {
				dp = p
			}
		}
	}
	sp, dig := p, 0
	for ; is(int(at(p)), class) || at(p) == '.'; p++ {
		if at(p) != '.' {
			dig++
		} else if dp >= 0 {
			return lit, false
		} else {
			dp = p
		}
	}
	if !hasDigit && dig == 0 {
		return lit, false
	}
	if dp >= 0 {
		if lit.base == 2 {
			return lit, false
		}
		lit.format = fmtNum
		// LuaJIT counts the fraction's digits without trailing zeros.
		fraction := p - 1 - dp
		for q := p - 1; fraction > 0 && s[q] == '0'; q-- {
			fraction--
		}
		if dig > 0 && fraction >= maxExp {
			return lit, false
		}
	} else {
		lit.digits = s[sp:p]
	}
	if lit.base == 16 && at(p)|0x20 == 'p' || lit.base == 10 && at(p)|0x20 == 'e' {
		lit.format = fmtNum
		p++
		if at(p) == '+' || at(p) == '-' {
			p++
		}
		if !is(int(at(p)), chDigit) {
			return lit, false
		}
		x := int(at(p) & 15)
		for p++; is(int(at(p)), chDigit); p++ {
			if x = x*10 + int(at(p)&15); x >= maxExp {
				return lit, false
			}
		}
	}
	lit.mantissa = s[:p]
	if p == len(s) {
		return lit, true
	}
	switch {
	case at(p)|0x20 == 'i':
		p++
		lit.format = fmtImag
	case lit.format == fmtInt:
		u := at(p)|0x20 == 'u'
		if u {
			p++
		}
		if at(p)|0x20 != 'l' || at(p+1)|0x20 != 'l' {
			return lit, false // U and L alone are C's 32-bit and long: refused
		}
		p += 2
		if !u && at(p)|0x20 == 'u' {
			u = true
			p++
		}
		lit.format = fmtI64
		if u {
			lit.format = fmtU64
		}
	}
	return lit, p == len(s)
}

// integer is the value of an LL/ULL or binary literal, which LuaJIT
// refuses when it does not fit 64 bits.
func (lit literal) integer() (uint64, bool) {
	var x uint64
	switch lit.base {
	case 10:
		if len(lit.digits) > 20 {
			return 0, false
		}
		for _, c := range []byte(lit.digits) {
			d := uint64(c - '0')
			if x > (1<<64-1-d)/10 {
				return 0, false
			}
			x = x*10 + d
		}
	case 16:
		if len(lit.digits) > 16 {
			return 0, false
		}
		for _, c := range []byte(lit.digits) {
			x = x<<4 | uint64(hexValue(int(c)))
		}
	case 2:
		if len(lit.digits) > 64 {
			return 0, false
		}
		for _, c := range []byte(lit.digits) {
			if c > '1' {
				return 0, false // "0b12": LuaJIT takes any digit, then refuses it
			}
			x = x<<1 | uint64(c-'0')
		}
	}
	return x, true
}

// hasExponent reports whether a hex literal has its "p" exponent.
func hasExponent(hex string) bool {
	for i := 2; i < len(hex); i++ {
		if hex[i]|0x20 == 'p' {
			return true
		}
	}
	return false
}

// parseFloat converts validated text; out of range is ±Inf or 0, as in
// LuaJIT. Text the checks above let through is always Go syntax.
func parseFloat(s string) (v float64, ok, outOfRange bool) {
	v, err := strconv.ParseFloat(s, 64)
	outOfRange = errors.Is(err, strconv.ErrRange)
	return v, err == nil || outOfRange, outOfRange
}

// formatNumber writes v so that gopher-lua's compiler (strconv.ParseInt,
// then strconv.ParseFloat) reads back exactly v.
func formatNumber(v float64) string {
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// NaN is the NaN LuaJIT produces (x86's default NaN, sign bit set); its
// bits show through bit.tobit.
var NaN = math.Float64frombits(0xfff8000000000000)

// Number converts s as LuaJIT converts a string to a number (tonumber,
// arithmetic, library arguments): the literal forms its lexer takes, but
// no LL, ULL or i suffix, with white space around, a sign, and inf,
// infinity and nan in any case.
func Number(s string) (float64, bool) {
	s = strings.Trim(s, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	if s == "" {
		return 0, false
	}
	if c := s[0] | 0x20; c == 'i' || c == 'n' {
		switch strings.ToLower(s) {
		case "inf", "infinity":
			if neg {
				return math.Inf(-1), true
			}
			return math.Inf(1), true
		case "nan":
			return NaN, true
		}
		return 0, false
	}
	n, ok := scanNumber(s)
	if !ok || n.kind != numFloat {
		return 0, false
	}
	if neg {
		return -n.value, true
	}
	return n.value, true
}
