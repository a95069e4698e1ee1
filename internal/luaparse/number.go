package luaparse

import (
	"errors"
	"strconv"
)

const numImaginary = numUint64 + 1

type numberValue struct {
	kind  int     // numFloat, numInt64, numUint64 or numImaginary
	value float64 // numFloat
	bits  uint64  // numInt64 (two's complement) and numUint64
	odd   bool    // gopher-lua's lexer would read the text otherwise
}

// Formats a literal is scanned into, in LuaJIT's order (the suffix
// arithmetic below relies on it).
const (
	fmtNum = iota
	fmtImag
	fmtInt
	fmtU32
	fmtI64
	fmtU64
)

// scanNumber converts a numeric literal the way LuaJIT's lexer does: with
// decimal, 0x (with p exponents and fractions) and 0b forms, the LL, ULL
// and i suffixes in any case, and nothing else (no octal, no "_"). Its
// acceptance rules are those of LuaJIT's lj_strscan.c; the float values
// are correctly rounded, as LuaJIT's are.
func scanNumber(s string) (n numberValue, ok bool) {
	const maxExp = 1 << 20 // exponents and fraction lengths LuaJIT refuses
	at := func(i int) byte {
		if i < len(s) {
			return s[i]
		}
		return 0
	}
	base, class := 10, uint8(chDigit)
	hasDigit, dp, p := false, -1, 0
	if at(0) <= '0' { // '0' or '.': base prefix, then leading zeros
		if at(0) == '0' {
			switch at(1) | 0x20 {
			case 'x':
				base, class, p = 16, chXDigit, 2
			case 'b':
				base, p = 2, 2
			}
		}
		for ; ; p++ {
			if at(p) == '0' {
				hasDigit = true
			} else if at(p) == '.' {
				if dp >= 0 {
					return n, false
				}
				dp = p
			} else {
				break
			}
		}
	}
	sp, dig := p, 0
	for ; ; p++ {
		if c := at(p); is(int(c), class) {
			dig++
		} else if c == '.' {
			if dp >= 0 {
				return n, false
			}
			dp = p
		} else {
			break
		}
	}
	if !hasDigit && dig == 0 {
		return n, false
	}
	format, ex := fmtInt, 0
	if dp >= 0 {
		if base == 2 {
			return n, false
		}
		format = fmtNum
		if dig > 0 {
			ex = dp - (p - 1)
			for q := p - 1; ex < 0 && s[q] == '0'; q-- {
				ex++
				dig--
			}
			if ex <= -maxExp {
				return n, false
			}
		}
	}
	numEnd := p // end of the part ParseFloat reads
	if base >= 10 && (base == 16 && at(p)|0x20 == 'p' || base == 10 && at(p)|0x20 == 'e') {
		format = fmtNum
		p++
		if at(p) == '+' || at(p) == '-' {
			p++
		}
		if !is(int(at(p)), chDigit) {
			return n, false
		}
		x := int(at(p) & 15)
		for p++; is(int(at(p)), chDigit); p++ {
			if x = x*10 + int(at(p)&15); x >= maxExp {
				return n, false
			}
		}
		numEnd = p
	}
	if p < len(s) {
		if at(p)|0x20 == 'i' {
			p++
			format = fmtImag
		} else if format == fmtInt {
			if at(p)|0x20 == 'u' {
				p++
				format = fmtU32
			}
			if at(p)|0x20 == 'l' {
				p++
				if at(p)|0x20 != 'l' {
					return n, false // a lone L is C's long: refused
				}
				p++
				format += fmtI64 - fmtInt
			}
			if at(p)|0x20 == 'u' && (format == fmtInt || format == fmtI64) {
				p++
				format += fmtU32 - fmtInt
			}
			if format == fmtU32 {
				return n, false // a 32-bit U suffix is for C declarations only
			}
		}
		if p < len(s) {
			return n, false
		}
	}

	n.odd = base == 2 || format != fmtInt && format != fmtNum ||
		base == 10 && s[0] == '0' && is(int(at(1)), chDigit) ||
		base == 16 && (format == fmtNum || dig > 16 || dig == 16 && hexValue(int(s[sp])) >= 8)
	if format == fmtI64 || format == fmtU64 {
		var x uint64
		switch base {
		case 10:
			if dig > 20 {
				return n, false
			}
			for _, c := range []byte(s[sp : sp+dig]) {
				d := uint64(c - '0')
				if x > (1<<64-1-d)/10 {
					return n, false // LuaJIT refuses 64-bit literals that do not fit
				}
				x = x*10 + d
			}
		case 16:
			if dig > 16 {
				return n, false
			}
			for _, c := range []byte(s[sp : sp+dig]) {
				x = x<<4 | uint64(hexValue(int(c)))
			}
		case 2:
			if dig > 64 {
				return n, false
			}
			for _, c := range []byte(s[sp : sp+dig]) {
				if c > '1' {
					return n, false
				}
				x = x<<1 | uint64(c-'0')
			}
		}
		n.kind, n.bits = numInt64, x
		if format == fmtU64 {
			n.kind = numUint64
		}
		return n, true
	}

	switch base {
	case 2:
		if dig > 64 {
			return n, false
		}
		var x uint64
		for _, c := range []byte(s[sp : sp+dig]) {
			if c > '1' {
				return n, false
			}
			x = x<<1 | uint64(c-'0')
		}
		n.value = float64(x)
	case 16:
		text := s[:numEnd]
		if !hasExponent(text) {
			text += "p0" // Go's hex floats need the exponent LuaJIT's may omit
		}
		if n.value, ok, _ = parseFloat(text); !ok {
			return n, false
		}
	default:
		var outOfRange bool
		if n.value, ok, outOfRange = parseFloat(s[:numEnd]); !ok {
			return n, false
		}
		n.odd = n.odd || outOfRange // gopher-lua makes those NaN
	}
	n.kind = numFloat
	if format == fmtImag {
		n.kind = numImaginary
	}
	return n, true
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
