package drivers

import (
	"fmt"
	"strings"
	"testing"
)

var other = []ColumnClass{ColOther}

func TestCopyText(t *testing.T) {
	cases := []struct {
		in, target, data string
		rows             int
		classes          []ColumnClass
	}{
		{"INSERT INTO sbtest1(k, c, pad) VALUES(1, 'a', 'b'),(2,'c d','e''f')",
			"sbtest1 (k, c, pad)", "1\ta\tb\n2\tc d\te'f\n", 2, []ColumnClass{ColInteger, ColOther, ColOther}},
		{"insert into t values (-1.5, NULL, TRUE, false, 2e3)", "t", "-1.5\t\\N\tt\tf\t2e3\n", 1,
			[]ColumnClass{ColDecimal, ColInteger, ColBool, ColBool, ColFloat}},
		{"INSERT INTO s.t (a) VALUES ('tab\there'), ('new\nline');", "s.t (a)", "tab\\there\nnew\\nline\n", 2, other},
		{"INSERT INTO t (a) VALUES ('back\\slash')", "t (a)", "back\\\\slash\n", 1, other},
		// rows of empty strings are still rows
		{"INSERT INTO t (a) VALUES (''), ('')", "t (a)", "\n\n", 2, other},
	}
	for _, c := range cases {
		target, data, rows, ok := CopyText(nil, c.in, false, c.classes)
		if !ok || target != c.target || string(data) != c.data || rows != c.rows {
			t.Errorf("CopyText(%q) = %q, %q, %d, %v; want %q, %q, %d", c.in, target, data, rows, ok, c.target, c.data, c.rows)
		}
	}
	refused := []string{
		"INSERT INTO t (a) VALUES (now())",
		"INSERT INTO t (a, b) VALUES (1)",
		"INSERT INTO t (a) VALUES (1) ON CONFLICT DO NOTHING",
		"INSERT INTO t (a) VALUES (DEFAULT)",
		"INSERT INTO t (a) VALUES ('unterminated)",
		"INSERT INTO t (a) VALUES (E'x')",
		"INSERT INTO t (a) VALUES (1abc)",
		"INSERT INTO t (a) SELECT 1",
		"UPDATE t SET a = 1",
		"INSERT INTO \"T\" (a) VALUES (1)",
		"INSERT INTO t VALUES (1, 2), (3)",
		"INSERT INTO t (a) VALUES ('x')",           // fewer values than columns
		"INSERT INTO t (a) VALUES ('x', 'y', 'z')", // more
		"INSERT INTO t (a) VALUES (1)",             // a number into a string column
		"INSERT INTO t (a) VALUES (TRUE)",          // a boolean into a string column
	}
	for _, q := range refused {
		if _, _, _, ok := CopyText(nil, q, false, []ColumnClass{ColOther, ColOther}); ok {
			t.Errorf("CopyText(%q) accepted", q)
		}
	}
	for _, q := range []string{
		"INSERT INTO t (a) VALUES ('a\\b')",
		"INSERT INTO t (a) VALUES ('a\\'b')",          // an escaped quote, not the end
		"INSERT INTO t (a, b) VALUES ('a\\', 'b')",    // MySQL reads 'a\', ' as one string
		"INSERT INTO t (a) VALUES ('it''s\\'), ('x')", // after a doubled quote
	} {
		if _, _, _, ok := CopyText(nil, q, true, []ColumnClass{ColOther, ColOther}); ok {
			t.Errorf("CopyText(%q) accepted: a backslash is refused when it may be an escape", q)
		}
	}
	// Without escapes a backslash is a character like any other.
	if target, data, rows, ok := CopyText(nil, "INSERT INTO t (a, b) VALUES ('a\\', 'b')", false, []ColumnClass{ColOther, ColOther}); !ok || target != "t (a, b)" || string(data) != "a\\\\\tb\n" || rows != 1 {
		t.Errorf("standard strings: %q, %q, %d, %v", target, data, rows, ok)
	}
	// The destination buffer is reused.
	buf := make([]byte, 0, 64)
	_, data, _, _ := CopyText(buf, "INSERT INTO t (a) VALUES (1)", false, []ColumnClass{ColInteger})
	if &data[0] != &buf[:1][0] {
		t.Error("CopyText did not append to dst")
	}
}

// TestCopySafe: which literals COPY may carry into which columns. A
// number in exponent form or with a fraction is an integer column's only
// after rounding, which COPY's integer input refuses to do.
func TestCopySafe(t *testing.T) {
	for _, c := range []struct {
		cl   ColumnClass
		kind LiteralKind
		raw  string
		want bool
	}{
		{ColInteger, LitNumber, "-6.7619484630773e+17", false},
		{ColInteger, LitNumber, "1e3", false},
		{ColInteger, LitNumber, "1.0", false},
		{ColInteger, LitNumber, "-9223372036854775808", true},
		{ColInteger, LitNumber, "+007", true},
		{ColInteger, LitTrue, "", false},
		{ColInteger, LitString, "1.5", true}, // the integer input reads it either way
		{ColDecimal, LitNumber, "1.5E-3", true},
		{ColFloat, LitNumber, "-6.7619484630773e+17", true},
		{ColFloat, LitNumber, "-0", false},
		{ColFloat, LitNumber, "-0.0e7", false},
		{ColFloat, LitNumber, "-0.01", true},
		{ColFloat, LitNumber, "0", true},
		{ColBool, LitTrue, "", true},
		{ColBool, LitNumber, "1", false},
		{ColOther, LitNumber, "20200101", false},
		{ColOther, LitNull, "", true},
		{ColOther, LitString, "2020-01-01", true},
	} {
		if got := CopySafe(c.cl, c.kind, c.raw); got != c.want {
			t.Errorf("CopySafe(%d, %d, %q) = %v", c.cl, c.kind, c.raw, got)
		}
	}
}

func TestParseInsert(t *testing.T) {
	type lit struct {
		col  int
		kind LiteralKind
		raw  string
	}
	var got []lit
	target, rows, ncols, ok := ParseInsert("INSERT INTO t VALUES (-7, 'it''s', NULL), (+0, '', TRUE), (1.5e3, 'x', FALSE)", true,
		func(col int, kind LiteralKind, raw string) bool {
			got = append(got, lit{col, kind, raw})
			return true
		})
	want := []lit{
		{0, LitNumber, "-7"}, {1, LitString, "it''s"}, {2, LitNull, ""},
		{0, LitNumber, "+0"}, {1, LitString, ""}, {2, LitTrue, ""},
		{0, LitNumber, "1.5e3"}, {1, LitString, "x"}, {2, LitFalse, ""},
	}
	if !ok || target != "t" || rows != 3 || ncols != 3 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("ParseInsert = %q, %d rows, %d columns, %v: %v; want %v", target, rows, ncols, ok, got, want)
	}
	// The callback can refuse a value.
	n := 0
	if _, _, _, ok := ParseInsert("INSERT INTO t VALUES (1), (2), (3)", true, func(int, LiteralKind, string) bool {
		n++
		return n < 2
	}); ok || n != 2 {
		t.Errorf("a refused value: ok %v after %d values", ok, n)
	}
	for raw, want := range map[string]string{"": "", "a": "a", "''": "'", "it''s": "it's", "''''x''": "''x'"} {
		if got := string(Unquote([]byte(">"), raw)); got != ">"+want {
			t.Errorf("Unquote(%q) = %q, want %q", raw, got, ">"+want)
		}
	}
}

// BenchmarkParseInsert parses a batch shaped like oltp_common's prepare:
// 2000 rows of an integer and two digit strings (120 and 60 bytes).
func BenchmarkParseInsert(b *testing.B) {
	q := []byte("INSERT INTO sbtest1(k, c, pad) VALUES")
	for i := range 2000 {
		if i > 0 {
			q = append(q, ',')
		}
		q = fmt.Appendf(q, "(%d, '%s', '%s')", 49000+i,
			strings.Repeat("83868641912-", 10)[:119]+"7", strings.Repeat("67847967377-", 5)[:59]+"3")
	}
	query := string(q)
	b.SetBytes(int64(len(query)))
	for b.Loop() {
		if _, rows, _, ok := ParseInsert(query, true, func(int, LiteralKind, string) bool { return true }); !ok || rows != 2000 {
			b.Fatal("not parsed")
		}
	}
}
