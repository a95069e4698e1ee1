package pgsql

import (
	"bytes"
	"context"
	"strings"

	"github.com/sysbench-go/sysbench-go/drivers"
)

var _ drivers.BulkLoader = (*conn)(nil)

// BulkInsert loads the rows of a multi-row INSERT of literals through
// COPY ... FROM STDIN, which PostgreSQL ingests several times faster than
// the INSERT (docs/drivers.md). It takes the statement only
// when COPY stores the same rows and fails with the same errors as the
// INSERT would: into a plain table without rules or row security, whose
// columns the rows fill exactly and none of which is generated, with
// every value safe for its column's type (drivers.CopySafe). Anything
// else is left to the caller, which runs the INSERT as written.
func (c *conn) BulkInsert(ctx context.Context, query string) (drivers.Result, bool, error) {
	table, columns, ok := drivers.InsertTarget(query)
	if !ok {
		return nil, false, nil
	}
	if err := c.begin(ctx); err != nil {
		return nil, false, nil // the INSERT meets it, and reports it
	}
	classes, ok := c.copyColumns(table, columns)
	c.end()
	if !ok {
		return nil, false, nil
	}
	// Read per statement: a script may SET it.
	std := c.pg.ParameterStatus("standard_conforming_strings") != "off"
	target, data, _, ok := drivers.CopyText(c.copyBuf[:0], query, !std, classes)
	if !ok {
		return nil, false, nil
	}
	c.copyBuf = data
	// Failures are reported as the INSERT's, which the reference runs
	// with PQexec: the log reads the same.
	const op = "PQexec"
	if err := c.begin(ctx); err != nil {
		return nil, true, c.fail(ctx, err, op, query)
	}
	c.nres, c.cur = 0, 0
	tag, err := c.pg.CopyFrom(context.Background(), bytes.NewReader(data), "COPY "+target+" FROM STDIN")
	c.end()
	if err != nil {
		return nil, true, c.fail(ctx, err, op, query)
	}
	res := c.resultAt(0)
	res.finish(false, 0, tag)
	c.nres, c.cur = 1, 1
	return res, true, nil
}

// copyColumnsQuery lists the columns of a relation named in $1 (resolved
// by the search path as the INSERT resolves it; to_regclass gives NULL,
// not an error that would abort the transaction, for no such table), in
// order: name, the type's OID (a domain's base type), whether COPY may
// stand for an INSERT into it at all. No row: no such table.
const copyColumnsQuery = `SELECT a.attname,
  CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE a.atttypid END,
  c.relkind IN ('r', 'p') AND NOT c.relhasrules AND NOT c.relrowsecurity AND a.attgenerated = '' AND a.attidentity <> 'a'
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
WHERE c.oid = pg_catalog.to_regclass($1)
ORDER BY a.attnum`

// copyColumns returns the classes of the columns an INSERT into table
// (with the column list columns, or none) fills, looked up for every
// statement (a script may have altered or re-created the table since the
// last one), or false when COPY cannot stand for the INSERT or the
// lookup fails.
func (c *conn) copyColumns(table string, columns []string) ([]drivers.ColumnClass, bool) {
	rr := c.pg.ExecParams(context.Background(), copyColumnsQuery, [][]byte{[]byte(table)}, nil, nil, nil)
	type column struct {
		name  string
		class drivers.ColumnClass
	}
	var all []column
	usable := true
	for rr.NextRow() {
		v := rr.Values()
		if len(v) != 3 {
			usable = false
			continue
		}
		all = append(all, column{string(v[0]), classOf(string(v[1]))})
		usable = usable && string(v[2]) == "t"
	}
	if _, err := rr.Close(); err != nil || len(all) == 0 || !usable {
		return nil, false
	}
	classes := make([]drivers.ColumnClass, 0, len(all))
	if columns == nil {
		for _, col := range all {
			classes = append(classes, col.class)
		}
		return classes, true
	}
	for _, name := range columns {
		// Unquoted identifiers are folded to lower case.
		name = strings.ToLower(name)
		found := false
		for _, col := range all {
			if col.name == name {
				classes = append(classes, col.class)
				found = true
				break
			}
		}
		if !found {
			return nil, false
		}
	}
	return classes, true
}

// classOf is the class of a column of the type with the OID oid (text).
func classOf(oid string) drivers.ColumnClass {
	switch oid {
	case "21", "23", "20": // smallint, integer, bigint
		return drivers.ColInteger
	case "1700":
		return drivers.ColDecimal
	case "700", "701":
		return drivers.ColFloat
	case "16":
		return drivers.ColBool
	}
	return drivers.ColOther
}
