package drivers_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/drivers/mysql"
	"github.com/sysbench-go/sysbench-go/drivers/pgsql"
	"github.com/sysbench-go/sysbench-go/drivers/sqlite"
	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

// The differential test of the fast paths (drivers.FastPaths): every value
// of a corpus of the shapes a Lua script can write or bind goes once
// through the fast path and once through the statement as written, into
// two tables alike; the tables must then hold the same rows, and a value
// the statement as written rejects must be rejected by the fast path with
// the same SQLSTATE (PostgreSQL) or error number (MySQL), unless the fast
// path declined it.

// fastPathRunners runs each fast path of drivers.FastPaths, by name.
var fastPathRunners = map[string]func(t *testing.T) fastPathTally{
	"pgsql COPY":                   testPgsqlCopy,
	"mysql binary bulk parameters": testMySQLBulk,
	"pgsql substitution":           testPgsqlSubstitution,
	"mysql substitution":           testMySQLSubstitution,
	"sqlite substitution":          testSQLiteSubstitution,
}

// fastPathTally counts what a run did with the corpus.
type fastPathTally struct{ taken, declined, failedAlike int }

func TestFastPathsGiveTheSameRows(t *testing.T) {
	for _, fp := range drivers.FastPaths {
		run := fastPathRunners[fp.Name]
		if run == nil {
			t.Errorf("fast path %q has no run over the corpus here", fp.Name)
			continue
		}
		t.Run(strings.ReplaceAll(fp.Name, " ", "_"), func(t *testing.T) {
			n := run(t)
			t.Logf("%s: %d values taken (%d failing alike), %d declined", fp.Name, n.taken, n.failedAlike, n.declined)
			if !t.Skipped() && n.taken == 0 {
				t.Errorf("the corpus never took the fast path")
			}
		})
	}
	for name := range fastPathRunners {
		if !slices.ContainsFunc(drivers.FastPaths, func(fp drivers.FastPath) bool { return fp.Name == name }) {
			t.Errorf("a run for %q, which drivers.FastPaths does not list", name)
		}
	}
}

// TestFastPathsListed fails for a driver package whose source takes a way
// round the statement as written (a BulkInsert method, a rewritten INSERT,
// parameters substituted on the client) without a drivers.FastPaths entry
// of that kind, and for an entry whose driver shows no such sign.
func TestFastPathsListed(t *testing.T) {
	has := func(driver string, kind drivers.FastPathKind) bool {
		return slices.ContainsFunc(drivers.FastPaths, func(fp drivers.FastPath) bool { return fp.Driver == driver && fp.Kind == kind })
	}
	// What the source of a driver package shows it does.
	signs := []struct {
		re   *regexp.Regexp
		kind drivers.FastPathKind
	}{
		{regexp.MustCompile(`\) BulkInsert\(`), drivers.BulkFastPath},
		{regexp.MustCompile(`drivers\.(ParseInsert|CopyText|InsertTarget)\(`), drivers.BulkFastPath},
		{regexp.MustCompile(`drivers\.(Interpolate|AppendLiteral|AppendQuoted)\(`), drivers.SubstitutionFastPath},
		{regexp.MustCompile(`\bemulated\b`), drivers.SubstitutionFastPath},
	}
	dirs, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	seen := map[string]bool{} // driver + kind
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "testdata" {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(d.Name(), "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range signs {
				if s.re.Match(src) {
					checked++
					seen[fmt.Sprint(d.Name(), s.kind)] = true
					if !has(d.Name(), s.kind) {
						t.Errorf("%s takes a fast path (%s) that drivers.FastPaths does not list for %q", f, s.re, d.Name())
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no fast path found in the driver packages: the signs are out of date")
	}
	for _, fp := range drivers.FastPaths {
		if !seen[fmt.Sprint(fp.Driver, fp.Kind)] {
			t.Errorf("%q is listed, but drivers/%s shows no sign of it", fp.Name, fp.Driver)
		}
	}
}

// A column of the corpus table: its name and SQL type.
type column struct{ name, def string }

// bulkLiterals are values as a script writes them into an INSERT: what
// tostring and string.format make of Lua numbers (LuaJIT's %.14g, so
// math.random's 64-bit draws come in exponent form), other number forms,
// strings with quotes, backslashes, tabs, text of numbers, dates and
// booleans, NULL, TRUE/FALSE, and literal forms the bulk parsers refuse.
var bulkLiterals = []string{
	"0", "-0", "+5", "007", "42", "-42", "127", "128", "255", "256", "32768", "2147483648",
	"9007199254740993", "-9223372036854775808", "9223372036854775807", "9223372036854775808",
	"18446744073709551615", "18446744073709551616", "-1",
	"-6.7619484630773e+17", "6.7619484630773e+17", "1e3", "1E3", "1.5E-3", "1e+18", "1e19",
	"2.5", "-2.5", "0.1", "-0.0", "-0e0", ".5", "5.", "3.14159265358979", "1e400", "1e-400",
	"123456789012345678901234567890", "0.30000000000000004",
	"''", "'abc'", "'it''s'", "'back\\slash'", "'a\\'b'", "'tab\there'", "'new\nline'", "'1e3'", "'-6.7619484630773e+17'",
	"'2020-01-01'", "'2020-01-01 12:34:56'", "'20200101'", "'t'", "'true'", "' 12 '", "'0x1F'", "'é'",
	"'abcdefghijklmnop'", "'-0'", "'1.5'",
	"NULL", "TRUE", "FALSE", "true", "null",
	"X'41'", "0x41", "B'01'", "b'1'", "E'a\\nb'", "N'abc'", "1_000", "DEFAULT", "'a' 'b'", "\"dq\"", "_utf8'x'",
}

// bulkCorpus compares BulkInsert with Query over every column and literal:
// a one-row INSERT each, then multi-row ones of the oltp shape.
func bulkCorpus(t *testing.T, c drivers.Conn, bl drivers.BulkLoader, fast, plain string, cols []column, sameError func(a, b *drivers.Error) bool) fastPathTally {
	t.Helper()
	ctx := context.Background()
	var n fastPathTally
	id := 0
	for _, col := range cols {
		for _, lit := range bulkLiterals {
			id++
			q := func(table string) string {
				return fmt.Sprintf("INSERT INTO %s (id, %s) VALUES (%d, %s)", table, col.name, id, lit)
			}
			_, perr := c.Query(ctx, q(plain))
			_, handled, ferr := bl.BulkInsert(ctx, q(fast))
			if !handled {
				n.declined++
				_, ferr = c.Query(ctx, q(fast))
			} else {
				n.taken++
			}
			pe, fe := drivers.AsError(perr), drivers.AsError(ferr)
			switch {
			case (perr == nil) != (ferr == nil):
				t.Errorf("%s %s: as written %v, fast path (taken %v) %v", col.name, lit, perr, handled, ferr)
			case perr != nil && (pe == nil || fe == nil || !sameError(pe, fe)):
				t.Errorf("%s %s: as written fails with %v, fast path (taken %v) with %v", col.name, lit, perr, handled, ferr)
			case perr != nil && handled:
				n.failedAlike++
			}
		}
	}
	compareTables(t, c, fast, plain, cols)
	return n
}

func compareTables(t *testing.T, c drivers.Conn, fast, plain string, cols []column) {
	t.Helper()
	names := make([]string, len(cols))
	for i, col := range cols {
		names[i] = col.name
	}
	dump := func(table string) [][]string {
		return testenv.Rows(testenv.MustQuery(t, c, "SELECT id, "+strings.Join(names, ", ")+" FROM "+table+" ORDER BY id"))
	}
	f, p := dump(fast), dump(plain)
	byID := map[string][]string{}
	for _, r := range f {
		byID[r[0]] = r
	}
	for _, r := range p {
		got, ok := byID[r[0]]
		switch {
		case !ok:
			t.Errorf("row %s: not stored through the fast path; as written %q", r[0], r)
		case !slices.Equal(got, r):
			t.Errorf("row %s differs:\n fast path  %q\n as written %q", r[0], got, r)
		}
		delete(byID, r[0])
	}
	for id, r := range byID {
		t.Errorf("row %s: stored only through the fast path: %q", id, r)
	}
}

func createTables(t *testing.T, c drivers.Conn, cols []column, names ...string) {
	t.Helper()
	defs := []string{"id INTEGER PRIMARY KEY"}
	for _, col := range cols {
		defs = append(defs, col.name+" "+col.def)
	}
	for _, name := range names {
		testenv.MustQuery(t, c, "DROP TABLE IF EXISTS "+name)
		testenv.MustQuery(t, c, "CREATE TABLE "+name+" ("+strings.Join(defs, ", ")+")")
		t.Cleanup(func() { c.Query(context.Background(), "DROP TABLE IF EXISTS "+name) })
	}
}

var pgColumns = []column{
	{"i2", "SMALLINT"}, {"i4", "INTEGER"}, {"i8", "BIGINT"}, {"de", "NUMERIC(30,10)"}, {"nu", "NUMERIC"},
	{"f4", "REAL"}, {"f8", "DOUBLE PRECISION"}, {"bo", "BOOLEAN"}, {"vc", "VARCHAR(10)"}, {"tx", "TEXT"},
	{"ch", "CHAR(5)"}, {"dt", "DATE"}, {"ts", "TIMESTAMP"}, {"nn", "TEXT NOT NULL DEFAULT 'x'"},
}

func pgConn(t *testing.T, mode drivers.PSMode) drivers.Conn {
	s := testenv.RequireServer(t, "pgsql")
	d, _ := testenv.OpenDriver(t, pgsql.Factory.Open, drivers.Config{Values: s.Values(pgsql.Factory.Options), PSMode: mode})
	return testenv.Connect(t, d)
}

func sameState(a, b *drivers.Error) bool { return a.State == b.State }

func testPgsqlCopy(t *testing.T) fastPathTally {
	c := pgConn(t, drivers.PSAuto)
	bl, ok := c.(drivers.BulkLoader)
	if !ok {
		t.Fatal("pgsql connections are not BulkLoaders")
	}
	var n fastPathTally
	for _, std := range []string{"on", "off"} {
		testenv.MustQuery(t, c, "SET standard_conforming_strings = "+std)
		createTables(t, c, pgColumns, "fp_copy_fast", "fp_copy_plain")
		m := bulkCorpus(t, c, bl, "fp_copy_fast", "fp_copy_plain", pgColumns, sameState)
		n.taken, n.declined, n.failedAlike = n.taken+m.taken, n.declined+m.declined, n.failedAlike+m.failedAlike
	}
	testenv.MustQuery(t, c, "SET standard_conforming_strings = on")
	oltpShape(t, c, bl, true)
	return n
}

// oltpShape: the rows the bundled workloads' prepare sends still take the
// fast path (taken), with an explicit id and without.
func oltpShape(t *testing.T, c drivers.Conn, bl drivers.BulkLoader, taken bool) {
	t.Helper()
	cols := []column{{"k", "INTEGER NOT NULL DEFAULT 0"}, {"c", "CHAR(120) NOT NULL DEFAULT ''"}, {"pad", "CHAR(60) NOT NULL DEFAULT ''"}}
	createTables(t, c, cols, "fp_oltp")
	for _, q := range []string{
		"INSERT INTO fp_oltp(id, k, c, pad) VALUES(1, 4993, '83868641912-28773972837-60736120486', '67847967377-48000963322'),(2, 5020, '38014276128-25250245652', '23183251411-36241541236')",
		"INSERT INTO fp_oltp(id, k, c, pad) VALUES(3, 4993, '83868641912-28773972837-60736120486', '67847967377-48000963322')",
	} {
		_, handled, err := bl.BulkInsert(context.Background(), q)
		if handled != taken || err != nil {
			t.Errorf("an oltp prepare batch: taken %v (want %v), %v", handled, taken, err)
		}
	}
}

var mysqlColumns = []column{
	{"ti", "TINYINT"}, {"i4", "INT"}, {"i8", "BIGINT"}, {"u8", "BIGINT UNSIGNED"}, {"de", "DECIMAL(30,10)"},
	{"fl", "FLOAT"}, {"db", "DOUBLE"}, {"bo", "BOOLEAN"}, {"vc", "VARCHAR(10)"}, {"tx", "TEXT"},
	{"ch", "CHAR(5)"}, {"dt", "DATE"}, {"ts", "DATETIME"}, {"bt", "BIT(8)"}, {"en", "ENUM('a','b')"},
	{"nn", "VARCHAR(10) NOT NULL DEFAULT 'x'"},
}

func mysqlConn(t *testing.T, mode drivers.PSMode) drivers.Conn {
	s := testenv.RequireServer(t, "mysql")
	d, _ := testenv.OpenDriver(t, mysql.Factory.Open, drivers.Config{Values: s.Values(mysql.Factory.Options), PSMode: mode})
	return testenv.Connect(t, d)
}

func sameErrno(a, b *drivers.Error) bool { return a.Code == b.Code }

// mysqlModes are the sql_modes the MySQL corpus runs under: strict, not
// strict (values cut with a warning), and without backslash escapes.
var mysqlModes = []string{"STRICT_ALL_TABLES", "", "STRICT_ALL_TABLES,NO_BACKSLASH_ESCAPES"}

func testMySQLBulk(t *testing.T) fastPathTally {
	c := mysqlConn(t, drivers.PSAuto)
	bl, ok := c.(drivers.BulkLoader)
	if !ok {
		t.Fatal("mysql connections are not BulkLoaders")
	}
	var n fastPathTally
	for _, mode := range mysqlModes {
		testenv.MustQuery(t, c, "SET SESSION sql_mode = '"+mode+"'")
		createTables(t, c, mysqlColumns, "fp_bulk_fast", "fp_bulk_plain")
		m := bulkCorpus(t, c, bl, "fp_bulk_fast", "fp_bulk_plain", mysqlColumns, sameErrno)
		n.taken, n.declined, n.failedAlike = n.taken+m.taken, n.declined+m.declined, n.failedAlike+m.failedAlike
	}
	testenv.MustQuery(t, c, "SET SESSION sql_mode = DEFAULT")
	oltpShape(t, c, bl, true)
	return n
}

// boundValues are parameter values as param:set and the bundled helpers
// make them from Lua values: integers of each width (past 2^53 through
// cdata), doubles of every shape, strings, dates and NULL.
func boundValues() []drivers.Value {
	var vs []drivers.Value
	for _, typ := range []drivers.Type{drivers.TypeTinyInt, drivers.TypeSmallInt, drivers.TypeInt, drivers.TypeBigInt} {
		for _, n := range []int64{0, 42, -42, 200, 40000, 3000000000, 9007199254740993, math.MinInt64, math.MaxInt64, -676194846307730048} {
			vs = append(vs, drivers.Value{Type: typ, Int: n})
		}
	}
	for _, typ := range []drivers.Type{drivers.TypeFloat, drivers.TypeDouble} {
		for _, f := range []float64{0, math.Copysign(0, -1), 0.1, 2.5, -2.5, 1.0 / 3, 0.30000000000000004, 5, 1e300, 1e-300, 3e38, 1e39,
			-6.7619484630773e+17, 9007199254740993, math.Inf(1), math.NaN()} {
			vs = append(vs, drivers.Value{Type: typ, Float: f})
		}
	}
	for _, typ := range []drivers.Type{drivers.TypeChar, drivers.TypeVarChar} {
		for _, s := range []string{"", "abc", "it's", `back\slash`, `\'`, "tab\there", "1e3", "-6.7619484630773e+17", "2020-01-01",
			"2020-01-01 12:34:56", "t", "-0", "1.5", " 12 ", "é", "abcdefghijklmnop", "?", "$1"} {
			vs = append(vs, drivers.Value{Type: typ, Str: []byte(s)})
		}
	}
	vs = append(vs,
		drivers.Value{Type: drivers.TypeDate, Str: []byte("2020-01-01")},
		drivers.Value{Type: drivers.TypeTimestamp, Str: []byte("2020-01-01 12:34:56")},
		drivers.Value{Type: drivers.TypeDateTime, Str: []byte("2020-01-01 12:34:56")},
		drivers.Value{Type: drivers.TypeTime, Str: []byte("12:34:56")},
	)
	for _, typ := range []drivers.Type{drivers.TypeInt, drivers.TypeBigInt, drivers.TypeDouble, drivers.TypeVarChar, drivers.TypeTimestamp} {
		vs = append(vs, drivers.Value{Type: typ, Null: true})
	}
	return vs
}

// substitutionCorpus runs `INSERT INTO t (id, col) VALUES (?, ?)` for
// every column and bound value through a statement prepared on the
// server (as written) and one substituted on the client (fast).
func substitutionCorpus(t *testing.T, asWritten, fast drivers.Conn, fastTable, plainTable string, cols []column, sameError func(a, b *drivers.Error) bool) fastPathTally {
	t.Helper()
	ctx := context.Background()
	var n fastPathTally
	id := 0
	for _, col := range cols {
		for _, v := range boundValues() {
			id++
			args := []drivers.Value{{Type: drivers.TypeInt, Int: int64(id)}, v}
			run := func(c drivers.Conn, table string) error {
				st, err := c.Prepare(ctx, "INSERT INTO "+table+" (id, "+col.name+") VALUES (?, ?)")
				if err != nil {
					return err
				}
				defer st.Close()
				_, err = st.Execute(ctx, args)
				return err
			}
			perr := run(asWritten, plainTable)
			ferr := run(fast, fastTable)
			n.taken++
			pe, fe := drivers.AsError(perr), drivers.AsError(ferr)
			switch {
			case (perr == nil) != (ferr == nil):
				t.Errorf("%s %s: as written %v, substituted %v", col.name, describe(v), perr, ferr)
			case perr != nil && (pe == nil || fe == nil || !sameError(pe, fe)):
				t.Errorf("%s %s: as written fails with %v, substituted with %v", col.name, describe(v), perr, ferr)
			case perr != nil:
				n.failedAlike++
			}
		}
	}
	compareTables(t, asWritten, fastTable, plainTable, cols)
	return n
}

func describe(v drivers.Value) string {
	switch {
	case v.Null:
		return fmt.Sprintf("NULL(type %d)", v.Type)
	case v.Type.IsInteger():
		return fmt.Sprintf("%d(type %d)", v.Int, v.Type)
	case v.Type.IsFloat():
		return fmt.Sprintf("%g(type %d)", v.Float, v.Type)
	}
	return fmt.Sprintf("%q(type %d)", v.Str, v.Type)
}

func testPgsqlSubstitution(t *testing.T) fastPathTally {
	prepared, substituted := pgConn(t, drivers.PSAuto), pgConn(t, drivers.PSDisable)
	var n fastPathTally
	for _, std := range []string{"on", "off"} {
		testenv.MustQuery(t, substituted, "SET standard_conforming_strings = "+std)
		createTables(t, prepared, pgColumns, "fp_subst_fast", "fp_subst_plain")
		m := substitutionCorpus(t, prepared, substituted, "fp_subst_fast", "fp_subst_plain", pgColumns, sameState)
		n.taken, n.failedAlike = n.taken+m.taken, n.failedAlike+m.failedAlike
	}
	return n
}

func testMySQLSubstitution(t *testing.T) fastPathTally {
	prepared, substituted := mysqlConn(t, drivers.PSAuto), mysqlConn(t, drivers.PSDisable)
	var n fastPathTally
	for _, mode := range mysqlModes {
		for _, c := range []drivers.Conn{prepared, substituted} {
			testenv.MustQuery(t, c, "SET SESSION sql_mode = '"+mode+"'")
		}
		createTables(t, prepared, mysqlColumns, "fp_subst_fast", "fp_subst_plain")
		m := substitutionCorpus(t, prepared, substituted, "fp_subst_fast", "fp_subst_plain", mysqlColumns, sameErrno)
		n.taken, n.failedAlike = n.taken+m.taken, n.failedAlike+m.failedAlike
	}
	return n
}

var sqliteColumns = []column{
	{"i", "INTEGER"}, {"r", "REAL"}, {"nu", "NUMERIC"}, {"tx", "TEXT"}, {"bl", "BLOB"}, {"an", ""},
	{"nn", "TEXT NOT NULL DEFAULT 'x'"},
}

func testSQLiteSubstitution(t *testing.T) fastPathTally {
	db := filepath.Join(t.TempDir(), "fp.db")
	open := func(mode drivers.PSMode) drivers.Conn {
		v := testenv.Values(sqlite.Factory.Options, "sqlite-db", db)
		d, _ := testenv.OpenDriver(t, sqlite.Factory.Open, drivers.Config{Values: v, PSMode: mode})
		return testenv.Connect(t, d)
	}
	prepared, substituted := open(drivers.PSAuto), open(drivers.PSDisable)
	createTables(t, prepared, sqliteColumns, "fp_subst_fast", "fp_subst_plain")
	return substitutionCorpus(t, prepared, substituted, "fp_subst_fast", "fp_subst_plain", sqliteColumns,
		func(a, b *drivers.Error) bool { return a.Code == b.Code && a.State == b.State })
}
