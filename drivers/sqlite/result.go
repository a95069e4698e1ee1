package sqlite

import (
	"fmt"
	"strconv"
	"time"

	"github.com/sysbench-go/sysbench-go/drivers"
)

// result is a fully read result, reused by the connection's next call
// (see drivers.Rows).
type result struct {
	drivers.Rows

	vals []any // scan targets, reused
	scan []any
	text []byte // one value rendered as text, reused
}

var _ drivers.Result = (*result)(nil)

// addRow appends one row, rendering each value as text the way SQLite's
// own text conversion would for integers and strings.
func (r *result) addRow(values []any) {
	for _, v := range values {
		if v == nil {
			r.AppendValue(nil)
			continue
		}
		if r.text == nil {
			// Non-nil so that an empty string is not taken for NULL.
			r.text = make([]byte, 0, 64)
		}
		b := r.text[:0]
		switch v := v.(type) {
		case string:
			b = append(b, v...)
		case []byte:
			b = append(b, v...)
		case int64:
			b = strconv.AppendInt(b, v, 10)
		case float64:
			b = strconv.AppendFloat(b, v, 'g', -1, 64)
		case bool:
			b = strconv.AppendBool(b, v)
		case time.Time:
			b = v.AppendFormat(b, "2006-01-02 15:04:05.999999999")
		default:
			b = fmt.Append(b, v)
		}
		r.AppendValue(b)
		r.text = b
	}
	r.EndRow()
}
