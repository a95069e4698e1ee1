package drivers

import (
	"errors"
	"math"
	"testing"
)

func TestInterpolate(t *testing.T) {
	i := func(n int64) Value { return Value{Type: TypeInt, Int: n} }
	s := func(x string) Value { return Value{Type: TypeVarChar, Str: []byte(x)} }
	tests := []struct {
		query string
		args  []Value
		d     Dialect
		want  string
	}{
		{"SELECT c FROM t WHERE id=?", []Value{i(42)}, DialectMySQL, "SELECT c FROM t WHERE id=42"},
		{"INSERT INTO t VALUES (?, ?, ?)", []Value{i(-1), s("it's"), {Null: true}}, DialectMySQL, `INSERT INTO t VALUES (-1, 'it\'s', NULL)`},
		{"SELECT ?", []Value{s("a\\b\"c\x00d\ne\rf\x1ag")}, DialectMySQL, `SELECT 'a\\b\"c\0d\ne\rf\Zg'`},
		{"SELECT ?", []Value{s("it's a\\b")}, DialectStandard, `SELECT 'it''s a\b'`},
		{"SELECT '?', \"?\", `?`, ? -- ?\n", []Value{i(1)}, DialectMySQL, "SELECT '?', \"?\", `?`, 1 -- ?\n"},
		{"SELECT 'a\\'?', ? /* ? */ # ?", []Value{i(2)}, DialectMySQL, "SELECT 'a\\'?', 2 /* ? */ # ?"},
		{"SELECT 'it''s ?', ?", []Value{i(3)}, DialectStandard, "SELECT 'it''s ?', 3"},
		// Floats are bound as doubles: a double literal stands for them.
		{"SELECT ?, ?, ?", []Value{{Type: TypeDouble, Float: 0.1}, {Type: TypeFloat, Float: float64(float32(0.1))}, {Type: TypeDouble, Float: math.Copysign(0, -1)}},
			DialectMySQL, "SELECT 1e-01, 1.0000000149011612e-01, -0e+00"},
		{"SELECT ?, ?, ?", []Value{{Type: TypeDouble, Float: math.NaN()}, {Type: TypeDouble, Float: math.Inf(1)}, {Type: TypeFloat, Float: math.Inf(-1)}},
			DialectSQLite, "SELECT NULL, 9e999, -9e999"},
		{"SELECT ? # ?\n", []Value{s("a\\b'c")}, DialectMySQLNoBackslashEscapes, "SELECT 'a\\b''c' # ?\n"},
		{"SELECT ?", []Value{{Type: TypeDateTime, Str: []byte("2024-01-02 03:04:05")}}, DialectMySQL, "SELECT '2024-01-02 03:04:05'"},
	}
	for _, tt := range tests {
		got, err := Interpolate(nil, tt.query, tt.args, tt.d)
		if err != nil {
			t.Errorf("Interpolate(%q): %v", tt.query, err)
			continue
		}
		if string(got) != tt.want {
			t.Errorf("Interpolate(%q)\n got %s\nwant %s", tt.query, got, tt.want)
		}
	}
	if _, err := Interpolate(nil, "SELECT ?", []Value{{Type: TypeDouble, Float: math.NaN()}}, DialectMySQL); !errors.Is(err, ErrNoLiteral) {
		t.Errorf("NaN in MySQL: %v", err)
	}
	for _, q := range []string{"SELECT ?, ?", "SELECT 1"} {
		if _, err := Interpolate(nil, q, []Value{i(1)}, DialectMySQL); !errors.Is(err, ErrParamCount) {
			t.Errorf("Interpolate(%q) with 1 arg: %v", q, err)
		}
	}
}

func FuzzInterpolateQuoted(f *testing.F) {
	f.Add([]byte("it's \\ \x00"))
	f.Fuzz(func(t *testing.T, s []byte) {
		// The quoted literal must end exactly where it should: one more
		// placeholder after it is still found.
		out, err := Interpolate(nil, "? ?", []Value{{Type: TypeChar, Str: s}, {Type: TypeInt, Int: 9}}, DialectMySQL)
		if err != nil {
			t.Fatal(err)
		}
		if out[len(out)-1] != '9' {
			t.Fatalf("%q", out)
		}
	})
}
