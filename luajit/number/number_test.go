package number

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

var update = flag.Bool("update", false, "re-record testdata/*.txt with luajit")

// The values below are luajit 2.1.0-beta3's (the build sysbench 1.0.20
// runs on): tostring(v) and tonumber(s).

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0, "0"},
		{math.Copysign(0, -1), "-0"},
		{1, "1"},
		{-1, "-1"},
		{255, "255"},
		{256, "256"},
		{0.1 + 0.2, "0.3"},
		{1e15, "1e+15"},
		{1 << 53, "9.007199254741e+15"},
		{1.0 / 3, "0.33333333333333"},
		{math.Inf(1), "inf"},
		{math.Inf(-1), "-inf"},
		{math.NaN(), "nan"},
		{-math.NaN(), "nan"},
		{NaN, "nan"},
		{123456789012345, "1.2345678901235e+14"}, // a tie: away from zero (glibc: ...234e+14)
		{-123456789012345, "-1.2345678901235e+14"},
		{1e14, "1e+14"},
		{1e14 - 1, "99999999999999"},
		{99999999999999.5, "1e+14"},
		{1e-5, "1e-05"},
		{0.0001, "0.0001"},
		{1e100, "1e+100"},
		{-1e-300, "-1e-300"},
		{1 << 63, "9.2233720368548e+18"},
		{5e-324, "4.9406564584125e-324"},
		{math.MaxFloat64, "1.7976931348623e+308"},
		{1.5, "1.5"},
		{-2.5, "-2.5"},
		{2526.6000000000004, "2526.6"},
		{0.5e-4, "5e-05"},
		{100, "100"},
		{-100, "-100"},
		{12345678901234.5, "12345678901235"}, // a tie in %f form
		{0.000123456789012345, "0.00012345678901234"},
	} {
		if got := Format(tc.v); got != tc.want {
			t.Errorf("Format(%v) = %q, LuaJIT %q", tc.v, got, tc.want)
		}
		if got := string(Append([]byte("x"), tc.v)); got != "x"+tc.want {
			t.Errorf("Append(%v) = %q, LuaJIT %q", tc.v, got, "x"+tc.want)
		}
	}
}

func TestParse(t *testing.T) {
	const no = "nil"
	for _, tc := range []struct{ s, want string }{
		{"10", "10"},
		{"-10", "-10"},
		{"-0", "-0"},
		{"010", "10"}, // no octal
		{"08", "8"},
		{"0x10", "16"},
		{"0X1P-2", "0.25"},
		{"0x1.8", "1.5"},
		{"0b101", "5"},
		{"1e5", "100000"},
		{"01e1", "10"},
		{"1.", "1"},
		{".5", "0.5"},
		{"+1", "1"},
		{"1.5e3 ", "1500"},
		{"\v1\f", "1"},
		{"\r1\r", "1"},
		{"\t0x10\n", "16"},
		{"5e-400", "0"},
		{"1e400", "inf"},
		{"-1e400", "-inf"},
		{"Inf", "inf"},
		{"-INF", "-inf"},
		{"+inf", "inf"},
		{"infinity", "inf"},
		{"NaN", "nan"},
		{"-nan", "nan"},
		{"123456789012345678", "1.2345678901235e+17"},
		{"1\x00", no},
		{" 1\x00", no},
		{"0x", no},
		{"0x.", no},
		{".", no},
		{"-", no},
		{"- 1", no},
		{"--1", no},
		{"+-1", no},
		{"1e", no},
		{"1e+", no},
		{"0x1p", no},
		{"1_0", no},
		{"0o17", no},
		{"infinit", no},
		{"0b", no},
		{"0b2", no},
		{"0b1.1", no},
		{"1ULL", no},
		{"1LL", no},
		{"1i", no},
		{"0x1i", no},
		{"1e1.5", no},
		{"", no},
		{"  ", no},
	} {
		got := no
		if v, ok := Parse(tc.s); ok {
			got = Format(v)
		}
		if got != tc.want {
			t.Errorf("Parse(%q) = %s, LuaJIT %s", tc.s, got, tc.want)
		}
	}
}

func TestAppendFloat(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		conv byte
		prec int
		alt  bool
		want string
	}{
		{2.5, 'f', 0, false, "3"}, // ties away from zero (glibc: 2)
		{0.125, 'f', 2, false, "0.13"},
		{1, 'f', 0, true, "1."},
		{1e21, 'f', -1, false, "1000000000000000000000.000000"},
		{12345.6789, 'e', 3, false, "1.235e+04"},
		{0, 'e', -1, false, "0.000000e+00"},
		{1e-10, 'G', 3, false, "1E-10"},
		{100, 'g', 0, false, "1e+02"},
		{0.0001, 'g', -1, true, "0.000100000"},
		{1.5, 'a', -1, false, "0x1.8p+0"},
		{1, 'A', 2, false, "0X1.00P+0"},
		{5e-324, 'a', -1, false, "0x1p-1074"},
	} {
		if got := string(AppendFloat(nil, tc.v, tc.conv, tc.prec, tc.alt)); got != tc.want {
			t.Errorf("%%%c prec %d of %v = %q, LuaJIT %q", tc.conv, tc.prec, tc.v, got, tc.want)
		}
	}
}

// formatInputs are the doubles the recorded corpus covers: random bit
// patterns over every exponent, decimals with few digits (which end in
// ties more often than not), and integers around the 14-digit limit.
func formatInputs() []float64 {
	r := rand.New(rand.NewPCG(1, 2))
	var vs []float64
	for range 1500 {
		v := math.Float64frombits(r.Uint64())
		if !math.IsNaN(v) {
			vs = append(vs, v)
		}
	}
	for range 1500 {
		d := float64(r.Int64N(1e16)) / math.Pow10(r.IntN(30))
		if r.IntN(2) == 0 {
			d = -d
		}
		vs = append(vs, d)
	}
	for range 500 {
		vs = append(vs, float64(r.Int64N(2e15)-1e15), float64(r.Int64N(1e15))+0.5)
	}
	return vs
}

// parseInputs are strings for tonumber: numbers written in many ways,
// and mutations of them that LuaJIT may or may not take.
func parseInputs() []string {
	r := rand.New(rand.NewPCG(3, 4))
	pick := func(set string) byte { return set[r.IntN(len(set))] }
	var ss []string
	for range 3000 {
		var b []byte
		if r.IntN(4) == 0 {
			b = append(b, pick(" \t\n\v\f\r"))
		}
		if r.IntN(3) == 0 {
			b = append(b, pick("+-"))
		}
		switch r.IntN(6) {
		case 0:
			b = append(b, "0x"...)
			for range 1 + r.IntN(18) {
				b = append(b, pick("0123456789abcdefABCDEF."))
			}
			if r.IntN(2) == 0 {
				b = fmt.Appendf(b, "p%d", r.IntN(2200)-1100)
			}
		case 1:
			b = append(b, "0b"...)
			for range 1 + r.IntN(70) {
				b = append(b, pick("01"))
			}
		case 2:
			b = append(b, []string{"inf", "INF", "nan", "Infinity", "infinit", "nana"}[r.IntN(6)]...)
		default:
			for range 1 + r.IntN(25) {
				b = append(b, pick("00123456789."))
			}
			if r.IntN(2) == 0 {
				b = fmt.Appendf(b, "%ce%d", pick("0123456789"), r.IntN(800)-400)
			}
		}
		if r.IntN(8) == 0 {
			b = append(b, pick("xeEpLUi_ .+-\x00"))
		}
		if r.IntN(4) == 0 {
			b = append(b, pick(" \t\n\v\f\r"))
		}
		ss = append(ss, string(b))
	}
	return ss
}

// The corpora hold one case a line: the input and LuaJIT's answer, tab
// separated (formatted: the double as %a; parsed: the string in hex and
// the number as %a or "nil").
const (
	formatCorpus = "testdata/tostring.txt"
	parseCorpus  = "testdata/tonumber.txt"
)

// recordScript answers each input line with LuaJIT's result.
const recordScript = `
local mode = arg[1]
for line in io.lines() do
  if mode == "tostring" then
    io.write(line, "\t", tostring(tonumber(line)), "\n")
  else
    local s = line:gsub("%x%x", function(h) return string.char(tonumber(h, 16)) end)
    local v = tonumber(s)
    io.write(line, "\t", v and string.format("%a", v) or "nil", "\n")
  end
end
`

func record(t *testing.T, mode, path string, inputs []string) {
	bin := testenv.Tool(t, "luajit", "apt-get install luajit")
	script := filepath.Join(t.TempDir(), "record.lua")
	if err := os.WriteFile(script, []byte(recordScript), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, script, mode)
	cmd.Stdin = strings.NewReader(strings.Join(inputs, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("luajit: %v", err)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readCorpus(t *testing.T, path string) [][2]string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cases [][2]string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		in, want, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			t.Fatalf("%s: bad line %q", path, sc.Text())
		}
		cases = append(cases, [2]string{in, want})
	}
	return cases
}

// TestFormatAgainstLuaJIT compares Format with tostring over the recorded
// corpus (go test -update re-records it with luajit).
func TestFormatAgainstLuaJIT(t *testing.T) {
	if *update {
		var in []string
		for _, v := range formatInputs() {
			in = append(in, strconv.FormatFloat(v, 'x', -1, 64))
		}
		record(t, "tostring", formatCorpus, in)
	}
	cases := readCorpus(t, formatCorpus)
	if len(cases) < 3900 {
		t.Fatalf("%s: %d cases", formatCorpus, len(cases))
	}
	for _, c := range cases {
		v, err := strconv.ParseFloat(c[0], 64)
		if err != nil {
			t.Fatal(err)
		}
		if got := Format(v); got != c[1] {
			t.Errorf("Format(%s) = %q, LuaJIT %q", c[0], got, c[1])
		}
	}
}

// TestParseAgainstLuaJIT compares Parse with tonumber over the recorded
// corpus.
func TestParseAgainstLuaJIT(t *testing.T) {
	if *update {
		var in []string
		for _, s := range parseInputs() {
			in = append(in, hex.EncodeToString([]byte(s)))
		}
		record(t, "tonumber", parseCorpus, in)
	}
	cases := readCorpus(t, parseCorpus)
	if len(cases) < 3000 {
		t.Fatalf("%s: %d cases", parseCorpus, len(cases))
	}
	accepted := 0
	for _, c := range cases {
		s, err := hex.DecodeString(c[0])
		if err != nil {
			t.Fatal(err)
		}
		got := "nil"
		if v, ok := Parse(string(s)); ok {
			accepted++
			got = string(AppendFloat(nil, math.Abs(v), 'a', -1, false))
			switch {
			case math.IsNaN(v):
				got = "nan"
			case math.IsInf(v, 0):
				got = "inf"
			}
			if math.Signbit(v) && !math.IsNaN(v) {
				got = "-" + got
			}
		}
		if got != c[1] {
			t.Errorf("Parse(%q) = %s, LuaJIT %s", s, got, c[1])
		}
	}
	if accepted < len(cases)/4 || accepted > len(cases)*3/4 {
		t.Errorf("%d of %d accepted: the corpus should mix both", accepted, len(cases))
	}
}

// FuzzParse checks Parse against strconv where both define the answer:
// a plain decimal number (LuaJIT's and Go's rules agree there) and that
// Parse never panics.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"1", "-0", "0x10", " 1e5 ", "010", ".5", "1e400", "nan"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := Parse(s)
		plain := s != "" && strings.Trim(s, "0123456789.eE-+") == "" &&
			!strings.ContainsAny(s, "_xXpPbBiInN")
		if !plain {
			return
		}
		w, err := strconv.ParseFloat(s, 64)
		if err != nil && !strings.Contains(err.Error(), "range") {
			return // Go and C differ on "1.e5"-like forms only by acceptance
		}
		if ok && v != w && !(math.IsNaN(v) && math.IsNaN(w)) {
			t.Errorf("Parse(%q) = %v, strconv %v", s, v, w)
		}
	})
}

// FuzzFormat checks that every double's text reads back to a value within
// the 14 digits printed, and that every NaN prints as "nan".
func FuzzFormat(f *testing.F) {
	for _, v := range []float64{0, 1, 0.1, 1e15, 123456789012345} {
		f.Add(math.Float64bits(v))
	}
	f.Fuzz(func(t *testing.T, bits uint64) {
		v := math.Float64frombits(bits)
		s := Format(v)
		if math.IsNaN(v) {
			if s != "nan" {
				t.Errorf("Format(NaN %x) = %q", bits, s)
			}
			return
		}
		back, ok := Parse(s)
		if !ok {
			t.Fatalf("Format(%v) = %q does not parse", v, s)
		}
		if v != 0 && math.Abs(back-v) > math.Abs(v)*1e-13 {
			t.Errorf("Format(%v) = %q reads back as %v", v, s, back)
		}
	})
}

func BenchmarkAppend(b *testing.B) {
	for _, v := range []float64{42, 123456, 0.3, 2526.6000000000004, 1e100} {
		b.Run(Format(v), func(b *testing.B) {
			buf := make([]byte, 0, 32)
			for b.Loop() {
				buf = Append(buf[:0], v)
			}
		})
	}
}

func BenchmarkParse(b *testing.B) {
	for _, s := range []string{"42", "123456", " 0x10 ", "2526.6"} {
		b.Run(s, func(b *testing.B) {
			for b.Loop() {
				Parse(s)
			}
		})
	}
}
