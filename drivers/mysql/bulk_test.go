package mysql

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

// BulkInsert sends a multi-row INSERT of literals as a prepared statement
// with binary parameters (bulk.go). These tests hold it to the text query:
// the same rows in the table, the same errors, and the text query itself
// for anything it does not take.

const bulkTable = `(id INT AUTO_INCREMENT PRIMARY KEY, i INT, bu BIGINT UNSIGNED,
	bi BIGINT, de DECIMAL(10,2), d DOUBLE, ch CHAR(5), vc VARCHAR(20), tx TEXT,
	b BIT(8), e ENUM('a','b','c'), st SET('x','y'), dt DATE, bo BOOLEAN, n INT NULL)`

// bulkRows are rows of literals of every kind the bulk path takes, into
// every kind of column.
var bulkRows = []string{
	"(1, 2, 3, 4, 5, 'abc', 'd''e', 'it''s', 65, 2, 3, 20240229, TRUE, NULL)",
	"(-2147483648, 9223372036854775807, -9223372036854775808, -7, 0, '', '''', '', 0, 'b', 'x,y', '2024-02-29', FALSE, 5)",
	"('12', '13', '-14', '15.25', '1.5e3', 12, 13, 14, '7', 'c', 'y', '1999-12-31', 0, '42')",
	"(+5, 0, 9223372036854775807, -0, 007, 'x', 'y', 'z', 255, 1, 1, 0, 1, NULL)",
}

// bulkQuery is the INSERT of rows into table, as bulk_insert_next builds it.
func bulkQuery(table string, rows ...string) string {
	return "INSERT INTO " + table + "(i, bu, bi, de, d, ch, vc, tx, b, e, st, dt, bo, n) VALUES" + strings.Join(rows, ",")
}

func bulkInsert(t *testing.T, c drivers.Conn, query string) (drivers.Result, bool, error) {
	t.Helper()
	return c.(drivers.BulkLoader).BulkInsert(context.Background(), query)
}

func TestBulkInsertMatchesText(t *testing.T) {
	s := testenv.RequireServer(t, "mysql")
	for name, c := range bothPaths(t, s) {
		table(t, c, "drvmysql_bulk", bulkTable)
		table(t, c, "drvmysql_text", bulkTable)
		// strict mode, so that a value the two paths convert differently
		// fails rather than being quietly cut
		testenv.MustQuery(t, c, "SET SESSION sql_mode = 'STRICT_ALL_TABLES'")
		for range 2 { // the second time through a kept statement
			r, handled, err := bulkInsert(t, c, bulkQuery("drvmysql_bulk", bulkRows...))
			if !handled || err != nil {
				t.Fatalf("%s: BulkInsert: handled %v, %v", name, handled, err)
			}
			if r.NRows() != uint64(len(bulkRows)) || r.Counter() != drivers.CntWrite {
				t.Errorf("%s: %d rows affected, counter %v", name, r.NRows(), r.Counter())
			}
			testenv.MustQuery(t, c, bulkQuery("drvmysql_text", bulkRows...))
		}
		if n := len(c.(*conn).bulkStmts); n != 1 {
			t.Errorf("%s: %d statements kept, want 1", name, n)
		}
		got := testenv.Rows(testenv.MustQuery(t, c, "SELECT * FROM drvmysql_bulk ORDER BY id"))
		want := testenv.Rows(testenv.MustQuery(t, c, "SELECT * FROM drvmysql_text ORDER BY id"))
		if d := diffRows(got, want); d != "" || len(got) != 2*len(bulkRows) {
			t.Errorf("%s: bulk rows differ from the text query's:\n%s", name, d)
		}
	}
}

// Anything but the literals the bulk path takes stays a text query.
func TestBulkInsertDeclines(t *testing.T) {
	s := testenv.RequireServer(t, "mysql")
	d, _ := openDriver(t, drivers.Config{Values: s.Values(nil)})
	c := testenv.Connect(t, d)
	table(t, c, "drvmysql_bulk", "(a DECIMAL(10,2), b VARCHAR(10))")
	for _, q := range []string{
		"INSERT INTO drvmysql_bulk VALUES (1.5, 'x')",                  // a decimal
		"INSERT INTO drvmysql_bulk VALUES (1e3, 'x')",                  // a float
		"INSERT INTO drvmysql_bulk VALUES (18446744073709551615, 'x')", // beyond int64
		"INSERT INTO drvmysql_bulk VALUES (1, 'a\\b')",                 // a backslash escape
		"INSERT INTO drvmysql_bulk VALUES (1, NOW())",
		"INSERT INTO drvmysql_bulk VALUES (1, 'x') ON DUPLICATE KEY UPDATE b = 'y'",
		"INSERT INTO drvmysql_bulk VALUES (1, 'x'), (2)",
		"INSERT INTO drvmysql_bulk VALUES " + strings.Repeat("(1, 'x'),", maxParams/2) + "(1, 'x')", // too many placeholders
	} {
		if _, handled, err := bulkInsert(t, c, q); handled || err != nil {
			t.Errorf("%.80s: handled %v, %v", q, handled, err)
		}
	}
	if n := len(c.(*conn).bulkStmts); n != 0 {
		t.Errorf("%d statements prepared for declined queries", n)
	}

	d, _ = openDriver(t, drivers.Config{Values: s.Values(nil), PSMode: drivers.PSDisable})
	c = testenv.Connect(t, d)
	if _, handled, _ := bulkInsert(t, c, "INSERT INTO drvmysql_bulk VALUES (1, 'x')"); handled {
		t.Error("--db-ps-mode=disable: the bulk path prepared a statement")
	}
}

// An error is reported as the text query's: same code, same FATAL line
// with the query's text, and nothing of the failed statement inserted.
func TestBulkInsertErrors(t *testing.T) {
	s := testenv.RequireServer(t, "mysql")
	type outcome struct{ err, log, rows string }
	run := func(bulk bool, query string) outcome {
		d, log := openDriver(t, drivers.Config{Values: s.Values(nil)})
		c := testenv.Connect(t, d)
		table(t, c, "drvmysql_bulk", "(id INT PRIMARY KEY, c CHAR(3))")
		testenv.MustQuery(t, c, "INSERT INTO drvmysql_bulk VALUES (1, 'a')")
		var err error
		if bulk {
			var handled bool
			_, handled, err = bulkInsert(t, c, query)
			if !handled {
				t.Fatalf("%s: not handled", query)
			}
		} else {
			_, err = c.Query(context.Background(), query)
		}
		e := drivers.AsError(err)
		if e == nil {
			t.Fatalf("%s: %v", query, err)
		}
		rows := testenv.Rows(testenv.MustQuery(t, c, "SELECT * FROM drvmysql_bulk ORDER BY id"))
		return outcome{fmt.Sprintf("%d %s %s %s %s %v", e.Code, e.State, e.Msg, e.Op, e.Query, e.Kind), log.String(), fmt.Sprint(rows)}
	}
	for _, q := range []string{
		"INSERT INTO drvmysql_bulk VALUES (2, 'b'), (1, 'c')",    // duplicate key in the second row
		"INSERT INTO drvmysql_bulk VALUES (3, 'b'), (4, 'long')", // too long for the column
	} {
		bulk, text := run(true, q), run(false, q)
		if bulk != text {
			t.Errorf("%s:\nbulk %q\ntext %q", q, bulk, text)
		}
		if !strings.Contains(bulk.log, "FATAL: mysql_drv_query() returned error") || !strings.Contains(bulk.log, q) {
			t.Errorf("%s: log %q", q, bulk.log)
		}
	}
}

// A connection keeps bulkStmtsKept statements, the most recently used,
// and prepares them again after a reconnect.
func TestBulkInsertStatements(t *testing.T) {
	s := testenv.RequireServer(t, "mysql")
	for name, c := range bothPaths(t, s) {
		table(t, c, "drvmysql_bulk", "(id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
		insert := func(rows int) {
			t.Helper()
			q := "INSERT INTO drvmysql_bulk (v) VALUES " + strings.Repeat("(1),", rows-1) + "(1)"
			if r, handled, err := bulkInsert(t, c, q); !handled || err != nil || r.NRows() != uint64(rows) {
				t.Fatalf("%s: %d rows: handled %v, %v", name, rows, handled, err)
			}
		}
		var evicted []*stmt
		for rows := 1; rows <= bulkStmtsKept+2; rows++ {
			insert(rows)
			if rows <= 2 {
				evicted = append(evicted, c.(*conn).bulkStmts[0].s)
			}
		}
		kept := c.(*conn).bulkStmts
		if len(kept) != bulkStmtsKept || kept[0].rows != bulkStmtsKept+2 {
			t.Fatalf("%s: %d statements kept, first for %d rows", name, len(kept), kept[0].rows)
		}
		for _, st := range evicted {
			if st.ds != nil {
				t.Errorf("%s: an evicted statement is still open", name)
			}
		}
		insert(5) // kept: moves to the front, nothing prepared
		if kept := c.(*conn).bulkStmts; kept[0].rows != 5 || len(kept) != bulkStmtsKept {
			t.Errorf("%s: after reuse, first for %d rows of %d", name, kept[0].rows, len(kept))
		}
		if err := c.Reconnect(context.Background()); err != nil {
			t.Fatal(err)
		}
		insert(5)
		if kept := c.(*conn).bulkStmts; len(kept) != 1 || kept[0].s.gen != c.(*conn).gen {
			t.Errorf("%s: after a reconnect, %d statements kept", name, len(kept))
		}
		want := 0
		for rows := 1; rows <= bulkStmtsKept+2; rows++ {
			want += rows
		}
		want += 10
		if got := testenv.Rows(testenv.MustQuery(t, c, "SELECT COUNT(*), MAX(id) FROM drvmysql_bulk")); got[0][0] != fmt.Sprint(want) || got[0][1] != fmt.Sprint(want) {
			t.Errorf("%s: rows and last id %v, want %d", name, got, want)
		}
	}
}
