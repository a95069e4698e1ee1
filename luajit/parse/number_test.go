package parse

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/yuin/gopher-lua/ast"
)

// Float literals and the value LuaJIT 2.1 gives them, as its
// string.format("%a") prints it.
var floatLiterals = []struct{ lit, want string }{
	{`0`, "0x0p+0"},
	{`1`, "0x1p+0"},
	{`010`, "0x1.4p+3"}, // decimal: no octal
	{`0010`, "0x1.4p+3"},
	{`1e5`, "0x1.86ap+16"},
	{`1E+5`, "0x1.86ap+16"},
	{`.5`, "0x1p-1"},
	{`5.`, "0x1.4p+2"},
	{`0.1`, "0x1.999999999999ap-4"},
	{`3.14159`, "0x1.921f9f01b866ep+1"},
	{`1e308`, "0x1.1ccf385ebc8ap+1023"},
	{`1.7976931348623157e308`, "0x1.fffffffffffffp+1023"},
	{`1.7976931348623158e308`, "0x1.fffffffffffffp+1023"},
	{`1.797693134862315807e308`, "0x1.fffffffffffffp+1023"},
	{`1e309`, "inf"},
	{`1e400`, "inf"},
	{`4.9e-324`, "0x1p-1074"},
	{`2.4703282292062328e-324`, "0x1p-1074"},
	{`2.4703282292062327e-324`, "0x0p+0"},
	{`1e-400`, "0x0p+0"},
	{`9007199254740993`, "0x1p+53"},
	{`9223372036854775807`, "0x1p+63"},
	{`9223372036854775808`, "0x1p+63"},
	{`18446744073709551615`, "0x1p+64"},
	{`18446744073709551616`, "0x1p+64"},
	{`123456789012345678901234567890`, "0x1.8ee90ff6c373ep+96"},
	{`0x10`, "0x1p+4"},
	{`0XfF`, "0x1.fep+7"},
	{`0x7fffffffffffffff`, "0x1p+63"},
	{`0x8000000000000000`, "0x1p+63"},
	{`0xffffffffffffffff`, "0x1p+64"},
	{`0x10000000000000000`, "0x1p+64"},
	{`0x1fffffffffffff`, "0x1.fffffffffffffp+52"},
	{`0x20000000000001`, "0x1p+53"},
	{`0x1.8p1`, "0x1.8p+1"},
	{`0x.1`, "0x1p-4"},
	{`0x1.`, "0x1p+0"},
	{`0x1P+4`, "0x1p+4"},
	{`0x1p-1074`, "0x1p-1074"},
	{`0x1p-1075`, "0x0p+0"},
	{`0x1.8p-1075`, "0x1p-1074"},
	{`0x1p1024`, "inf"},
	{`0x1.fffffffffffffp1023`, "0x1.fffffffffffffp+1023"},
	{`0x1.fffffffffffff8p1023`, "inf"},
	{`0xA.8p0`, "0x1.5p+3"},
	{`0x0.0000000000001p-1022`, "0x1p-1074"},
	{`0b101`, "0x1.4p+2"},
	{`0B11`, "0x1.8p+1"},
	{`0b1111111111111111111111111111111111111111111111111111111111111111`, "0x1p+64"},
	{`1e1048575`, "inf"},
	{`1e-1048575`, "0x0p+0"},
	{`0e0`, "0x0p+0"},
	{`00.5`, "0x1p-1"},
	{`0x00010`, "0x1p+4"},
}

// 64-bit integer literals and LuaJIT's tostring of the cdata they make.
var int64Literals = []struct{ lit, want string }{
	{`0ULL`, "0ULL"},
	{`123LL`, "123LL"},
	{`0x10ULL`, "16ULL"},
	{`0x10ll`, "16LL"},
	{`18446744073709551615LL`, "-1LL"}, // LL wraps above 2^63-1
	{`18446744073709551615ULL`, "18446744073709551615ULL"},
	{`9223372036854775808LL`, "-9223372036854775808LL"},
	{`9223372036854775807LL`, "9223372036854775807LL"},
	{`1llu`, "1ULL"},
	{`1LLU`, "1ULL"},
	{`1uLL`, "1ULL"},
	{`0b101LL`, "5LL"},
	{`0xffffffffffffffffULL`, "18446744073709551615ULL"},
	{`00000000000000000000000001LL`, "1LL"},
	{`12345678901234567890ULL`, "12345678901234567890ULL"},
}

func parseHexFloat(t testing.TB, s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("bad expectation %q: %v", s, err)
	}
	return v
}

// literalValue parses "return <lit>" and gives the value of the literal
// as gopher-lua's compiler would load it ("123LL" style for 64-bit calls),
// or the error; "" when the text is no single literal.
func literalValue(t testing.TB, lit string) string {
	chunk, err := Parse(strings.NewReader("return "+lit), "x.lua")
	if err != nil {
		return err.Error()
	}
	ret := chunk[0].(*ast.ReturnStmt)
	if len(ret.Exprs) != 1 {
		return ""
	}
	switch e := ret.Exprs[0].(type) {
	case *ast.NumberExpr:
		return compiledNumber(e.Value)
	case *ast.FuncCallExpr:
		args := e.Args
		if fn, ok := e.Func.(*ast.IdentExpr); !ok || fn.Value != Int64LiteralFunc || len(args) != 2 || !e.AdjustRet {
			return ""
		}
		return args[0].(*ast.StringExpr).Value + args[1].(*ast.StringExpr).Value
	}
	return ""
}

func TestFloatLiterals(t *testing.T) {
	for _, tc := range floatLiterals {
		t.Run(tc.lit, func(t *testing.T) {
			want := compiledNumber(formatNumber(parseHexFloat(t, tc.want)))
			if got := literalValue(t, tc.lit); got != want {
				t.Errorf("%s: got %s, LuaJIT %s (%s)", tc.lit, got, want, tc.want)
			}
		})
	}
}

func TestInt64Literals(t *testing.T) {
	for _, tc := range int64Literals {
		t.Run(tc.lit, func(t *testing.T) {
			if got := literalValue(t, tc.lit); got != tc.want {
				t.Errorf("%s: got %s, LuaJIT %s", tc.lit, got, tc.want)
			}
		})
	}
}

func TestImaginaryLiteralRefused(t *testing.T) {
	for _, lit := range []string{"12i", "1.5I", "0x10i", "1e3i"} {
		_, err := Parse(strings.NewReader("x = "+lit), "x.lua")
		want := "x.lua:1: imaginary number (complex cdata) literals are not supported by sysbench-go near '" + lit + "'"
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %s", lit, err, want)
		}
	}
}

// TestFormatNumberRoundTrips: every float64 a literal can give survives
// gopher-lua's reading of the text formatNumber writes.
func TestFormatNumberRoundTrips(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	values := []float64{0, 1, 16, math.MaxFloat64, math.SmallestNonzeroFloat64, math.Inf(1),
		1 << 53, 1<<53 + 2, 1 << 63, 1 << 64, 0.1, 1e21, 1e-7, 123456789}
	for range 10000 {
		values = append(values, math.Abs(math.Float64frombits(r.Uint64())))
	}
	for _, v := range values {
		if math.IsNaN(v) {
			continue
		}
		want := strconv.FormatUint(math.Float64bits(v), 16)
		if got := compiledNumber(formatNumber(v)); !strings.HasPrefix(got, want+"=") {
			t.Fatalf("%v: written %q, read back %s", v, formatNumber(v), got)
		}
	}
}

// randomLiteral makes number literals of every form LuaJIT reads, and
// some it refuses.
func randomLiteral(r *rand.Rand) string {
	digits := func(set string, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = set[r.IntN(len(set))]
		}
		return string(b)
	}
	dec, hex := "0123456789", "0123456789abcdefABCDEF"
	switch r.IntN(8) {
	case 0:
		return digits(dec, 1+r.IntN(25))
	case 1:
		return digits(dec, r.IntN(20)) + "." + digits(dec, r.IntN(20)+1)
	case 2:
		return digits(dec, 1+r.IntN(20)) + "e" + []string{"", "+", "-"}[r.IntN(3)] + strconv.Itoa(r.IntN(700))
	case 3:
		return "0x" + digits(hex, 1+r.IntN(20))
	case 4:
		return "0x" + digits(hex, r.IntN(18)) + "." + digits(hex, 1+r.IntN(18)) + "p" + strconv.Itoa(r.IntN(2200)-1100)
	case 5:
		return "0b" + digits("01", 1+r.IntN(70))
	case 6:
		return []string{"", "0x"}[r.IntN(2)] + digits(dec, 1+r.IntN(21)) + []string{"LL", "ULL", "ll", "uLL", "LLU"}[r.IntN(5)]
	default:
		return digits(dec, 1+r.IntN(3)) + digits("e.x+-pLUb_", 1+r.IntN(3)) + digits(dec, r.IntN(3))
	}
}

// TestLiteralsAgreeWithLuaJIT compares many generated literals with what
// LuaJIT makes of them, bit for bit.
func TestLiteralsAgreeWithLuaJIT(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var lits, sources []string
	for range 4000 {
		lit := randomLiteral(r)
		lits = append(lits, lit)
		// The value is printed as a load error, the one channel luajitLoad has.
		sources = append(sources, fmt.Sprintf("local v = %s\nif type(v) == 'number' then v = string.format('%%a', v) end\nerror(tostring(v), 0)", lit))
	}
	results := luajitRun(t, sources)
	compared := 0
	defer func() { t.Logf("%d of %d literals compared", compared, len(lits)) }()
	for i, lit := range lits {
		want := results[i]
		got := literalValue(t, lit)
		if got == "" || strings.Contains(got, "sysbench-go") {
			continue // an expression, or complex cdata (refused on purpose)
		}
		compared++
		if strings.HasPrefix(want, "x.lua:") { // refused by LuaJIT too
			if strings.Contains(want, "malformed number") && got != want {
				t.Errorf("%s: LuaJIT %q, ours %q", lit, want, got)
			}
			continue
		}
		if !strings.HasSuffix(want, "LL") {
			want = compiledNumber(formatNumber(parseHexFloat(t, want)))
		}
		if got != want {
			t.Errorf("%s: LuaJIT %s, ours %s", lit, want, got)
		}
	}
}
