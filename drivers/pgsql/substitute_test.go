package pgsql

import (
	"testing"

	"github.com/sysbench-go/sysbench-go/drivers"
)

// TestSubstitute: each placeholder becomes a literal of the type the
// prepared statement declares, quoted the same way whatever
// standard_conforming_strings says.
func TestSubstitute(t *testing.T) {
	q := `SELECT ?, '?', ?, ?, ?, ?, ?`
	s := &stmt{query: q, marks: placeholders(q)}
	got := string(s.substitute(nil, []drivers.Value{
		{Type: drivers.TypeInt, Int: -5},
		{Type: drivers.TypeVarChar, Str: []byte(`it's a \ back`)},
		{Type: drivers.TypeFloat, Float: 0.1},
		{Type: drivers.TypeSmallInt, Int: 40000},
		{Type: drivers.TypeChar, Str: []byte("x")},
		{Type: drivers.TypeDouble, Null: true},
	}[:6:6]))
	want := `SELECT '-5'::int4, '?', E'it''s a \\ back'::varchar, '0.1'::float4, '40000'::text::int2, 'x', NULL::float8`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
