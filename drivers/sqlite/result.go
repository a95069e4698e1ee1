package sqlite

import (
	"database/sql"

	"sysbench-go/drivers"
)

// cell locates one value in a result's arena; n < 0 is SQL NULL.
type cell struct {
	off uint32
	n   int32
}

// result is a fully read result, reused by the connection's next call.
type result struct {
	counter drivers.Counter
	nrows   uint64
	nfields int
	arena   []byte
	cells   []cell
	width   int
	rows    int
	row     int

	raw  []sql.RawBytes // scan targets, reused
	bufs [][]byte       // their backing buffers
	scan []any
}

var _ drivers.Result = (*result)(nil)

func (r *result) reset() {
	if r.arena == nil {
		// Non-nil so that an empty string never reads as a nil slice.
		r.arena = make([]byte, 0, 1024)
	}
	r.arena = r.arena[:0]
	r.cells = r.cells[:0]
	r.rows, r.width, r.row = 0, 0, -1
	r.nrows, r.nfields, r.counter = 0, 0, drivers.CntOther
}

func (r *result) addRow(values []sql.RawBytes) {
	for _, v := range values {
		if v == nil {
			r.cells = append(r.cells, cell{n: -1})
			continue
		}
		r.cells = append(r.cells, cell{off: uint32(len(r.arena)), n: int32(len(v))})
		r.arena = append(r.arena, v...)
	}
	r.rows++
}

func (r *result) Counter() drivers.Counter { return r.counter }
func (r *result) NRows() uint64            { return r.nrows }
func (r *result) NFields() int             { return r.nfields }

func (r *result) Next() bool {
	if r.row+1 >= r.rows {
		r.row = r.rows
		return false
	}
	r.row++
	return true
}

func (r *result) Value(i int) ([]byte, bool) {
	if r.row < 0 || r.row >= r.rows || i < 0 || i >= r.width {
		return nil, false
	}
	c := r.cells[r.row*r.width+i]
	if c.n < 0 {
		return nil, false
	}
	end := c.off + uint32(c.n)
	return r.arena[c.off:end:end], true
}

func (r *result) Close() { r.row = r.rows }
