package luajit

import (
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sysbench-go/sysbench-go/internal/testenv"

	lua "github.com/yuin/gopher-lua"
)

// TestStringFormat checks string.format: C's conversions as LuaJIT implements them, 64-bit cdata, its errors.
// The values come from luajit 2.1 (see luajit_test.go).
func TestStringFormat(t *testing.T) {
	runLuaJITCases(t, []luajitCase{
		// integers convert as LuaJIT converts a double to int64_t
		{"string.format(\"%d\", 2^53)", "\"9007199254740992\""},
		{"string.format(\"%d\", 2^63)", "\"-9223372036854775808\""},
		{"string.format(\"%d\", -2^63)", "\"-9223372036854775808\""},
		{"string.format(\"%d\", 1e20)", "\"-9223372036854775808\""},
		{"string.format(\"%d\", -1e20)", "\"-9223372036854775808\""},
		{"string.format(\"%d\", 0/0)", "\"-9223372036854775808\""},
		{"string.format(\"%d\", 1/0)", "\"-9223372036854775808\""},
		{"string.format(\"%d\", 3.7)", "\"3\""},
		{"string.format(\"%d\", -3.7)", "\"-3\""},
		{"string.format(\"%i\", 3.9)", "\"3\""},
		{"string.format(\"%d\", \"12\")", "\"12\""},
		{"string.format(\"%d\", \" 0x10 \")", "\"16\""},
		{"string.format(\"%d\", \"1e3\")", "\"1000\""},
		{"string.format(\"%x\", 2^40)", "\"10000000000\""},
		{"string.format(\"%x\", -1)", "\"ffffffffffffffff\""},
		{"string.format(\"%X\", -2^63)", "\"8000000000000000\""},
		{"string.format(\"%x\", 2^64)", "\"0\""},
		{"string.format(\"%x\", 2^63)", "\"8000000000000000\""},
		{"string.format(\"%x\", 1e20)", "\"8000000000000000\""},
		{"string.format(\"%x\", 0/0)", "\"8000000000000000\""},
		{"string.format(\"%u\", -1)", "\"18446744073709551615\""},
		{"string.format(\"%u\", 2^63)", "\"9223372036854775808\""},
		{"string.format(\"%u\", 2^64 + 2^12)", "\"4096\""},
		{"string.format(\"%o\", -1)", "\"1777777777777777777777\""},
		// 64-bit cdata print exactly
		{"string.format(\"%d\", LL\"5\")", "\"5\""},
		{"string.format(\"%d\", LL\"-9223372036854775808\")", "\"-9223372036854775808\""},
		{"string.format(\"%x\", LL\"-1\")", "\"ffffffffffffffff\""},
		{"string.format(\"%d\", ULL\"18446744073709551615\")", "\"-1\""},
		{"string.format(\"%u\", LL\"-1\")", "\"18446744073709551615\""},
		{"string.format(\"%05d\", LL\"42\")", "\"00042\""},
		{"string.format(\"%i\", ULL\"42\")", "\"42\""},
		{"string.format(\"%o\", LL\"8\")", "\"10\""},
		{"string.format(\"%X\", ULL\"255\")", "\"FF\""},
		{"string.format(\"%s\", LL\"5\")", "\"5LL\""},
		{"string.format(\"%5.1f\", LL\"5\")", "error: bad argument #2 to 'format' (number expected, got cdata)"},
		{"string.format(\"%c\", LL\"65\")", "error: bad argument #2 to 'format' (number expected, got cdata)"},
		{"string.format(\"%d\", ffi.new(\"int\", 5))", "error: bad argument #2 to 'format' (number expected, got cdata)"},
		// flags, width, precision
		{"string.format(\"%5d|\", 42)", "\"   42|\""},
		{"string.format(\"%-5d|\", 42)", "\"42   |\""},
		{"string.format(\"%05d\", -42)", "\"-0042\""},
		{"string.format(\"%+d\", 5)", "\"+5\""},
		{"string.format(\"% d\", 5)", "\" 5\""},
		{"string.format(\"%.3d\", 5)", "\"005\""},
		{"string.format(\"%.0d\", 0)", "\"\""},
		{"string.format(\"%#x\", 255)", "\"0xff\""},
		{"string.format(\"%#o\", 8)", "\"010\""},
		{"string.format(\"%#X\", 0)", "\"0\""},
		{"string.format(\"%+u\", 5)", "\"5\""},
		{"string.format(\"%+x\", 5)", "\"5\""},
		{"string.format(\"%--5d|\", 1)", "\"1    |\""},
		{"string.format(\"%-+ #0d\", 1)", "\"+1\""},
		{"string.format(\"%++d\", 1)", "\"+1\""},
		{"string.format(\"%-05d|\", 3)", "\"3    |\""},
		{"string.format(\"%010.3d\", 7)", "\"       007\""},
		{"string.format(\"%99d\", 1)", "\"                                                                                                  1\""},
		{"string.format(\"%.d\", 5)", "\"5\""},
		// floats: C's conversions, ties away from zero
		{"string.format(\"%5.2f\", 3.14159)", "\" 3.14\""},
		{"string.format(\"%5.2f\", -0.005)", "\"-0.01\""},
		{"string.format(\"%f\", 0)", "\"0.000000\""},
		{"string.format(\"%f\", -0.0)", "\"-0.000000\""},
		{"string.format(\"%.0f\", 0.5)", "\"1\""},
		{"string.format(\"%.0f\", 1.5)", "\"2\""},
		{"string.format(\"%.0f\", 2.5)", "\"3\""},
		{"string.format(\"%.0f\", 4.5)", "\"5\""},
		{"string.format(\"%.2f\", 0.125)", "\"0.13\""},
		{"string.format(\"%.1f\", 0.25)", "\"0.3\""},
		{"string.format(\"%.1f\", 0.05)", "\"0.1\""},
		{"string.format(\"%.2f\", 1.005)", "\"1.00\""},
		{"string.format(\"%.3f\", 2.0005)", "\"2.001\""},
		{"string.format(\"%.f\", 2.5)", "\"3\""},
		{"string.format(\"%.0f\", 9.5)", "\"10\""},
		{"string.format(\"%.1f\", 9.95)", "\"9.9\""},
		{"string.format(\"%.1f\", 99.75)", "\"99.8\""},
		{"string.format(\"%.20f\", 0.1)", "\"0.10000000000000000555\""},
		{"string.format(\"%.99f\", 1)", "\"1.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\""},
		{"string.format(\"%.0f\", 1e22)", "\"10000000000000000000000\""},
		{"string.format(\"%f\", 1e300)", "\"1000000000000000052504760255204420248704468581108159154915854115511802457988908195786371375080447864043704443832883878176942523235360430575644792184786706982848387200926575803737830233794788090059368953234970799945081119038967640880074652742780142494579258788820056842838115669472196386865459400540160.000000\""},
		{"string.format(\"%.3f\", 1e-300)", "\"0.000\""},
		{"string.format(\"%#.0f\", 5)", "\"5.\""},
		{"string.format(\"%010.2f\", -3.5)", "\"-000003.50\""},
		{"string.format(\"%-10.2f|\", 3.5)", "\"3.50      |\""},
		{"string.format(\"%+.1f\", 2)", "\"+2.0\""},
		{"string.format(\"% .1f\", 2)", "\" 2.0\""},
		{"string.format(\"%e\", 12345.678)", "\"1.234568e+04\""},
		{"string.format(\"%.0e\", 5)", "\"5e+00\""},
		{"string.format(\"%.0e\", 2.5)", "\"3e+00\""},
		{"string.format(\"%.0e\", 25)", "\"3e+01\""},
		{"string.format(\"%.1e\", 2.25e10)", "\"2.3e+10\""},
		{"string.format(\"%.3e\", 1.0625)", "\"1.063e+00\""},
		{"string.format(\"%#.0e\", 5)", "\"5.e+00\""},
		{"string.format(\"%E\", 1e-300)", "\"1.000000E-300\""},
		{"string.format(\"%e\", 0)", "\"0.000000e+00\""},
		{"string.format(\"%.0e\", 9.5)", "\"1e+01\""},
		{"string.format(\"%.2e\", 999.5)", "\"1.00e+03\""},
		{"string.format(\"%e\", 5e-324)", "\"4.940656e-324\""},
		{"string.format(\"%.20e\", 1/3)", "\"3.33333333333333314830e-01\""},
		{"string.format(\"%g\", 1/3)", "\"0.333333\""},
		{"string.format(\"%g\", 1e20)", "\"1e+20\""},
		{"string.format(\"%g\", 100000)", "\"100000\""},
		{"string.format(\"%g\", 1e6)", "\"1e+06\""},
		{"string.format(\"%g\", 1e-5)", "\"1e-05\""},
		{"string.format(\"%g\", 1e-4)", "\"0.0001\""},
		{"string.format(\"%g\", 0.0001234567)", "\"0.000123457\""},
		{"string.format(\"%g\", 0)", "\"0\""},
		{"string.format(\"%g\", 123456789)", "\"1.23457e+08\""},
		{"string.format(\"%#g\", 1)", "\"1.00000\""},
		{"string.format(\"%#g\", 1e-10)", "\"1.00000e-10\""},
		{"string.format(\"%.3g\", 1234567)", "\"1.23e+06\""},
		{"string.format(\"%.0g\", 0.5)", "\"0.5\""},
		{"string.format(\"%.1g\", 2.5)", "\"3\""},
		{"string.format(\"%.2g\", 2.5)", "\"2.5\""},
		{"string.format(\"%.1g\", 0.25)", "\"0.3\""},
		{"string.format(\"%.1g\", 0.95)", "\"0.9\""},
		{"string.format(\"%.2g\", 99.5)", "\"1e+02\""},
		{"string.format(\"%.14g\", 0.1)", "\"0.1\""},
		{"string.format(\"%.17g\", 0.1)", "\"0.10000000000000001\""},
		{"string.format(\"%.14g\", 2^63)", "\"9.2233720368548e+18\""},
		{"string.format(\"%.14g\", 123456789012345)", "\"1.2345678901235e+14\""},
		{"string.format(\"%10.3g|\", 3.14159)", "\"      3.14|\""},
		{"string.format(\"%-10g|\", 1e-10)", "\"1e-10     |\""},
		{"string.format(\"%010g\", -1.5)", "\"-0000001.5\""},
		{"string.format(\"%G\", 1e-10)", "\"1E-10\""},
		{"string.format(\"%g\", 5e-324)", "\"4.94066e-324\""},
		{"string.format(\"%.40g\", 5e-324)", "\"4.940656458412465441765687928682213723651e-324\""},
		// inf and nan as C spells them, padded with spaces only
		{"string.format(\"%f\", 0/0)", "\"nan\""},
		{"string.format(\"%f\", -(0/0))", "\"nan\""},
		{"string.format(\"%f\", 1/0)", "\"inf\""},
		{"string.format(\"%f\", -1/0)", "\"-inf\""},
		{"string.format(\"%5.1f\", 1/0)", "\"  inf\""},
		{"string.format(\"%-6f|\", 1/0)", "\"inf   |\""},
		{"string.format(\"%06f\", 1/0)", "\"   inf\""},
		{"string.format(\"%+f\", 1/0)", "\"+inf\""},
		{"string.format(\"% f\", 0/0)", "\" nan\""},
		{"string.format(\"%e\", 1/0)", "\"inf\""},
		{"string.format(\"%g\", 0/0)", "\"nan\""},
		{"string.format(\"%E\", 1/0)", "\"INF\""},
		{"string.format(\"%G\", 0/0)", "\"NAN\""},
		{"string.format(\"%a\", 1/0)", "\"inf\""},
		// %a
		{"string.format(\"%a\", 1.5)", "\"0x1.8p+0\""},
		{"string.format(\"%A\", -0.1)", "\"-0X1.999999999999AP-4\""},
		{"string.format(\"%a\", 0)", "\"0x0p+0\""},
		{"string.format(\"%a\", 1e-320)", "\"0x1.fap-1064\""},
		{"string.format(\"%.3a\", 1.5)", "\"0x1.800p+0\""},
		{"string.format(\"%.1a\", 1.96875)", "\"0x2.0p+0\""},
		{"string.format(\"%.0a\", 1.5)", "\"0x2p+0\""},
		{"string.format(\"%#.0a\", 1)", "\"0x1.p+0\""},
		{"string.format(\"%a\", 2^100)", "\"0x1p+100\""},
		{"string.format(\"%012a\", 1)", "\"0x0000001p+0\""},
		{"string.format(\"%+a\", 1)", "\"+0x1p+0\""},
		// strings and other values
		{"string.format(\"%s\", 5)", "\"5\""},
		{"string.format(\"%s\", 1e15)", "\"1e+15\""},
		{"string.format(\"%s\", 1e16)", "\"1e+16\""},
		{"string.format(\"%s\", 2^63)", "\"9.2233720368548e+18\""},
		{"string.format(\"%s\", -0.0)", "\"-0\""},
		{"string.format(\"%s\", 0.1)", "\"0.1\""},
		{"string.format(\"%s\", 1/3)", "\"0.33333333333333\""},
		{"string.format(\"%s\", 0/0)", "\"nan\""},
		{"string.format(\"%s\", nil)", "\"nil\""},
		{"string.format(\"%s\", true)", "\"true\""},
		{"string.format(\"%5s|\", \"ab\")", "\"   ab|\""},
		{"string.format(\"%-5s|\", \"ab\")", "\"ab   |\""},
		{"string.format(\"%.1s\", \"abc\")", "\"a\""},
		{"string.format(\"%5.1s|\", \"abc\")", "\"    a|\""},
		{"string.format(\"%.0s\", \"abc\")", "\"\""},
		{"string.format(\"%s\", \"a\\0b\")", "\"a\\0b\""},
		{"string.format(\"%5.3s|\", 12345)", "\"  123|\""},
		{"string.format(\"%.2s\", 3.14159)", "\"3.\""},
		{"string.format(\"%s %s\", \"a\", \"b\", \"c\")", "\"a b\""},
		{"string.format(\"%q\", \"a\\n\\\"b\\\\\\0c\\r\\1\\200\")", "\"\\\"a\\\\\\\n\\\\\\\"b\\\\\\\\\\\\0c\\\\13\\\\1\xc8\\\"\""},
		{"string.format(\"%q\", \"\\0011\")", "\"\\\"\\\\0011\\\"\""},
		{"string.format(\"%q\", \"\\127x\\0319\")", "\"\\\"\\\\127x\\\\0319\\\"\""},
		{"string.format(\"%q\", 5)", "\"\\\"5\\\"\""},
		{"string.format(\"%q\", 1/3)", "\"\\\"0.33333333333333\\\"\""},
		{"string.format(\"%c\", 65)", "\"A\""},
		{"string.format(\"%5c|\", 65)", "\"    A|\""},
		{"string.format(\"%-5c|\", 65)", "\"A    |\""},
		{"string.format(\"%c\", 256 + 65)", "\"A\""},
		{"string.format(\"%c\", 65.7)", "\"A\""},
		{"string.format(\"%c\", \"66\")", "\"B\""},
		{"string.format(\"%c%c%c\", 76, 117, 97)", "\"Lua\""},
		{"string.format(\"%p\", 1)", "\"NULL\""},
		{"string.format(\"%p\", nil)", "\"NULL\""},
		{"string.format(\"abc%%def\")", "\"abc%def\""},
		{"string.format(\"%%\")", "\"%\""},
		{"string.format(\"%5.2f%%\", 99.5)", "\"99.50%\""},
		{"string.format(12)", "\"12\""},
		{"string.format(1.5)", "\"1.5\""},
		// errors
		{"string.format(\"%y\", 1)", "error: invalid option '%y' to 'format'"},
		{"string.format(\"%100d\", 1)", "error: invalid option '%100' to 'format'"},
		{"string.format(\"%.100d\", 1)", "error: invalid option '%.100' to 'format'"},
		{"string.format(\"%\", 1)", "error: invalid option '%' to 'format'"},
		{"string.format(\"%5\", 1)", "error: invalid option '%5' to 'format'"},
		{"string.format(\"%ld\", 5)", "error: invalid option '%l' to 'format'"},
		{"string.format(\"%hd\", 5)", "error: invalid option '%h' to 'format'"},
		{"string.format(\"%d\")", "error: bad argument #2 to 'format' (value expected)"},
		{"string.format(\"%d %s\", 1)", "error: bad argument #3 to 'format' (value expected)"},
		{"string.format(\"%d\", {})", "error: bad argument #2 to 'format' (number expected, got table)"},
		{"string.format(\"%d\", \"x\")", "error: bad argument #2 to 'format' (number expected, got string)"},
		{"string.format(\"%f\", \"x\")", "error: bad argument #2 to 'format' (number expected, got string)"},
		{"string.format(\"%x\", true)", "error: bad argument #2 to 'format' (number expected, got boolean)"},
		{"string.format(\"%d\", nil)", "error: bad argument #2 to 'format' (number expected, got nil)"},
		{"string.format(\"%c\", nil)", "error: bad argument #2 to 'format' (number expected, got nil)"},
		{"string.format()", "error: bad argument #1 to 'format' (string expected, got no value)"},
		{"string.format({})", "error: bad argument #1 to 'format' (string expected, got table)"},
		{"(\"%d items\"):format(3)", "\"3 items\""},
		{"(\"%5.1f\"):format(2.25)", "\"  2.3\""},
	})
}

// TestStringFormatAgainstLuaJIT formats thousands of generated
// (conversion, number) pairs with luajit and with ours: rounding of ties,
// %g's choice of form, widths and flags over numbers of every magnitude.
func TestStringFormatAgainstLuaJIT(t *testing.T) {
	bin := testenv.Tool(t, "luajit", "apt-get install luajit")
	rng := rand.New(rand.NewPCG(1, 2))
	var in strings.Builder
	type pair struct{ format, value string }
	var pairs []pair
	for range 20000 {
		// Hexadecimal: luajit reads huge decimal numbers slowly.
		p := pair{randomSpec(rng), strconv.FormatFloat(randomNumber(rng), 'x', -1, 64)}
		pairs = append(pairs, p)
		in.WriteString(p.format + "\t" + p.value + "\n")
	}
	script := filepath.Join(t.TempDir(), "format.lua")
	src := `for line in io.lines() do
  local f, v = line:match("^(.-)\t(.*)$")
  io.write(string.format(f, tonumber(v)), "\n")
end`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, script)
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("luajit: %v", err)
	}
	want := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(want) != len(pairs) {
		t.Fatalf("luajit gave %d lines for %d pairs", len(want), len(pairs))
	}
	L := newLuaJITState(t)
	format := L.GetField(L.GetGlobal("string"), "format")
	bad := 0
	for i, p := range pairs {
		v, _ := strconv.ParseFloat(p.value, 64)
		if err := L.CallByParam(lua.P{Fn: format, NRet: 1, Protect: true}, lua.LString(p.format), lua.LNumber(v)); err != nil {
			t.Fatalf("%q %s: %v", p.format, p.value, err)
		}
		got := L.Get(-1).String()
		L.Pop(1)
		if got != want[i] {
			t.Errorf("string.format(%q, %s) = %q, luajit %q", p.format, p.value, got, want[i])
			if bad++; bad > 20 {
				t.FailNow()
			}
		}
	}
}

// randomSpec is a conversion with random flags, width and precision.
func randomSpec(rng *rand.Rand) string {
	var b strings.Builder
	b.WriteByte('%')
	for _, f := range "-+ #0" {
		if rng.IntN(5) == 0 {
			b.WriteRune(f)
		}
	}
	if rng.IntN(2) == 0 {
		b.WriteString(strconv.Itoa(rng.IntN(30)))
	}
	if rng.IntN(3) > 0 {
		b.WriteString("." + strconv.Itoa(rng.IntN(25)))
	}
	b.WriteByte("eEfgGdxaiuoX"[rng.IntN(12)])
	return b.String()
}

// randomNumber favours values with short binary expansions (where decimal
// ties happen) and spans the exponent range.
func randomNumber(rng *rand.Rand) float64 {
	var v float64
	switch rng.IntN(4) {
	case 0: // k/2^j: exact ties for some precision
		v = float64(rng.IntN(100000)) / float64(uint64(1)<<rng.IntN(20))
	case 1: // integers, some with trailing 5s
		v = float64(rng.IntN(1000000)) * math.Pow(10, float64(rng.IntN(8)))
		if rng.IntN(2) == 0 {
			v += 5 * math.Pow(10, float64(rng.IntN(4)))
		}
	case 2:
		v = rng.Float64() * math.Pow(10, float64(rng.IntN(60)-30))
	default:
		v = math.Float64frombits(rng.Uint64()&^(0x7ff<<52) | uint64(rng.IntN(2046)+1)<<52)
	}
	if rng.IntN(3) == 0 {
		v = -v
	}
	return v
}

func BenchmarkStringFormat(b *testing.B) {
	for _, bc := range []struct {
		format string
		arg    lua.LValue
	}{
		{"%d", lua.LNumber(123456)},
		{"%s", lua.LString("item-42")},
		{"(%d,%d,'%s',%f,'%s')", nil},
		{"%f", lua.LNumber(3.14159)},
		{"%.2f", lua.LNumber(1234.5678)},
		{"%g", lua.LNumber(1.0 / 3)},
	} {
		b.Run(bc.format, func(b *testing.B) {
			L := newLuaJITState(b)
			format := L.GetField(L.GetGlobal("string"), "format")
			args := []lua.LValue{lua.LString(bc.format), bc.arg}
			if bc.arg == nil {
				args = []lua.LValue{lua.LString(bc.format), lua.LNumber(7), lua.LNumber(42), lua.LString("name-x"), lua.LNumber(19.99), lua.LString("data")}
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := L.CallByParam(lua.P{Fn: format, NRet: 1}, args...); err != nil {
					b.Fatal(err)
				}
				L.Pop(1)
			}
		})
	}
}

// FuzzStringFormat: any format and number give a string or a Lua error,
// never a Go panic or Go's "%!" text.
func FuzzStringFormat(f *testing.F) {
	for _, s := range []string{"%d", "%5.2f", "%-+ #012.3e", "%q", "%a", "%.99g", "%", "%y", "%c%s%p"} {
		f.Add(s, 2.5)
	}
	f.Fuzz(func(t *testing.T, format string, n float64) {
		L := newLuaJITState(t)
		err := L.CallByParam(lua.P{Fn: L.GetField(L.GetGlobal("string"), "format"), NRet: 1, Protect: true},
			lua.LString(format), lua.LNumber(n), lua.LString("s"), lua.LNumber(n))
		if err != nil {
			if _, ok := err.(*lua.ApiError); !ok {
				t.Fatalf("%q: %v", format, err)
			}
			return
		}
		if s := L.Get(-1).String(); strings.Contains(s, "%!") && !strings.Contains(format, "!") {
			t.Fatalf("%q gave %q", format, s)
		}
	})
}
