package options

import (
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	cases := map[string]uint64{"0": 0, "16384": 16384, "16K": 16 << 10, "16k": 16 << 10, "2G": 2 << 30, "1T": 1 << 40, "3M": 3 << 20, "8KB": 8 << 10}
	for in, want := range cases {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "K", "12Q", "-1", "1.5G"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) accepted", bad)
		}
	}
}

func TestParseBool(t *testing.T) {
	for _, s := range []string{"on", "true", "1", "yes", "ON", ""} {
		if b, err := ParseBool(s); err != nil || !b {
			t.Errorf("ParseBool(%q) = %v, %v", s, b, err)
		}
	}
	for _, s := range []string{"off", "false", "0", "no"} {
		if b, err := ParseBool(s); err != nil || b {
			t.Errorf("ParseBool(%q) = %v, %v", s, b, err)
		}
	}
	if _, err := ParseBool("maybe"); err == nil {
		t.Error("ParseBool(maybe) accepted")
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
