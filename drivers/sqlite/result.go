package sqlite

import (
	"fmt"
	"strconv"
	"time"

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

	vals []any // scan targets, reused
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

// addRow appends one row, rendering each value as text the way SQLite's
// own text conversion would for integers and strings.
func (r *result) addRow(values []any) {
	for _, v := range values {
		off := len(r.arena)
		switch v := v.(type) {
		case nil:
			r.cells = append(r.cells, cell{n: -1})
			continue
		case string:
			r.arena = append(r.arena, v...)
		case []byte:
			r.arena = append(r.arena, v...)
		case int64:
			r.arena = strconv.AppendInt(r.arena, v, 10)
		case float64:
			r.arena = strconv.AppendFloat(r.arena, v, 'g', -1, 64)
		case bool:
			r.arena = strconv.AppendBool(r.arena, v)
		case time.Time:
			r.arena = v.AppendFormat(r.arena, "2006-01-02 15:04:05.999999999")
		default:
			r.arena = fmt.Append(r.arena, v)
		}
		r.cells = append(r.cells, cell{off: uint32(off), n: int32(len(r.arena) - off)})
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
