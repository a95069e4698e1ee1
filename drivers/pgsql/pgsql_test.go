package pgsql

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/drivers/sockio"
	"github.com/sysbench-go/sysbench-go/internal/allocs"
	"github.com/sysbench-go/sysbench-go/internal/testenv"
	"github.com/sysbench-go/sysbench-go/options"
)

// The tests run against the server named by SBTEST_PGSQL_* (see
// scripts/testdb.sh). Without one they skip, except under CI=true.

// open returns a driver for the test server with the given options set
// on top, and the buffer its FATAL lines go to.
func open(t testing.TB, mode drivers.PSMode, set ...string) (drivers.Driver, *testenv.Buffer) {
	t.Helper()
	v := testenv.RequireServer(t, "pgsql").Values(Factory.Options, set...)
	return testenv.OpenDriver(t, Factory.Open, drivers.Config{Values: v, PSMode: mode})
}

// inIOModes runs test once for each value of --pgsql-blocking-io: Go's
// netpoller and blocking system calls.
func inIOModes(t *testing.T, test func(t *testing.T, blocking string)) {
	for _, mode := range []string{"off", "on"} {
		t.Run("blocking-io="+mode, func(t *testing.T) { test(t, mode) })
	}
}

func intV(n int64) drivers.Value         { return drivers.Value{Type: drivers.TypeInt, Int: n} }
func strV(s string) drivers.Value        { return drivers.Value{Type: drivers.TypeVarChar, Str: []byte(s)} }
func typed(t drivers.Type) drivers.Value { return drivers.Value{Type: t} }

func wantKind(t *testing.T, err error, kind drivers.ErrorKind, state string) *drivers.Error {
	t.Helper()
	e := drivers.AsError(err)
	if e == nil {
		t.Fatalf("error %v (%T) is not a *drivers.Error", err, err)
	}
	if e.Kind != kind || e.State != state {
		t.Fatalf("got kind %d state %q (%v), want kind %d state %q", e.Kind, e.State, e, kind, state)
	}
	if e.Code != 0 {
		t.Errorf("Code = %d, want 0 as sysbench reports for PostgreSQL", e.Code)
	}
	return e
}

// The engine gives workers a processor each only for blocking connections:
// by default below drivers.ManyThreads threads, not in a dry run.
func TestBlockingIOHint(t *testing.T) {
	const (
		none     = drivers.WaitNone
		blocking = drivers.WaitBlocking
		polled   = drivers.WaitPolled
	)
	for _, tc := range []struct {
		set     []string
		dry     bool
		threads int
		want    drivers.Wait
	}{
		{nil, false, 1, blocking},
		{nil, false, 8, blocking},
		{nil, false, drivers.ManyThreads - 1, blocking},
		{nil, false, drivers.ManyThreads, polled}, // many threads: the netpoller
		{nil, false, 1000, polled},
		{[]string{"pgsql-blocking-io", "on"}, false, 1000, blocking},
		{[]string{"pgsql-blocking-io", "off"}, false, 1, polled},
		{nil, true, 1, none},
		{nil, true, 1000, none},
		{[]string{"pgsql-blocking-io", "on"}, true, 1, none},
	} {
		v := testenv.Values(nil, tc.set...)
		cfg := drivers.Config{Values: v, DryRun: tc.dry, Threads: tc.threads}
		if got := Factory.Wait(cfg); got != tc.want {
			t.Errorf("%v dry=%v threads=%d: Wait %v, want %v", tc.set, tc.dry, tc.threads, got, tc.want)
		}
	}
}

func TestOptions(t *testing.T) {
	want := []struct {
		name string
		kind options.Kind
		def  string
	}{
		{"pgsql-host", options.List, "localhost"},
		{"pgsql-port", options.List, "5432"},
		{"pgsql-user", options.String, "sbtest"},
		{"pgsql-password", options.String, ""},
		{"pgsql-db", options.String, "sbtest"},
		{"pgsql-sslmode", options.String, "prefer"},
		{"pgsql-socket", options.List, ""},
		{"pgsql-ignore-errors", options.List, ""},
		{"pgsql-target-session-attrs", options.String, "any"},
		{"pgsql-blocking-io", options.Bool, ""},
	}
	if len(Factory.Options) != len(want) {
		t.Fatalf("%d options, want %d", len(Factory.Options), len(want))
	}
	for i, w := range want {
		o := Factory.Options[i]
		if o.Name != w.name || o.Kind != w.kind || o.Default != w.def {
			t.Errorf("option %d = %+v, want %+v", i, o, w)
		}
	}
	// The reference's block of --help, byte for byte (recorded).
	block := "pgsql options:\n" + options.FormatReferenceHelp(Factory.Options) + "\n"
	if !strings.Contains(testenv.ReferenceHelp(t, "../.."), "\n"+block) {
		t.Errorf("our pgsql options block is not the reference's:\n%s", block)
	}
	if Factory.Name != "pgsql" || Factory.Description != "PostgreSQL driver" {
		t.Errorf("factory %q %q", Factory.Name, Factory.Description)
	}
}

func TestPlaceholders(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SELECT c FROM t WHERE id=?", "SELECT c FROM t WHERE id=$1"},
		{"SELECT ?, '?', ?", "SELECT $1, '?', $2"},
		{`SELECT 'it''s ?', "a?b", ?`, `SELECT 'it''s ?', "a?b", $1`},
		{`SELECT E'\'?', ?`, `SELECT E'\'?', $1`},
		{"SELECT $$ ? $$, $x$ ?$ $x$, ?", "SELECT $$ ? $$, $x$ ?$ $x$, $1"},
		{"SELECT ? -- ?\n, ? /* ? /* ? */ ? */, ?", "SELECT $1 -- ?\n, $2 /* ? /* ? */ ? */, $3"},
		{"SELECT ?::int, a$b FROM t", "SELECT $1::int, a$b FROM t"},
	} {
		if got := numberPlaceholders(tc.in, placeholders(tc.in)); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestErrorPosition(t *testing.T) {
	var b strings.Builder
	writeErrorPosition(&b, "SELECT c FROM nosuchtable WHERE id = $1", 15)
	want := "LINE 1: SELECT c FROM nosuchtable WHERE id = $1\n                      ^\n"
	if b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	writeErrorPosition(&b, "SELECT 1,\n  nope FROM t", 13)
	want = "LINE 2:   nope FROM t\n          ^\n"
	if b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
}

func TestQueryRows(t *testing.T) {
	d, _ := open(t, drivers.PSAuto)
	c := testenv.Connect(t, d)
	r := testenv.MustQuery(t, c, "SELECT 1 AS a, NULL::text AS b, 'x'::text AS c UNION ALL SELECT 2, 'y', ''")
	if r.Counter() != drivers.CntRead || r.NRows() != 2 || r.NFields() != 3 {
		t.Fatalf("counter %d nrows %d nfields %d", r.Counter(), r.NRows(), r.NFields())
	}
	got := testenv.Rows(r)
	want := [][]string{{"1", "NULL", "x"}, {"2", "y", ""}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("rows %q, want %q", got, want)
	}
	// An empty string is a value, not NULL.
	r = testenv.MustQuery(t, c, "SELECT ''")
	r.Next()
	if v, ok := r.Value(0); !ok || v == nil || len(v) != 0 {
		t.Errorf("empty string: %q %v", v, ok)
	}
	if c.MoreResults() {
		t.Error("MoreResults after a single statement")
	}
	// A result set without rows is still a read.
	r = testenv.MustQuery(t, c, "SELECT 1 WHERE false")
	if r.Counter() != drivers.CntRead || r.NRows() != 0 || r.Next() {
		t.Errorf("empty select: counter %d nrows %d", r.Counter(), r.NRows())
	}
}

func TestPreparedParams(t *testing.T) {
	for _, mode := range []drivers.PSMode{drivers.PSAuto, drivers.PSDisable} {
		t.Run(fmt.Sprint("mode", mode), func(t *testing.T) {
			d, _ := open(t, mode)
			c := testenv.Connect(t, d)
			testenv.MustQuery(t, c, "CREATE TEMP TABLE p (ti smallint, si smallint, i int, bi bigint, f real, d double precision,"+
				" ch char(10), vc varchar(20), ts timestamp)")
			ctx := context.Background()
			ins, err := c.Prepare(ctx, "INSERT INTO p VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
			if err != nil {
				t.Fatal(err)
			}
			args := []drivers.Value{
				{Type: drivers.TypeTinyInt, Int: 7},
				{Type: drivers.TypeSmallInt, Int: -300},
				{Type: drivers.TypeInt, Int: 123456},
				{Type: drivers.TypeBigInt, Int: 1 << 40},
				{Type: drivers.TypeFloat, Float: 1.5},
				{Type: drivers.TypeDouble, Float: 3.25},
				{Type: drivers.TypeChar, Str: []byte("it's")},
				{Type: drivers.TypeVarChar, Str: []byte(`a?b\c`)},
				{Type: drivers.TypeTimestamp, Str: []byte("2020-01-02 03:04:05")},
			}
			r, err := ins.Execute(ctx, args)
			if err != nil {
				t.Fatal(err)
			}
			if r.Counter() != drivers.CntWrite || r.NRows() != 1 {
				t.Errorf("insert: counter %d nrows %d", r.Counter(), r.NRows())
			}
			// Second row: NULLs and an empty string; same types.
			for i := range args {
				args[i].Null = i != 7
				args[i].Str = args[i].Str[:0]
			}
			if _, err := ins.Execute(ctx, args); err != nil {
				t.Fatal(err)
			}
			sel, err := c.Prepare(ctx, "SELECT * FROM p WHERE i = ? OR i IS NULL ORDER BY i")
			if err != nil {
				t.Fatal(err)
			}
			r, err = sel.Execute(ctx, []drivers.Value{intV(123456)})
			if err != nil {
				t.Fatal(err)
			}
			if r.Counter() != drivers.CntRead || r.NRows() != 2 || r.NFields() != 9 {
				t.Fatalf("select: counter %d nrows %d nfields %d", r.Counter(), r.NRows(), r.NFields())
			}
			got := fmt.Sprintf("%q", testenv.Rows(r))
			want := `[["7" "-300" "123456" "1099511627776" "1.5" "3.25" "it's      " "a?b\\c" "2020-01-02 03:04:05"]` +
				` ["NULL" "NULL" "NULL" "NULL" "NULL" "NULL" "NULL" "" "NULL"]]`
			if got != want {
				t.Errorf("rows\n%s\nwant\n%s", got, want)
			}
			// Wrong parameter count.
			if _, err := sel.Execute(ctx, nil); err == nil {
				t.Error("no error for a missing parameter")
			}
			if err := sel.Close(); err != nil {
				t.Error(err)
			}
			if err := ins.Close(); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestPSDisableQuoting(t *testing.T) {
	d, _ := open(t, drivers.PSDisable)
	c := testenv.Connect(t, d)
	ctx := context.Background()
	s, err := c.Prepare(ctx, `SELECT ?, '?' AS "?x?", ? -- ?`+"\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"it's", `back\slash`, "'; DROP TABLE x; --", "", "?"} {
		r, err := s.Execute(ctx, []drivers.Value{strV(v), intV(5)})
		if err != nil {
			t.Fatalf("%q: %v", v, err)
		}
		got := testenv.Rows(r)
		if len(got) != 1 || got[0][0] != v || got[0][1] != "?" || got[0][2] != "5" {
			t.Errorf("%q: got %q", v, got)
		}
	}
}

func TestCounters(t *testing.T) {
	d, _ := open(t, drivers.PSAuto)
	c := testenv.Connect(t, d)
	ctx := context.Background()
	testenv.MustQuery(t, c, "CREATE TEMP TABLE k (id int PRIMARY KEY, v int)")
	for _, tc := range []struct {
		query string
		cnt   drivers.Counter
		nrows uint64
	}{
		{"BEGIN", drivers.CntOther, 0},
		{"INSERT INTO k VALUES (1, 1), (2, 2)", drivers.CntWrite, 2},
		{"SELECT * FROM k", drivers.CntRead, 2},
		{"SELECT * FROM k WHERE id = 42", drivers.CntRead, 0},
		{"UPDATE k SET v = 5 WHERE id = 1", drivers.CntWrite, 1},
		{"UPDATE k SET v = 5 WHERE id = 42", drivers.CntOther, 0}, // as sysbench: no row changed
		{"DELETE FROM k WHERE id = 2", drivers.CntWrite, 1},
		{"COMMIT", drivers.CntOther, 0},
		{"CREATE TEMP TABLE k2 (id int)", drivers.CntOther, 0},
	} {
		r := testenv.MustQuery(t, c, tc.query)
		if r.Counter() != tc.cnt || r.NRows() != tc.nrows {
			t.Errorf("%s: counter %d nrows %d, want %d %d", tc.query, r.Counter(), r.NRows(), tc.cnt, tc.nrows)
		}
	}
	// The same through prepared statements.
	for _, tc := range []struct {
		query string
		arg   int64
		cnt   drivers.Counter
	}{
		{"SELECT v FROM k WHERE id = ?", 1, drivers.CntRead},
		{"UPDATE k SET v = v + 1 WHERE id = ?", 1, drivers.CntWrite},
		{"UPDATE k SET v = v + 1 WHERE id = ?", 42, drivers.CntOther},
		{"INSERT INTO k VALUES (?, 0)", 3, drivers.CntWrite},
		{"DELETE FROM k WHERE id = ?", 3, drivers.CntWrite},
	} {
		s, err := c.Prepare(ctx, tc.query)
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Execute(ctx, []drivers.Value{intV(tc.arg)})
		if err != nil {
			t.Fatalf("%s: %v", tc.query, err)
		}
		if r.Counter() != tc.cnt {
			t.Errorf("prepared %s (%d): counter %d, want %d", tc.query, tc.arg, r.Counter(), tc.cnt)
		}
		s.Close()
	}
	s, err := c.Prepare(ctx, "BEGIN") // no parameters: prepared at once
	if err != nil {
		t.Fatal(err)
	}
	if r, err := s.Execute(ctx, nil); err != nil || r.Counter() != drivers.CntOther {
		t.Errorf("prepared BEGIN: %v", err)
	}
	testenv.MustQuery(t, c, "ROLLBACK")
}

func TestSyntaxErrorIsFatal(t *testing.T) {
	d, log := open(t, drivers.PSAuto)
	c := testenv.Connect(t, d)
	_, err := c.Query(context.Background(), "SELEC 1")
	e := wantKind(t, err, drivers.Fatal, "42601")
	if e.Op != "PQexec()" || e.Query != "SELEC 1" {
		t.Errorf("op %q query %q", e.Op, e.Query)
	}
	want := "FATAL: PQexec() failed: 7 syntax error at or near \"SELEC\"\nFATAL: failed query was: SELEC 1\n"
	if log.String() != want {
		t.Errorf("log\n%q\nwant\n%q", log.String(), want)
	}
	// The connection is still usable.
	testenv.MustQuery(t, c, "SELECT 1")
}

func TestMissingTable(t *testing.T) {
	d, log := open(t, drivers.PSAuto)
	c := testenv.Connect(t, d)
	ctx := context.Background()
	// Prepared lazily: the error comes with the first execution.
	s, err := c.Prepare(ctx, "SELECT c FROM nosuchtable WHERE id = ?")
	if err != nil {
		t.Fatalf("prepare with parameters is lazy, got %v", err)
	}
	_, err = s.Execute(ctx, []drivers.Value{intV(1)})
	wantKind(t, err, drivers.Fatal, "42P01")
	want := "FATAL: PQprepare() failed: ERROR:  relation \"nosuchtable\" does not exist\n" +
		"LINE 1: SELECT c FROM nosuchtable WHERE id = $1\n" +
		"                      ^\n\n"
	if log.String() != want {
		t.Errorf("log\n%q\nwant\n%q", log.String(), want)
	}
	// Without parameters the statement is prepared at once.
	_, err = c.Prepare(ctx, "SELECT * FROM nosuchtable")
	wantKind(t, err, drivers.Fatal, "42P01")
	// Through the simple protocol.
	_, err = c.Query(ctx, "SELECT * FROM nosuchtable")
	e := wantKind(t, err, drivers.Fatal, "42P01")
	if e.Msg != `relation "nosuchtable" does not exist` {
		t.Errorf("msg %q", e.Msg)
	}
}

func TestUniqueViolationRollsBack(t *testing.T) {
	d, log := open(t, drivers.PSAuto)
	c := testenv.Connect(t, d)
	ctx := context.Background()
	testenv.MustQuery(t, c, "CREATE TEMP TABLE u (id int PRIMARY KEY)")
	testenv.MustQuery(t, c, "BEGIN")
	testenv.MustQuery(t, c, "INSERT INTO u VALUES (1)")
	s, err := c.Prepare(ctx, "INSERT INTO u VALUES (?)")
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Execute(ctx, []drivers.Value{intV(1)})
	wantKind(t, err, drivers.Ignorable, "23505")
	// Rolled back: the transaction is over and its first insert gone.
	if tx := c.(*conn).pg.TxStatus(); tx != 'I' {
		t.Errorf("transaction status %c after an ignorable error, want I", tx)
	}
	if got := testenv.Rows(testenv.MustQuery(t, c, "SELECT count(*) FROM u")); got[0][0] != "0" {
		t.Errorf("count %s after rollback", got[0][0])
	}
	if log.String() != "" {
		t.Errorf("ignorable error logged %q", log.String())
	}
}

func TestIgnoreErrorsOption(t *testing.T) {
	d, _ := open(t, drivers.PSAuto, "pgsql-ignore-errors", "42601,22012")
	c := testenv.Connect(t, d)
	_, err := c.Query(context.Background(), "SELECT 1/0")
	wantKind(t, err, drivers.Ignorable, "22012")
	_, err = c.Query(context.Background(), "SELECT * FROM nosuchtable")
	wantKind(t, err, drivers.Fatal, "42P01")

	d, _ = open(t, drivers.PSAuto, "pgsql-ignore-errors", "all")
	c = testenv.Connect(t, d)
	_, err = c.Query(context.Background(), "SELECT * FROM nosuchtable")
	wantKind(t, err, drivers.Ignorable, "42P01")
}

func TestDeadlockIsIgnorable(t *testing.T) {
	d, _ := open(t, drivers.PSAuto)
	c1, c2 := testenv.Connect(t, d), testenv.Connect(t, d)
	table := "sbgo_pgsql_deadlock_" + strconv.Itoa(os.Getpid())
	testenv.MustQuery(t, c1, "DROP TABLE IF EXISTS "+table)
	testenv.MustQuery(t, c1, "CREATE TABLE "+table+" (id int PRIMARY KEY, v int)")
	t.Cleanup(func() { c1.Query(context.Background(), "DROP TABLE IF EXISTS "+table) })
	testenv.MustQuery(t, c1, "INSERT INTO "+table+" VALUES (1, 0), (2, 0)")

	upd := "UPDATE " + table + " SET v = v + 1 WHERE id = "
	testenv.MustQuery(t, c1, "BEGIN")
	testenv.MustQuery(t, c2, "BEGIN")
	testenv.MustQuery(t, c1, upd+"1")
	testenv.MustQuery(t, c2, upd+"2")
	errs := make(chan error, 2)
	go func() { _, err := c1.Query(context.Background(), upd+"2"); errs <- err }()
	time.Sleep(50 * time.Millisecond)
	_, err2 := c2.Query(context.Background(), upd+"1")
	err1 := <-errs
	var dead error
	var winner drivers.Conn
	switch {
	case err1 != nil && err2 == nil:
		dead, winner = err1, c2
	case err2 != nil && err1 == nil:
		dead, winner = err2, c1
	default:
		t.Fatalf("want exactly one deadlock error, got %v and %v", err1, err2)
	}
	wantKind(t, dead, drivers.Ignorable, "40P01")
	testenv.MustQuery(t, winner, "COMMIT")
	if got := testenv.Rows(testenv.MustQuery(t, c1, "SELECT sum(v) FROM "+table)); got[0][0] != "2" {
		t.Errorf("sum %s, want 2 (the winner's two updates)", got[0][0])
	}
}

func TestConnectErrors(t *testing.T) {
	s := testenv.RequireServer(t, "pgsql")
	t.Run("wrong password", func(t *testing.T) {
		d, log := open(t, drivers.PSAuto, "pgsql-password", "wrong")
		_, err := d.Connect(context.Background())
		wantKind(t, err, drivers.Fatal, "28P01")
		want := fmt.Sprintf("FATAL: Connection to database failed: connection to server at \"%s\", port %s failed: "+
			"FATAL:  password authentication failed for user \"%s\"\n\n", s.Host, s.Port, s.User)
		if log.String() != want {
			t.Errorf("log\n%q\nwant\n%q", log.String(), want)
		}
	})
	t.Run("unreachable port", func(t *testing.T) {
		d, log := open(t, drivers.PSAuto, "pgsql-host", "127.0.0.1", "pgsql-port", "1")
		_, err := d.Connect(context.Background())
		wantKind(t, err, drivers.Fatal, "08001")
		want := "FATAL: Connection to database failed: connection to server at \"127.0.0.1\", port 1 failed: " +
			"Connection refused\n\tIs the server running on that host and accepting TCP/IP connections?\n\n"
		if log.String() != want {
			t.Errorf("log\n%q\nwant\n%q", log.String(), want)
		}
	})
	t.Run("PGPASSWORD", func(t *testing.T) {
		t.Setenv("PGPASSWORD", s.Password)
		d, _ := open(t, drivers.PSAuto, "pgsql-password", "")
		testenv.MustQuery(t, testenv.Connect(t, d), "SELECT 1")
	})
}

func backendPID(t *testing.T, c drivers.Conn) string {
	t.Helper()
	return testenv.Rows(testenv.MustQuery(t, c, "SELECT pg_backend_pid()"))[0][0]
}

func TestTerminatedConnection(t *testing.T) { inIOModes(t, testTerminatedConnection) }

func testTerminatedConnection(t *testing.T, blocking string) {
	for _, tc := range []struct {
		ignore string
		kind   drivers.ErrorKind
	}{
		{"all", drivers.Reconnect},
		{"57P01", drivers.Reconnect},
		{"", drivers.Fatal},
	} {
		t.Run("ignore="+tc.ignore, func(t *testing.T) {
			d, log := open(t, drivers.PSAuto, "pgsql-ignore-errors", tc.ignore, "pgsql-blocking-io", blocking)
			c, admin := testenv.Connect(t, d), testenv.Connect(t, d)
			ctx := context.Background()
			s, err := c.Prepare(ctx, "SELECT ?::int + 1")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Execute(ctx, []drivers.Value{intV(1)}); err != nil {
				t.Fatal(err)
			}
			pid := backendPID(t, c)
			testenv.MustQuery(t, admin, "SELECT pg_terminate_backend("+pid+", 5000)")
			_, err = s.Execute(ctx, []drivers.Value{intV(1)})
			wantKind(t, err, tc.kind, "57P01")
			if tc.kind == drivers.Fatal {
				if !strings.Contains(log.String(), "FATAL: PQexecPrepared() failed: 7 terminating connection") {
					t.Errorf("log %q", log.String())
				}
				return
			}
			// Reconnected: a new backend, and the statement is prepared again.
			if backendPID(t, c) == pid {
				t.Error("same backend after reconnect")
			}
			r, err := s.Execute(ctx, []drivers.Value{intV(41)})
			if err != nil {
				t.Fatal(err)
			}
			if got := testenv.Rows(r); got[0][0] != "42" {
				t.Errorf("got %q", got)
			}
		})
	}
}

// TestReconnect: like the reference's pgsql driver, an explicit reconnect
// is not supported and leaves the connection as it was (a lost connection
// is still re-established when its state is ignorable: TestTerminatedConnection).
func TestReconnect(t *testing.T) {
	d, _ := open(t, drivers.PSAuto)
	c := testenv.Connect(t, d)
	pid := backendPID(t, c)
	if err := c.Reconnect(context.Background()); !errors.Is(err, drivers.ErrReconnectUnsupported) {
		t.Fatalf("Reconnect: %v, want ErrReconnectUnsupported", err)
	}
	if backendPID(t, c) != pid {
		t.Error("another backend after an unsupported Reconnect")
	}
}

// TestHostAndPortLists: ports (and hosts) are taken in turn; a connection
// whose own endpoint refuses goes on to the next of the list, as libpq's
// host lists do, and says where it went (Endpoint). Only when every
// endpoint fails does the connect fail.
func TestHostAndPortLists(t *testing.T) {
	s := testenv.RequireServer(t, "pgsql")
	good := s.Host + ":" + s.Port
	d, _ := open(t, drivers.PSAuto, "pgsql-port", s.Port+",1")
	for i := 0; i < 3; i++ {
		if got := drivers.EndpointOf(testenv.Connect(t, d)); got != good {
			t.Errorf("connection %d: endpoint %q, want %q", i, got, good)
		}
	}
	d, log := open(t, drivers.PSAuto, "pgsql-port", "1,2")
	if _, err := d.Connect(context.Background()); err == nil {
		t.Fatal("a connection reached port 1 or 2")
	}
	// As libpq: a line for each host tried.
	if !strings.Contains(log.String(), "port 1 failed") || !strings.Contains(log.String(), "port 2 failed") {
		t.Errorf("log %q", log.String())
	}
	// No host of the wanted kind: the test server is a primary.
	d, log = open(t, drivers.PSAuto, "pgsql-target-session-attrs", "standby")
	if _, err := d.Connect(context.Background()); err == nil {
		t.Error("a primary accepted for target standby")
	}
	if !strings.Contains(log.String(), "port "+s.Port+" failed: server is not in hot standby mode") {
		t.Errorf("log %q", log.String())
	}
	d, _ = open(t, drivers.PSAuto, "pgsql-target-session-attrs", "read-write")
	testenv.Connect(t, d)

	if s.Socket == "" {
		t.Skip("SBTEST_PGSQL_SOCKET not set")
	}
	// Hosts too; a directory is a unix socket, which has no client address.
	d, _ = open(t, drivers.PSAuto, "pgsql-host", s.Host+","+s.Socket)
	var got, at []string
	for i := 0; i < 4; i++ {
		c := testenv.Connect(t, d)
		got = append(got, testenv.Rows(testenv.MustQuery(t, c, "SELECT inet_client_addr()"))[0][0])
		at = append(at, drivers.EndpointOf(c))
	}
	if got[0] == "NULL" || got[1] != "NULL" || got[2] == "NULL" || got[3] != "NULL" {
		t.Errorf("client addresses %q: hosts not used in turn", got)
	}
	if want := []string{good, s.Socket, good, s.Socket}; !slices.Equal(at, want) {
		t.Errorf("endpoints %q, want %q", at, want)
	}
}

func TestSocket(t *testing.T) {
	s := testenv.RequireServer(t, "pgsql")
	if s.Socket == "" {
		t.Skip("SBTEST_PGSQL_SOCKET not set")
	}
	for _, sock := range []string{s.Socket, s.Socket + "/.s.PGSQL." + s.Port} {
		d, _ := open(t, drivers.PSAuto, "pgsql-socket", sock, "pgsql-host", "nosuch.invalid")
		if got := testenv.Rows(testenv.MustQuery(t, testenv.Connect(t, d), "SELECT inet_client_addr()")); got[0][0] != "NULL" {
			t.Errorf("%s: connected over TCP from %s", sock, got[0][0])
		}
	}
}

// Each sslmode connects, and with a server that offers TLS (testdb.sh gives
// its server a self-signed certificate) prefer and require use it, over
// Go's netpoller and over blocking calls alike: blocking I/O is the default
// under --rate, and Debian's PostgreSQL offers TLS out of the box.
func TestSSLMode(t *testing.T) {
	d, _ := open(t, drivers.PSAuto, "pgsql-sslmode", "disable")
	offered := testenv.Rows(testenv.MustQuery(t, testenv.Connect(t, d), "SHOW ssl"))[0][0] == "on"
	if !offered {
		t.Log("the test server offers no TLS: only connections are checked")
	}
	inIOModes(t, func(t *testing.T, blocking string) {
		for _, mode := range []string{"disable", "allow", "prefer", "require"} {
			if mode == "require" && !offered {
				continue
			}
			d, _ := open(t, drivers.PSAuto, "pgsql-sslmode", mode, "pgsql-blocking-io", blocking)
			c := testenv.Connect(t, d)
			got := testenv.Rows(testenv.MustQuery(t, c, "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()"))[0][0]
			want := "f"
			if offered && (mode == "prefer" || mode == "require") {
				want = "t"
			}
			if got != want {
				t.Errorf("sslmode=%s: TLS in use %s, want %s", mode, got, want)
			}
			// More round trips over the session, and a larger reply.
			testenv.MustQuery(t, c, "SELECT repeat('x', 100) FROM generate_series(1, 1000)")
		}
	})
	if _, err := Open(drivers.Config{Values: valuesWith("pgsql-sslmode", "sometimes")}); err == nil {
		t.Error("bad sslmode accepted")
	}
}

// Each I/O mode talks through its own kind of socket (drivers/sockio).
func TestSocketIOMode(t *testing.T) {
	inIOModes(t, func(t *testing.T, blocking string) {
		d, _ := open(t, drivers.PSAuto, "pgsql-sslmode", "disable", "pgsql-blocking-io", blocking)
		nc := testenv.Connect(t, d).(*conn).pg.Conn()
		var ok bool
		if blocking == "on" {
			_, ok = nc.(*sockio.Conn)
		} else {
			_, ok = nc.(*sockio.PolledConn)
		}
		if !ok {
			t.Errorf("blocking-io=%s talks through a %T", blocking, nc)
		}
	})
}

func valuesWith(kv ...string) *options.Values {
	v := options.NewValues()
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}

func TestMultiStatement(t *testing.T) {
	d, _ := open(t, drivers.PSAuto)
	c := testenv.Connect(t, d)
	ctx := context.Background()
	testenv.MustQuery(t, c, "CREATE TEMP TABLE m (id int)")
	r := testenv.MustQuery(t, c, "SELECT 1; INSERT INTO m VALUES (1), (2); SELECT 2, 3")
	if r.Counter() != drivers.CntRead || fmt.Sprint(testenv.Rows(r)) != "[[1]]" {
		t.Errorf("first result: counter %d", r.Counter())
	}
	if !c.MoreResults() {
		t.Fatal("no second result")
	}
	r, _ = c.NextResult(ctx)
	if r.Counter() != drivers.CntWrite || r.NRows() != 2 {
		t.Errorf("second result: counter %d nrows %d", r.Counter(), r.NRows())
	}
	r, _ = c.NextResult(ctx)
	if r.Counter() != drivers.CntRead || fmt.Sprint(testenv.Rows(r)) != "[[2 3]]" {
		t.Errorf("third result: counter %d", r.Counter())
	}
	if c.MoreResults() {
		t.Error("a fourth result")
	}
	_, err := c.Query(ctx, "SELECT 1; SELECT * FROM nosuchtable; SELECT 3")
	wantKind(t, err, drivers.Fatal, "42P01")
	if c.MoreResults() {
		t.Error("results left after an error")
	}
}

func TestContextCancel(t *testing.T) { inIOModes(t, testContextCancel) }

func testContextCancel(t *testing.T, blocking string) {
	d, _ := open(t, drivers.PSAuto, "pgsql-blocking-io", blocking)
	c := testenv.Connect(t, d)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Query(ctx, "SELECT pg_sleep(5)")
	if err == nil || ctx.Err() == nil || time.Since(start) > 4*time.Second { // pg_sleep(5) would take 5 s
		t.Fatalf("err %v after %v", err, time.Since(start))
	}
	if drivers.AsError(err) != nil {
		t.Errorf("a stopped run is not a database error: %v", err)
	}
	// A finished context must not break the next call with another one.
	c2 := testenv.Connect(t, d)
	ctx2, cancel2 := context.WithCancel(context.Background())
	testenv.MustQuery(t, c2, "SELECT 1")
	if _, err := c2.Query(ctx2, "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	cancel2()
	if _, err := c2.Query(context.Background(), "SELECT 1"); err != nil {
		t.Fatal(err)
	}
}

func TestDryRun(t *testing.T) {
	d, err := Open(drivers.Config{Values: valuesWith("pgsql-port", "1"), DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	c, err := d.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Query(context.Background(), "SELECT 1")
	if err != nil || r.Counter() != drivers.CntOther {
		t.Fatalf("dry run: %v", err)
	}
}

// A point select through a prepared statement allocates (almost) nothing:
// pgconn makes one string for the command tag. (In plain text: crypto/tls
// allocates for its records on a TLS connection, outside this driver.)
func TestPointSelectAllocs(t *testing.T) {
	d, _ := open(t, drivers.PSAuto, "pgsql-sslmode", "disable")
	c := testenv.Connect(t, d)
	ctx := context.Background()
	s, err := c.Prepare(ctx, "SELECT ?::int, 'abcdefghij'")
	if err != nil {
		t.Fatal(err)
	}
	args := []drivers.Value{intV(1)}
	perCall := allocs.PerRun(200, func() {
		r, err := s.Execute(ctx, args)
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
			r.Value(0)
		}
	})
	if perCall > 2 {
		t.Errorf("%.1f allocations per point select", perCall)
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	perCall = allocs.PerRun(200, func() {
		if _, err := c.Query(cctx, "BEGIN"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Query(cctx, "COMMIT"); err != nil {
			t.Fatal(err)
		}
	})
	if perCall > 4 {
		t.Errorf("%.1f allocations per BEGIN+COMMIT", perCall)
	}
}

func BenchmarkPointSelect(b *testing.B) {
	d, _ := open(b, drivers.PSAuto, "pgsql-sslmode", "disable")
	c := testenv.Connect(b, d)
	ctx := context.Background()
	testenv.MustQuery(b, c, "CREATE TEMP TABLE bp (id int PRIMARY KEY, c char(120))")
	testenv.MustQuery(b, c, "INSERT INTO bp SELECT g, repeat('x', 120) FROM generate_series(1, 1000) g")
	s, err := c.Prepare(ctx, "SELECT c FROM bp WHERE id=?")
	if err != nil {
		b.Fatal(err)
	}
	args := []drivers.Value{intV(0)}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	defer func() { b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op") }()
	for i := 0; i < b.N; i++ {
		args[0].Int = int64(i%1000 + 1)
		r, err := s.Execute(ctx, args)
		if err != nil {
			b.Fatal(err)
		}
		for r.Next() {
			r.Value(0)
		}
	}
}

// processCPU is the user+system CPU time this process has used, which is
// what the comparison with sysbench's libpq is about.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestBulkInsertCopy(t *testing.T) { inIOModes(t, testBulkInsertCopy) }

func testBulkInsertCopy(t *testing.T, blocking string) {
	d, log := open(t, drivers.PSAuto, "pgsql-blocking-io", blocking)
	c := testenv.Connect(t, d)
	ctx := context.Background()
	testenv.MustQuery(t, c, "CREATE TEMP TABLE b (id serial, n int, s text, f float8)")
	bl := c.(drivers.BulkLoader)
	res, handled, err := bl.BulkInsert(ctx, "INSERT INTO b (n, s, f) VALUES (1, 'it''s', 1.5), (2, NULL, -2e1), (3, 'tab\there', NULL)")
	if err != nil || !handled {
		t.Fatalf("BulkInsert: handled %v, %v", handled, err)
	}
	if res.Counter() != drivers.CntWrite || res.NRows() != 3 {
		t.Errorf("counter %d nrows %d, want write and 3", res.Counter(), res.NRows())
	}
	got := fmt.Sprint(testenv.Rows(testenv.MustQuery(t, c, "SELECT id, n, coalesce(s, 'NULL'), coalesce(f::text, 'NULL') FROM b ORDER BY id")))
	if want := "[[1 1 it's 1.5] [2 2 NULL -20] [3 3 tab\there NULL]]"; got != want {
		t.Errorf("rows %s, want %s", got, want)
	}
	// Values that are not literals are left to a plain INSERT.
	if _, handled, _ := bl.BulkInsert(ctx, "INSERT INTO b (n) VALUES (length('abc'))"); handled {
		t.Error("a function call was sent through COPY")
	}
	// Errors come back as for a query: a unique violation is ignorable.
	testenv.MustQuery(t, c, "CREATE TEMP TABLE u (id int primary key)")
	_, handled, err = bl.BulkInsert(ctx, "INSERT INTO u (id) VALUES (1), (1)")
	if !handled {
		t.Fatal("not handled")
	}
	wantKind(t, err, drivers.Ignorable, "23505")
	if log.String() != "" {
		t.Errorf("log %q", log)
	}
	// and a fatal one is logged as the reference logs the INSERT's
	testenv.MustQuery(t, c, "CREATE TEMP TABLE nn (id int NOT NULL)")
	q := "INSERT INTO nn (id) VALUES (NULL)"
	if _, handled, err = bl.BulkInsert(ctx, q); !handled {
		t.Fatal("not handled")
	}
	wantKind(t, err, drivers.Fatal, "23502")
	if l := log.String(); !strings.HasPrefix(l, "FATAL: PQexec() failed: 7 null value in column \"id\"") ||
		!strings.HasSuffix(l, "\nFATAL: failed query was: "+q+"\n") {
		t.Errorf("log %q", l)
	}
}

// A connection's host list starts with its own endpoint (the round-robin
// choice) and goes on with the ones after it, each once.
func TestFailoverList(t *testing.T) {
	for _, tt := range []struct {
		hosts, ports []string
		n            uint64
		want         string
	}{
		{[]string{"a", "b"}, []string{"1", "2"}, 0, "a,b 1,2"},
		{[]string{"a", "b"}, []string{"1", "2"}, 1, "b,a 2,1"},
		{[]string{"a"}, []string{"1", "2", "3"}, 1, "a,a,a 2,3,1"},
		{[]string{"a", "b"}, []string{"1"}, 3, "b,a 1,1"},
		{[]string{"a", "b"}, []string{"1", "2", "3"}, 0, "a,b,a,b,a,b 1,2,3,1,2,3"},
		{[]string{"a"}, []string{"1"}, 5, "a 1"},
	} {
		v := options.NewValues()
		v.Set("pgsql-host", strings.Join(tt.hosts, ","))
		v.Set("pgsql-port", strings.Join(tt.ports, ","))
		d, err := Open(drivers.Config{Values: v})
		if err != nil {
			t.Fatal(err)
		}
		h, p := d.(*driver).failoverList(tt.n)
		if got := h + " " + p; got != tt.want {
			t.Errorf("hosts %v ports %v, connection %d: %q, want %q", tt.hosts, tt.ports, tt.n, got, tt.want)
		}
	}
}
