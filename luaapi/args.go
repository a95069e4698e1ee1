package luaapi

import (
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// The LuaJIT libraries added here (bit, jit, math.random, table.new, ffi,
// 64-bit cdata, string.format) check their arguments the way LuaJIT's do,
// so scripts see LuaJIT's messages: "bad argument #1 to 'band' (number
// expected, got nil)", with the function named as at the call site.

// argError raises "bad argument #n to 'name' (msg)" at the calling Lua line.
func argError(L *lua.LState, n int, msg string) {
	L.RaiseError("bad argument #%d to '%s' (%s)", n, callName(L), msg)
}

// typeError raises argError for argument n not being a want.
func typeError(L *lua.LState, n int, want string) {
	argError(L, n, want+" expected, got "+argTypeName(L, n))
}

// callName is the name the calling Lua code used for the running Go
// function ("band" for bit.band(...), "f" for a local f), or "?" when
// there is none, as LuaJIT reports it.
func callName(L *lua.LState) string {
	dbg, ok := L.GetStack(0)
	if !ok {
		return "?"
	}
	if _, err := L.GetInfo("n", dbg, lua.LNil); err != nil {
		return "?"
	}
	name := dbg.Name
	if name == "" || name[0] == '(' || name[0] == '<' || name == "main chunk" {
		return "?"
	}
	return name
}

// argTypeName is LuaJIT's name for argument n's type: "no value" past the
// last argument, "cdata" for ffi values.
func argTypeName(L *lua.LState, n int) string {
	if n > L.GetTop() {
		return "no value"
	}
	return luaTypeName(L.Get(n))
}

// luaTypeName is type(v) as LuaJIT answers it.
func luaTypeName(v lua.LValue) string {
	if ud, ok := v.(*lua.LUserData); ok {
		if isFFIValue(ud) {
			return "cdata"
		}
		// The reference's SQL objects are ffi structs too (inspect() then
		// prints an error descriptor's connection as <sql_connection>).
		switch ud.Value.(type) {
		case *sqlDriver, *sqlConn, *sqlStmt, *sqlResult:
			return "cdata"
		}
	}
	return v.Type().String()
}

// checkNum is LuaJIT's lj_lib_checknum: a number, or a string that
// converts to one.
func checkNum(L *lua.LState, n int) float64 {
	switch v := L.Get(n).(type) {
	case lua.LNumber:
		return float64(v)
	case lua.LString:
		if f, ok := parseLuaNumber(string(v)); ok {
			return f
		}
	}
	typeError(L, n, "number")
	return 0
}

// checkInt is LuaJIT's lj_lib_checkint: checkNum truncated to 32 bits.
func checkInt(L *lua.LState, n int) int32 {
	return f2i32(checkNum(L, n))
}

// f2i64 converts like the x86-64 instruction C compilers use for
// (int64_t)d: truncation, and 0x8000000000000000 for NaN and for values out
// of range.
func f2i64(f float64) int64 {
	if f >= -9223372036854775808.0 && f < 9223372036854775808.0 {
		return int64(f)
	}
	return -1 << 63
}

// f2i32 is (int32_t)d on x86-64: truncation, 0x80000000 when out of range.
func f2i32(f float64) int32 {
	if f > -2147483649.0 && f < 2147483648.0 {
		return int32(f)
	}
	return -1 << 31
}

// f2u64 is LuaJIT's conversion of a double to uint64_t on x86-64: values
// from 2^63 wrap modulo 2^64, negative ones give 2^63.
func f2u64(f float64) uint64 {
	i := f2i64(f)
	if i < 0 {
		i = f2i64(f - 18446744073709551616.0)
	}
	return uint64(i)
}

// parseLuaNumber converts s as LuaJIT converts a string to a number (for
// tonumber, arithmetic and library arguments): surrounding white space,
// an optional sign, decimal with fraction and exponent, 0x hexadecimal
// with optional fraction and p exponent, 0b binary, inf, infinity and nan.
// No 64-bit suffixes and no octal, unlike gopher-lua's own conversion
// (which reads "010" as 8 and does not take "1e5").
func parseLuaNumber(s string) (float64, bool) {
	s = strings.Trim(s, " \t\n\v\f\r")
	body := s
	neg := false
	if body != "" && (body[0] == '+' || body[0] == '-') {
		neg = body[0] == '-'
		body = body[1:]
	}
	if body == "" {
		return 0, false
	}
	if c := body[0] | 0x20; c == 'i' || c == 'n' {
		switch strings.ToLower(body) {
		case "inf", "infinity":
			if neg {
				return math.Inf(-1), true
			}
			return math.Inf(1), true
		case "nan":
			return luajitNaN, true
		}
		return 0, false
	}
	base, digits := 10, body
	if len(body) >= 2 && body[0] == '0' {
		switch body[1] | 0x20 {
		case 'x':
			base, digits = 16, body[2:]
		case 'b':
			base, digits = 2, body[2:]
		}
	}
	mant, exp := digits, ""
	if base != 2 {
		expChar := "eE"
		if base == 16 {
			expChar = "pP"
		}
		if i := strings.IndexAny(digits, expChar); i >= 0 {
			mant, exp = digits[:i], digits[i+1:]
			if !validExponent(exp) {
				return 0, false
			}
		}
	}
	intPart, frac, hasDot := strings.Cut(mant, ".")
	if intPart == "" && frac == "" || hasDot && base == 2 ||
		!allDigits(intPart, base) || !allDigits(frac, base) {
		return 0, false
	}
	var text string
	switch base {
	case 2:
		text = "0x" + binToHex(intPart) + "p0"
	case 16:
		if exp == "" {
			exp = "0"
		}
		text = "0x0" + intPart + "." + frac + "0p" + exp
	default:
		text = mant
		if exp != "" {
			text += "e" + exp
		}
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !isRangeErr(err) {
		return 0, false
	}
	if neg {
		f = -f
	}
	return f, true
}

// luajitNaN is the NaN LuaJIT produces (x86's default NaN, sign bit set);
// its bits show through bit.tobit.
var luajitNaN = math.Float64frombits(0xfff8000000000000)

func validExponent(e string) bool {
	if e != "" && (e[0] == '+' || e[0] == '-') {
		e = e[1:]
	}
	return e != "" && allDigits(e, 10)
}

func allDigits(s string, base int) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '0' || c == '1':
		case c >= '2' && c <= '9' && base >= 10:
		case base == 16 && (c|0x20) >= 'a' && (c|0x20) <= 'f':
		default:
			return false
		}
	}
	return true
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// binToHex rewrites binary digits as hexadecimal ones, so that ParseFloat
// rounds numbers longer than 53 bits.
func binToHex(bits string) string {
	pad := (4 - len(bits)%4) % 4
	bits = strings.Repeat("0", pad) + bits
	hex := make([]byte, 0, len(bits)/4)
	for i := 0; i < len(bits); i += 4 {
		v := (bits[i]-'0')<<3 | (bits[i+1]-'0')<<2 | (bits[i+2]-'0')<<1 | (bits[i+3] - '0')
		hex = append(hex, "0123456789abcdef"[v])
	}
	return string(hex)
}
