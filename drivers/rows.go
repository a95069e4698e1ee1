package drivers

// Rows is a buffered Result that a driver fills as rows arrive. Every value
// is copied into one arena, and a connection keeps its Rows and calls Reset
// before each query, so once the buffers have grown a steady workload
// allocates nothing here.
//
// A driver appends rows (AppendRow, or AppendValue and EndRow), then states
// what the result was (SetResultSet or SetCommand). Every row must have the
// same number of values. The zero value is an empty result.
type Rows struct {
	counter Counter
	nrows   uint64
	nfields int
	arena   []byte
	cells   []cell
	width   int // values per row, set by the first EndRow
	rows    int // rows appended
	next    int // the row the next call to Next makes current
}

// cell locates one value in the arena; n < 0 is SQL NULL. 32-bit offsets
// keep cells small; a buffered result is far below 4 GiB.
type cell struct {
	off uint32
	n   int32
}

var _ Result = (*Rows)(nil)

// Reset empties r for the next query and keeps its memory.
func (r *Rows) Reset() {
	r.arena = r.arena[:0]
	r.cells = r.cells[:0]
	r.width, r.rows, r.next = 0, 0, 0
	r.counter, r.nrows, r.nfields = CntOther, 0, 0
}

// AppendValue appends a copy of v to the row being built; nil is SQL NULL
// and an empty non-nil v the empty string.
func (r *Rows) AppendValue(v []byte) {
	if v == nil {
		r.cells = append(r.cells, cell{n: -1})
		return
	}
	if r.arena == nil {
		// Non-nil so that an empty string never reads as a nil slice.
		r.arena = make([]byte, 0, 1024)
	}
	r.cells = append(r.cells, cell{off: uint32(len(r.arena)), n: int32(len(v))})
	r.arena = append(r.arena, v...)
}

// EndRow ends the row being built by AppendValue.
func (r *Rows) EndRow() {
	if r.rows == 0 {
		r.width = len(r.cells)
	}
	r.rows++
}

// AppendRow appends one row, copying its values; a nil value is SQL NULL.
func (r *Rows) AppendRow(values [][]byte) {
	for _, v := range values {
		r.AppendValue(v)
	}
	r.EndRow()
}

// SetResultSet finishes a result set of nfields columns: NRows is the
// number of rows appended (0 for an empty result set).
func (r *Rows) SetResultSet(c Counter, nfields int) {
	r.counter = c
	r.nrows = uint64(r.rows)
	r.nfields = nfields
}

// SetCommand finishes a statement without a result set (INSERT, BEGIN,
// DDL): NRows is the number of rows it affected and NFields is 0.
func (r *Rows) SetCommand(c Counter, affected uint64) {
	r.counter = c
	r.nrows = affected
	r.nfields = 0
}

// Counter implements Result.
func (r *Rows) Counter() Counter { return r.counter }

// NRows implements Result.
func (r *Rows) NRows() uint64 { return r.nrows }

// NFields implements Result.
func (r *Rows) NFields() int { return r.nfields }

// Next implements Result.
func (r *Rows) Next() bool {
	if r.next >= r.rows {
		r.next = r.rows + 1 // past the end: Value finds no row
		return false
	}
	r.next++
	return true
}

// Value implements Result. The bytes point into the arena: they stay
// valid until Reset, though Result promises them only until Next.
func (r *Rows) Value(i int) ([]byte, bool) {
	row := r.next - 1
	if row < 0 || row >= r.rows || i < 0 || i >= r.width {
		return nil, false
	}
	c := r.cells[row*r.width+i]
	if c.n < 0 {
		return nil, false
	}
	end := c.off + uint32(c.n)
	return r.arena[c.off:end:end], true
}

// Close implements Result: it drops the rows but keeps the memory for the
// connection's next call.
func (r *Rows) Close() { r.next = r.rows + 1 }
