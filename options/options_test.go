package options

import (
	"strings"
	"testing"
)

// TestParseSize: sizes as the reference reads them, never refused: an
// unknown multiplier or a value without digits is 0.
func TestParseSize(t *testing.T) {
	cases := map[string]uint64{"0": 0, "16384": 16384, "16K": 16 << 10, "16k": 16 << 10, "2G": 2 << 30, "1T": 1 << 40, "3M": 3 << 20,
		"8KB": 8 << 10, "": 0, "K": 0, "12Q": 0, "-1": 0, "1.5G": 0, "abc": 0, "18446744073709551616": 0}
	for in, want := range cases {
		if got := ParseSize(in); got != want {
			t.Errorf("ParseSize(%q) = %d; want %d", in, got, want)
		}
	}
}

// TestParseIntAsStrtol: the reference's integers are strtol's over the
// whole value, within a C int.
func TestParseIntAsStrtol(t *testing.T) {
	for in, want := range map[string]int64{"2": 2, "+2": 2, " 2": 2, "-1": -1, "2147483647": 2147483647, "-2147483648": -2147483648} {
		if got, err := ParseInt(in); err != nil || got != want {
			t.Errorf("ParseInt(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"abc", "2x", "1.5", "2147483648", "-2147483649", "0x10", "2 ", "1_000", " "} {
		if _, err := ParseInt(bad); err == nil {
			t.Errorf("ParseInt(%q) accepted", bad)
		}
	}
}

// TestParseDoubleAsStrtod: the reference's doubles are strtod's longest
// number at the start of the value, 0 without one.
func TestParseDoubleAsStrtod(t *testing.T) {
	for in, want := range map[string]float64{"0.5": 0.5, "1e3": 1000, "abc": 0, "": 0, "1.5abc": 1.5, " -2": -2, "1e": 1, "2x": 2} {
		if got := ParseDouble(in); got != want {
			t.Errorf("ParseDouble(%q) = %g; want %g", in, got, want)
		}
	}
}

// TestParseBool: the reference's words, exactly; anything else (yes, ON,
// the empty value) is refused.
func TestParseBool(t *testing.T) {
	for _, s := range []string{"on", "true", "1"} {
		if b, err := ParseBool(s); err != nil || !b {
			t.Errorf("ParseBool(%q) = %v, %v", s, b, err)
		}
	}
	for _, s := range []string{"off", "false", "0"} {
		if b, err := ParseBool(s); err != nil || b {
			t.Errorf("ParseBool(%q) = %v, %v", s, b, err)
		}
	}
	for _, s := range []string{"maybe", "yes", "no", "ON", ""} {
		if _, err := ParseBool(s); err == nil {
			t.Errorf("ParseBool(%q) accepted", s)
		}
	}
}

func TestValuesDashUnderscore(t *testing.T) {
	v := NewValues()
	v.SetDefault("table-size", "10000")
	v.Set("table_size", "5")
	if n, err := v.Int("table-size"); err != nil || n != 5 {
		t.Errorf("table-size = %d, %v; want 5 (dash and underscore are one name)", n, err)
	}
	if !v.IsSet("table-size") {
		t.Error("IsSet lost the user's value")
	}
	v.Set("threads", "abc")
	if _, err := v.Int("threads"); err == nil || err.Error() != "Invalid value for the 'threads' option: 'abc'" {
		t.Errorf("bad int error = %v", err)
	}
	// The reference names an option by its underscore form.
	v.Set("report-interval", "x")
	if _, err := v.Int("report-interval"); err == nil || err.Error() != "Invalid value for the 'report_interval' option: 'x'" {
		t.Errorf("bad int error = %v", err)
	}
	v.Set("hosts", "a,,b")
	if got := v.List("hosts"); strings.Join(got, "|") != "a|b" {
		t.Errorf("List = %q", got)
	}
}

func TestFormatHelp(t *testing.T) {
	got := FormatHelp([]Option{
		{Name: "threads", Desc: "number of threads to use", Kind: Int, Default: "1"},
		{Name: "mysql-ignore-errors", Desc: "list of errors to ignore, or \"all\"", Kind: List, Default: "1213,1020,1205"},
		{Name: "config-file", Desc: "File containing command line options", Kind: File, NoDefault: true},
	})
	want := "  --threads=N                      number of threads to use [1]\n" +
		"  --mysql-ignore-errors=[LIST,...] list of errors to ignore, or \"all\" [1213,1020,1205]\n" +
		"  --config-file=FILENAME           File containing command line options\n"
	if got != want {
		t.Errorf("FormatHelp:\n%s\nwant:\n%s", got, want)
	}
}
