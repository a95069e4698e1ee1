package mysql

import (
	"database/sql/driver"
	"reflect"

	"github.com/sysbench-go/sysbench-go/drivers"
)

// statusNoBackslashEscapes is the server status flag set while the
// sql_mode holds NO_BACKSLASH_ESCAPES; go-sql-driver keeps the flags of
// the last OK packet in its connection's status field.
const statusNoBackslashEscapes = 1 << 9

// statusField returns the index of go-sql-driver's status field in its
// connection, or -1 when the layout is not the one known here.
func statusField(dc driver.Conn) int {
	t := reflect.TypeOf(dc)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return -1
	}
	f, ok := t.Elem().FieldByName("status")
	if !ok || len(f.Index) != 1 || f.Type.Kind() < reflect.Uint8 || f.Type.Kind() > reflect.Uint64 {
		return -1
	}
	return f.Index[0]
}

// dialect is how the server reads the text of a query now: with
// backslash escapes in strings unless the sql_mode says otherwise (which
// a script may SET at any time: the flag comes with every OK packet).
func (c *conn) dialect() drivers.Dialect {
	if c.statusAt >= 0 && c.dc != nil {
		v := reflect.ValueOf(c.dc).Elem().Field(c.statusAt)
		if v.Uint()&statusNoBackslashEscapes != 0 {
			return drivers.DialectMySQLNoBackslashEscapes
		}
	}
	return drivers.DialectMySQL
}
