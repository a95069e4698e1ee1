package pgsql

import (
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sysbench-go/sysbench-go/drivers"
)

// result is a fully received result, reused by the connection's next call
// (see drivers.Rows).
type result struct {
	drivers.Rows
}

var _ drivers.Result = (*result)(nil)

func (r *result) reset() { r.Reset() }

// addRow copies one row as pgconn hands it over: nil is SQL NULL.
func (r *result) addRow(values [][]byte) { r.AppendRow(values) }

// finish classifies the result the way sysbench's pgsql driver does: a
// result set (even an empty one) is a read; a command that changed rows is
// a write; anything else (BEGIN, COMMIT, DDL, an UPDATE matching no row) is
// "other".
func (r *result) finish(hasRows bool, nfields int, tag pgconn.CommandTag) {
	if hasRows {
		r.SetResultSet(drivers.CntRead, nfields)
		return
	}
	n := uint64(tag.RowsAffected())
	if n > 0 {
		r.SetCommand(drivers.CntWrite, n)
	} else {
		r.SetCommand(drivers.CntOther, 0)
	}
}
