package number

import (
	"errors"
	"math"
	"strconv"
)

// Kind is what a numeric literal denotes.
type Kind uint8

const (
	Float     Kind = iota // a double
	Int64                 // 123LL: a 64-bit signed integer (cdata)
	Uint64                // 123ULL: a 64-bit unsigned integer (cdata)
	Imaginary             // 12i: complex cdata
)

// Literal is a numeric literal read by LuaJIT's rules.
type Literal struct {
	Kind  Kind
	Value float64 // Float and Imaginary
	Bits  uint64  // Int64 (two's complement) and Uint64
	// Base is 2, 10 or 16; Integer is set when the text has no point,
	// exponent or suffix, and Digits is then its digits after any leading
	// zeros. OutOfRange marks a decimal float beyond a double's range.
	Base       int
	Integer    bool
	Digits     string
	OutOfRange bool
}

// ScanLiteral converts a numeric literal the way LuaJIT's lexer does: the
// decimal, 0x (with p exponents and fractions) and 0b forms, the LL, ULL
// and i suffixes in any case, and nothing else (no octal, no "_"). Its
// acceptance rules are those of LuaJIT's lj_strscan.c; the float values
// are correctly rounded, as LuaJIT's are.
func ScanLiteral(s string) (Literal, bool) {
	lit, ok := splitLiteral(s)
	if !ok {
		return lit.Literal, false
	}
	n := lit.Literal
	switch {
	case lit.format == fmtI64 || lit.format == fmtU64:
		if n.Bits, ok = lit.integer(); !ok {
			return n, false
		}
		n.Kind = Int64
		if lit.format == fmtU64 {
			n.Kind = Uint64
		}
		return n, true
	case n.Base == 2:
		x, ok := lit.integer()
		if !ok {
			return n, false
		}
		n.Value = float64(x)
	case n.Base == 16:
		text := lit.mantissa
		if !hasExponent(text) {
			text += "p0" // Go's hex floats need the exponent LuaJIT's may omit
		}
		if n.Value, ok, _ = parseFloat(text); !ok {
			return n, false
		}
	default:
		if n.Value, ok, n.OutOfRange = parseFloat(lit.mantissa); !ok {
			return n, false
		}
	}
	n.Kind = Float
	if lit.format == fmtImag {
		n.Kind = Imaginary
	}
	return n, true
}

// Formats a literal is scanned into (LuaJIT's StrScanFmt, less U32).
const (
	fmtNum = iota
	fmtImag
	fmtInt
	fmtI64
	fmtU64
)

// literal is a number's text taken apart by LuaJIT's rules.
type literal struct {
	Literal
	format   int    // fmtNum, fmtImag, fmtInt (no point, exponent or suffix), fmtI64, fmtU64
	mantissa string // the text without its suffix, for ParseFloat
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isXDigit(c byte) bool { return isDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'f' }

func hexValue(c byte) uint64 {
	if c <= '9' {
		return uint64(c - '0')
	}
	return uint64(c|0x20-'a') + 10
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
	class := isDigit
	lit.Base, lit.format = 10, fmtInt
	hasDigit, dp, p := false, -1, 0
	if at(0) <= '0' { // '0' or '.': base prefix, then leading zeros
		if at(0) == '0' {
			switch at(1) | 0x20 {
			case 'x':
				lit.Base, class, p = 16, isXDigit, 2
			case 'b':
				lit.Base, p = 2, 2
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
	for ; class(at(p)) || at(p) == '.'; p++ {
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
		if lit.Base == 2 {
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
		lit.Digits = s[sp:p]
	}
	if lit.Base == 16 && at(p)|0x20 == 'p' || lit.Base == 10 && at(p)|0x20 == 'e' {
		lit.format = fmtNum
		p++
		if at(p) == '+' || at(p) == '-' {
			p++
		}
		if !isDigit(at(p)) {
			return lit, false
		}
		x := int(at(p) & 15)
		for p++; isDigit(at(p)); p++ {
			if x = x*10 + int(at(p)&15); x >= maxExp {
				return lit, false
			}
		}
	}
	lit.mantissa = s[:p]
	lit.Integer = lit.format == fmtInt
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
	lit.Integer = false
	return lit, p == len(s)
}

// integer is the value of an LL/ULL or binary literal, which LuaJIT
// refuses when it does not fit 64 bits.
func (lit literal) integer() (uint64, bool) {
	var x uint64
	switch lit.Base {
	case 10:
		if len(lit.Digits) > 20 {
			return 0, false
		}
		for _, c := range []byte(lit.Digits) {
			d := uint64(c - '0')
			if x > (1<<64-1-d)/10 {
				return 0, false
			}
			x = x*10 + d
		}
	case 16:
		if len(lit.Digits) > 16 {
			return 0, false
		}
		for _, c := range []byte(lit.Digits) {
			x = x<<4 | hexValue(c)
		}
	case 2:
		if len(lit.Digits) > 64 {
			return 0, false
		}
		for _, c := range []byte(lit.Digits) {
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

// NaN is the NaN LuaJIT produces (x86's default NaN, sign bit set); its
// bits show through bit.tobit.
var NaN = math.Float64frombits(0xfff8000000000000)

// isSpace is C's isspace in the C locale, which LuaJIT's conversions skip.
func isSpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }

// Parse converts s as LuaJIT converts a string to a number (tonumber,
// arithmetic, library arguments): the literal forms its lexer takes, but
// no LL, ULL or i suffix, with white space around, a sign, and inf,
// infinity and nan in any case ("010" is 10, "0x10" 16, "0b101" 5).
func Parse(s string) (float64, bool) {
	// Plain decimal integers, the common case, need no scanning rules.
	if v, ok := parseDecimal(s); ok {
		return v, true
	}
	for len(s) > 0 && isSpace(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && isSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	if s == "" {
		return 0, false
	}
	if c := s[0] | 0x20; c == 'i' || c == 'n' {
		switch {
		case equalFold(s, "inf"), equalFold(s, "infinity"):
			if neg {
				return math.Inf(-1), true
			}
			return math.Inf(1), true
		case equalFold(s, "nan"):
			return NaN, true
		}
		return 0, false
	}
	n, ok := ScanLiteral(s)
	if !ok || n.Kind != Float {
		return 0, false
	}
	if neg {
		return -n.Value, true
	}
	return n.Value, true
}

// parseDecimal reads s when it is only an optional '-' and at most 15
// decimal digits, which a double holds exactly.
func parseDecimal(s string) (float64, bool) {
	i := 0
	if len(s) > 0 && s[0] == '-' {
		i = 1
	}
	if len(s) == i || len(s)-i > 15 {
		return 0, false
	}
	var x int64
	for ; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		x = x*10 + int64(c-'0')
	}
	if s[0] == '-' {
		if x == 0 {
			return math.Copysign(0, -1), true
		}
		return float64(-x), true
	}
	return float64(x), true
}

// equalFold compares s with a lower-case ASCII word, ignoring case.
func equalFold(s, word string) bool {
	if len(s) != len(word) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i]|0x20 != word[i] {
			return false
		}
	}
	return true
}
