package drivers

import (
	"strings"
	"testing"

	"github.com/sysbench-go/sysbench-go/internal/allocs"
)

// readAll lists r's rows as text, "NULL" for SQL NULL, one row per entry.
func readAll(r Result) []string {
	var out []string
	for r.Next() {
		vals := make([]string, r.NFields())
		for i := range vals {
			if v, ok := r.Value(i); ok {
				vals[i] = "'" + string(v) + "'"
			} else {
				vals[i] = "NULL"
			}
		}
		out = append(out, strings.Join(vals, ","))
	}
	return out
}

func TestRows(t *testing.T) {
	type row = [][]byte
	tests := []struct {
		name    string
		fill    func(r *Rows)
		counter Counter
		nrows   uint64
		nfields int
		want    []string
	}{
		{"result set", func(r *Rows) {
			r.AppendRow(row{[]byte("1"), []byte("abc")})
			r.AppendRow(row{[]byte("2"), nil})
			r.AppendRow(row{nil, []byte{}})
			r.SetResultSet(CntRead, 2)
		}, CntRead, 3, 2, []string{"'1','abc'", "'2',NULL", "NULL,''"}},
		{"value by value", func(r *Rows) {
			r.AppendValue([]byte("x"))
			r.EndRow()
			r.AppendValue(nil)
			r.EndRow()
			r.SetResultSet(CntRead, 1)
		}, CntRead, 2, 1, []string{"'x'", "NULL"}},
		{"empty result set", func(r *Rows) { r.SetResultSet(CntRead, 3) }, CntRead, 0, 3, nil},
		{"no columns", func(r *Rows) {
			r.AppendRow(nil)
			r.AppendRow(nil)
			r.SetResultSet(CntRead, 0)
		}, CntRead, 2, 0, []string{"", ""}},
		{"command", func(r *Rows) { r.SetCommand(CntWrite, 7) }, CntWrite, 7, 0, nil},
		{"nothing set", func(r *Rows) {}, CntOther, 0, 0, nil},
	}
	var r Rows // one Rows for every case, as a connection reuses it
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r.Reset()
			tc.fill(&r)
			if r.Counter() != tc.counter || r.NRows() != tc.nrows || r.NFields() != tc.nfields {
				t.Errorf("counter %d, rows %d, fields %d; want %d, %d, %d",
					r.Counter(), r.NRows(), r.NFields(), tc.counter, tc.nrows, tc.nfields)
			}
			if got := readAll(&r); strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) {
				t.Errorf("rows %q, want %q", got, tc.want)
			}
			if r.Next() {
				t.Error("Next after the end returned true")
			}
			if _, ok := r.Value(0); ok {
				t.Error("Value after the end returned a value")
			}
		})
	}
}

func TestRowsValue(t *testing.T) {
	var r Rows
	// Before Reset (the zero value) and before Next there is no row.
	if _, ok := r.Value(0); ok || r.Next() {
		t.Fatal("the zero Rows has a row")
	}
	r.Reset()
	r.AppendRow([][]byte{[]byte("a"), []byte("")})
	r.AppendRow([][]byte{[]byte("b"), []byte("cd")})
	r.SetResultSet(CntRead, 2)
	if _, ok := r.Value(0); ok {
		t.Error("Value before the first Next returned a value")
	}
	r.Next()
	// An empty string is a non-nil empty slice, and out-of-range columns
	// are NULL.
	if v, ok := r.Value(1); !ok || v == nil || len(v) != 0 {
		t.Errorf("empty string: %q %v", v, ok)
	}
	for _, i := range []int{-1, 2} {
		if v, ok := r.Value(i); ok || v != nil {
			t.Errorf("column %d: %q %v", i, v, ok)
		}
	}
	// A value's capacity ends with it: appending to it cannot overwrite
	// the next value in the arena.
	v, _ := r.Value(0)
	if cap(v) != 1 {
		t.Errorf("cap %d, want 1", cap(v))
	}
	_ = append(v, 'X')
	r.Next()
	if v, _ := r.Value(0); string(v) != "b" {
		t.Errorf("second row: %q", v)
	}
	// Close ends the rows early and may be called twice.
	r.Close()
	r.Close()
	if _, ok := r.Value(0); ok || r.Next() {
		t.Error("rows left after Close")
	}
	// The values are copies: changing the caller's buffer changes nothing.
	buf := []byte("orig")
	r.Reset()
	r.AppendRow([][]byte{buf})
	copy(buf, "XXXX")
	r.Next()
	if v, _ := r.Value(0); string(v) != "orig" {
		t.Errorf("value %q, want a copy", v)
	}
}

// Once its buffers have grown, refilling a Rows allocates nothing.
func TestRowsReuseAllocatesNothing(t *testing.T) {
	var r Rows
	row := [][]byte{[]byte("12345"), nil, []byte(strings.Repeat("x", 120))}
	fill := func() {
		r.Reset()
		for range 10 {
			r.AppendRow(row)
		}
		r.SetResultSet(CntRead, len(row))
		for r.Next() {
			r.Value(2)
		}
	}
	fill()
	if perCall := allocs.PerRun(100, fill); perCall != 0 {
		t.Errorf("%.1f allocations per refill", perCall)
	}
}
