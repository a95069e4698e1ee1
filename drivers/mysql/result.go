package mysql

import (
	"database/sql/driver"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/sysbench-go/sysbench-go/drivers"
)

// result is a fully buffered result. Each connection owns one and reuses
// its buffers, so reading rows allocates nothing of ours.
type result struct {
	counter drivers.Counter
	nrows   uint64
	nfields int
	data    []byte // every value of every row, back to back
	cells   []cell // nfields cells per row
	row     int    // current row, -1 before the first Next
}

// cell locates one value in data.
type cell struct {
	start, end int
	null       bool
}

var _ drivers.Result = (*result)(nil)

func (r *result) reset() {
	r.counter = drivers.CntOther
	r.nrows = 0
	r.nfields = 0
	r.data = r.data[:0]
	r.cells = r.cells[:0]
	r.row = -1
}

// setExec records a statement without a result set the way the reference
// counts it: a write when it changed rows, otherwise "other".
func (r *result) setExec(affected int64) {
	r.reset()
	if affected > 0 {
		r.counter = drivers.CntWrite
		r.nrows = uint64(affected)
	}
}

// fill reads every row of rows into r. It returns the error of the
// failing Next, if any.
func (r *result) fill(rows driver.Rows, nfields int, dest []driver.Value) error {
	r.reset()
	r.nfields = nfields
	if nfields > 0 {
		r.counter = drivers.CntRead
	}
	dest = dest[:nfields]
	for {
		if err := rows.Next(dest); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		for i, v := range dest {
			start := len(r.data)
			if v == nil {
				r.cells = append(r.cells, cell{start: start, end: start, null: true})
				continue
			}
			r.data = appendText(r.data, v)
			r.cells = append(r.cells, cell{start: start, end: len(r.data)})
			dest[i] = nil
		}
		r.nrows++
	}
}

func (r *result) Counter() drivers.Counter { return r.counter }
func (r *result) NRows() uint64            { return r.nrows }
func (r *result) NFields() int             { return r.nfields }

func (r *result) Next() bool {
	if r.nfields == 0 || uint64(r.row+1) >= r.nrows {
		r.row = int(r.nrows)
		return false
	}
	r.row++
	return true
}

func (r *result) Value(i int) ([]byte, bool) {
	if r.row < 0 || uint64(r.row) >= r.nrows || i < 0 || i >= r.nfields {
		return nil, false
	}
	c := r.cells[r.row*r.nfields+i]
	if c.null {
		return nil, false
	}
	return r.data[c.start:c.end:c.end], true
}

// Close drops the rows; the buffers stay with the connection for reuse.
func (r *result) Close() { r.row = int(r.nrows) }

// appendText appends v as the MySQL text protocol would have sent it.
func appendText(b []byte, v driver.Value) []byte {
	switch v := v.(type) {
	case []byte:
		return append(b, v...)
	case string:
		return append(b, v...)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case uint64:
		return strconv.AppendUint(b, v, 10)
	case float32:
		return appendFloat(b, float64(v), 32)
	case float64:
		return appendFloat(b, v, 64)
	case bool:
		if v {
			return append(b, '1')
		}
		return append(b, '0')
	case time.Time:
		if v.Nanosecond() != 0 {
			return v.AppendFormat(b, "2006-01-02 15:04:05.000000")
		}
		return v.AppendFormat(b, time.DateTime)
	}
	return fmt.Append(b, v)
}

// appendFloat prints a float like MySQL: plain decimal notation for
// moderate exponents, otherwise 1.5e-7 / 1e20 without '+' or zero padding.
func appendFloat(b []byte, f float64, bits int) []byte {
	if f == 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return strconv.AppendFloat(b, f, 'g', -1, bits)
	}
	exp := int(math.Floor(math.Log10(math.Abs(f))))
	if exp >= -5 && exp < 15 {
		return strconv.AppendFloat(b, f, 'f', -1, bits)
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, 'e', -1, bits)
	// Go writes e+20 / e-07; MySQL writes e20 / e-7.
	for i := start; i < len(b); i++ {
		if b[i] != 'e' {
			continue
		}
		j := i + 1
		if b[j] == '+' {
			b = append(b[:j], b[j+1:]...)
		} else {
			j++
		}
		for j < len(b)-1 && b[j] == '0' {
			b = append(b[:j], b[j+1:]...)
		}
		break
	}
	return b
}
