package mysql

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/drivers/sockio"
	"github.com/sysbench-go/sysbench-go/internal/allocs"
	"github.com/sysbench-go/sysbench-go/internal/testenv"
	"github.com/sysbench-go/sysbench-go/options"
)

// The tests run against a real server: scripts/testdb.sh start DIR, then
// . DIR/env. Without SBTEST_MYSQL_HOST they skip, except under CI=true.

// openDriver opens the driver with cfg, its log lines going to the buffer.
func openDriver(t *testing.T, cfg drivers.Config) (drivers.Driver, *testenv.Buffer) {
	t.Helper()
	return testenv.OpenDriver(t, Open, cfg)
}

// table creates a fresh table for one test and drops it afterwards.
func table(t *testing.T, c drivers.Conn, name, def string) {
	t.Helper()
	testenv.MustQuery(t, c, "DROP TABLE IF EXISTS "+name)
	testenv.MustQuery(t, c, "CREATE TABLE "+name+" "+def)
	t.Cleanup(func() {
		c.Query(context.Background(), "DROP TABLE IF EXISTS "+name)
	})
}

func TestQueryTextValues(t *testing.T) {
	s := testenv.RequireServer(t, "mysql")
	d, _ := openDriver(t, drivers.Config{Values: s.Values(nil)})
	c := testenv.Connect(t, d)

	r := testenv.MustQuery(t, c, "SELECT 1, 'abc', NULL, -3, CAST(18446744073709551615 AS UNSIGNED), "+
		"CAST(2.5 AS DOUBLE), 1.25, DATE('2024-01-02'), CAST('2024-01-02 03:04:05' AS DATETIME), X'00FF', 1e20+0e0")
	if r.Counter() != drivers.CntRead || r.NRows() != 1 || r.NFields() != 11 {
		t.Fatalf("counter %v nrows %d nfields %d", r.Counter(), r.NRows(), r.NFields())
	}
	got := testenv.Rows(r)
	want := []string{"1", "abc", "NULL", "-3", "18446744073709551615", "2.5", "1.25", "2024-01-02", "2024-01-02 03:04:05", "\x00\xff", "1e20"}
	if strings.Join(got[0], "|") != strings.Join(want, "|") {
		t.Fatalf("got %q\nwant %q", got[0], want)
	}

	// An empty result set is still a read.
	r = testenv.MustQuery(t, c, "SELECT 1 FROM DUAL WHERE 1 = 0")
	if r.Counter() != drivers.CntRead || r.NRows() != 0 || r.Next() {
		t.Fatalf("empty select: counter %v nrows %d", r.Counter(), r.NRows())
	}
}

func TestPreparedParams(t *testing.T) {
	s := testenv.RequireServer(t, "mysql")
	for _, mode := range []drivers.PSMode{drivers.PSAuto, drivers.PSDisable} {
		t.Run(strconv.Itoa(int(mode)), func(t *testing.T) {
			d, _ := openDriver(t, drivers.Config{Values: s.Values(nil), PSMode: mode})
			c := testenv.Connect(t, d)
			table(t, c, "drvmysql_params", "(id INT PRIMARY KEY, s VARCHAR(50), d DOUBLE, f FLOAT, n INT NULL)")
			ctx := context.Background()
			ins, err := c.Prepare(ctx, "INSERT INTO drvmysql_params VALUES (?, ?, ?, ?, ?)")
			if err != nil {
				t.Fatal(err)
			}
			defer ins.Close()
			args := []drivers.Value{
				{Type: drivers.TypeInt, Int: 7},
				{Type: drivers.TypeVarChar, Str: []byte("seven")},
				{Type: drivers.TypeDouble, Float: 7.25},
				{Type: drivers.TypeFloat, Float: 0.5},
				{Type: drivers.TypeInt, Null: true},
			}
			r, err := ins.Execute(ctx, args)
			if err != nil {
				t.Fatal(err)
			}
			if r.Counter() != drivers.CntWrite || r.NRows() != 1 {
				t.Fatalf("insert: counter %v nrows %d", r.Counter(), r.NRows())
			}
			sel, err := c.Prepare(ctx, "SELECT id, s, d, f, n FROM drvmysql_params WHERE id = ?")
			if err != nil {
				t.Fatal(err)
			}
			defer sel.Close()
			r, err = sel.Execute(ctx, args[:1])
			if err != nil {
				t.Fatal(err)
			}
			if r.Counter() != drivers.CntRead || r.NRows() != 1 {
				t.Fatalf("select: counter %v nrows %d", r.Counter(), r.NRows())
			}
			if got := strings.Join(testenv.Rows(r)[0], "|"); got != "7|seven|7.25|0.5|NULL" {
				t.Fatalf("got %s", got)
			}
			// Wrong argument count is a fatal error, not a panic.
			if _, err := sel.Execute(ctx, nil); drivers.AsError(err) == nil {
				t.Fatalf("missing args: %v", err)
			}
		})
	}
}

func TestCounters(t *testing.T) {
	s := testenv.RequireServer(t, "mysql")
	for _, mode := range []drivers.PSMode{drivers.PSAuto, drivers.PSDisable} {
		t.Run(strconv.Itoa(int(mode)), func(t *testing.T) {
			d, _ := openDriver(t, drivers.Config{Values: s.Values(nil), PSMode: mode})
			c := testenv.Connect(t, d)
			table(t, c, "drvmysql_cnt", "(id INT PRIMARY KEY, k INT) ENGINE=InnoDB")
			steps := []struct {
				q    string
				want drivers.Counter
			}{
				{"BEGIN", drivers.CntOther},
				{"INSERT INTO drvmysql_cnt VALUES (1, 1), (2, 2)", drivers.CntWrite},
				{"SELECT k FROM drvmysql_cnt WHERE id = 1", drivers.CntRead},
				{"SELECT k FROM drvmysql_cnt WHERE id = 99", drivers.CntRead},
				{"UPDATE drvmysql_cnt SET k = k + 1 WHERE id = 1", drivers.CntWrite},
				{"UPDATE drvmysql_cnt SET k = k WHERE id = 1", drivers.CntOther}, // no row changed
				{"DELETE FROM drvmysql_cnt WHERE id = 2", drivers.CntWrite},
				{"DELETE FROM drvmysql_cnt WHERE id = 2", drivers.CntOther},
				{"COMMIT", drivers.CntOther},
				{"  /* c */ (SELECT 1)", drivers.CntRead},
				{"SHOW TABLES", drivers.CntRead},
				{"SET @x = 1", drivers.CntOther},
			}
			ctx := context.Background()
			for _, st := range steps {
				r := testenv.MustQuery(t, c, st.q)
				if r.Counter() != st.want {
					t.Errorf("Query(%q) counter %v, want %v", st.q, r.Counter(), st.want)
				}
			}
			// The same through prepared statements.
			testenv.MustQuery(t, c, "DELETE FROM drvmysql_cnt")
			for _, st := range steps {
				p, err := c.Prepare(ctx, st.q)
				if err != nil {
					t.Fatalf("Prepare(%q): %v", st.q, err)
				}
				r, err := p.Execute(ctx, nil)
				if err != nil {
					t.Fatalf("Execute(%q): %v", st.q, err)
				}
				if r.Counter() != st.want {
					t.Errorf("Execute(%q) counter %v, want %v", st.q, r.Counter(), st.want)
				}
				p.Close()
			}
		})
	}
}

func TestPSDisableQuoting(t *testing.T) {
	s := testenv.RequireServer(t, "mysql")
	d, _ := openDriver(t, drivers.Config{Values: s.Values(nil), PSMode: drivers.PSDisable})
	c := testenv.Connect(t, d)
	table(t, c, "drvmysql_quote", "(id INT PRIMARY KEY, s VARBINARY(100))")
	ctx := context.Background()
	ins, err := c.Prepare(ctx, "INSERT INTO drvmysql_quote /* ? */ VALUES (?, ?) -- ?")
	if err != nil {
		t.Fatal(err)
	}
	sel, err := c.Prepare(ctx, "SELECT s FROM drvmysql_quote WHERE id = ? AND '?' = '?'")
	if err != nil {
		t.Fatal(err)
	}
	tricky := []string{"it's", `back\slash`, `"dq"`, "nul\x00byte", "new\nline\r", "?", "\x1a", "''", `\'`, "", "`x`; DROP TABLE drvmysql_quote; --"}
	for i, str := range tricky {
		id := drivers.Value{Type: drivers.TypeInt, Int: int64(i)}
		if _, err := ins.Execute(ctx, []drivers.Value{id, {Type: drivers.TypeVarChar, Str: []byte(str)}}); err != nil {
			t.Fatalf("insert %q: %v", str, err)
		}
		r, err := sel.Execute(ctx, []drivers.Value{id})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Next() {
			t.Fatalf("%q: no row", str)
		}
		if v, ok := r.Value(0); !ok || string(v) != str {
			t.Fatalf("round trip of %q gave %q", str, v)
		}
	}
}

func TestErrors(t *testing.T) {
	s := testenv.RequireServer(t, "mysql")
	d, log := openDriver(t, drivers.Config{Values: s.Values(nil)})
	c := testenv.Connect(t, d)
	ctx := context.Background()

	_, err := c.Query(ctx, "SELEC 1")
	e := drivers.AsError(err)
	if e == nil || e.Kind != drivers.Fatal || e.Code != 1064 || e.State != "42000" {
		t.Fatalf("syntax error: %#v", e)
	}
	if !strings.Contains(log.String(), "FATAL: mysql_drv_query() returned error 1064 (You have an error in your SQL syntax") ||
		!strings.Contains(log.String(), "for query 'SELEC 1'") {
		t.Fatalf("log: %s", log)
	}

	_, err = c.Prepare(ctx, "SELECT c FROM drvmysql_missing WHERE id=?")
	e = drivers.AsError(err)
	wantMsg := "Table '" + s.DB + ".drvmysql_missing' doesn't exist"
	if e == nil || e.Code != 1146 || e.Msg != wantMsg || e.Kind != drivers.Fatal {
		t.Fatalf("missing table: %#v", e)
	}
	if !strings.Contains(log.String(), "FATAL: mysql_stmt_prepare() failed\nFATAL: MySQL error: 1146 \""+wantMsg+"\"\n") {
		t.Fatalf("log: %s", log)
	}

	table(t, c, "drvmysql_dup", "(id INT PRIMARY KEY)")
	testenv.MustQuery(t, c, "INSERT INTO drvmysql_dup VALUES (1)")
	_, err = c.Query(ctx, "INSERT INTO drvmysql_dup VALUES (1)")
	if e = drivers.AsError(err); e == nil || e.Code != 1062 || e.State != "23000" || e.Kind != drivers.Fatal {
		t.Fatalf("duplicate key: %#v", e)
	}
	// The connection is still usable after errors.
	if got := testenv.Rows(testenv.MustQuery(t, c, "SELECT COUNT(*) FROM drvmysql_dup")); got[0][0] != "1" {
		t.Fatalf("count %v", got)
	}
}

func TestDeadlockIgnorable(t *testing.T) {
	s := testenv.RequireServer(t, "mysql")
	d, _ := openDriver(t, drivers.Config{Values: s.Values(nil)})
	c1, c2 := testenv.Connect(t, d), testenv.Connect(t, d)
	table(t, c1, "drvmysql_dl", "(id INT PRIMARY KEY, k INT) ENGINE=InnoDB")
	testenv.MustQuery(t, c1, "INSERT INTO drvmysql_dl VALUES (1, 0), (2, 0)")
	for _, c := range []drivers.Conn{c1, c2} {
		testenv.MustQuery(t, c, "SET SESSION innodb_lock_wait_timeout = 10")
		testenv.MustQuery(t, c, "BEGIN")
	}
	testenv.MustQuery(t, c1, "UPDATE drvmysql_dl SET k = 1 WHERE id = 1")
	testenv.MustQuery(t, c2, "UPDATE drvmysql_dl SET k = 1 WHERE id = 2")
	done := make(chan error, 1)
	go func() {
		_, err := c1.Query(context.Background(), "UPDATE drvmysql_dl SET k = 2 WHERE id = 2")
		done <- err
	}()
	time.Sleep(200 * time.Millisecond) // let c1 block on the row lock
	_, err2 := c2.Query(context.Background(), "UPDATE drvmysql_dl SET k = 2 WHERE id = 1")
	err1 := <-done
	var e *drivers.Error
	for _, err := range []error{err1, err2} {
		if x := drivers.AsError(err); x != nil {
			e = x
		}
	}
	if e == nil || e.Code != 1213 || e.Kind != drivers.Ignorable || e.State != "40001" {
		t.Fatalf("deadlock: err1=%v err2=%v", err1, err2)
	}
	testenv.MustQuery(t, c1, "ROLLBACK")
	testenv.MustQuery(t, c2, "ROLLBACK")
}

func TestConnectErrors(t *testing.T) {
	s := testenv.RequireServer(t, "mysql")
	v := s.Values(nil, "mysql-user", "nosuch", "mysql-password", "wrong")
	d, log := openDriver(t, drivers.Config{Values: v})
	_, err := d.Connect(context.Background())
	e := drivers.AsError(err)
	if e == nil || e.Code != 1045 || e.Kind != drivers.Fatal {
		t.Fatalf("bad credentials: %v", err)
	}
	want := "FATAL: unable to connect to MySQL server on host '" + s.Host + "', port " + s.Port + ", aborting...\n" +
		"FATAL: error 1045: Access denied for user 'nosuch'@'"
	if !strings.HasPrefix(log.String(), want) {
		t.Fatalf("log %q\nwant prefix %q", log, want)
	}

	port := closedPort(t)
	d, log = openDriver(t, drivers.Config{Values: s.Values(nil, "mysql-port", port)})
	_, err = d.Connect(context.Background())
	if e = drivers.AsError(err); e == nil || (e.Code != 2002 && e.Code != 2003) {
		t.Fatalf("closed port: %v", err)
	}
	if !strings.Contains(log.String(), "port "+port+", aborting...\nFATAL: error 2002: Can't connect to server on '"+s.Host+"' (111)") {
		t.Fatalf("log %q", log)
	}
}

// closedPort returns a local TCP port nothing listens on.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(l.Addr().String())
	l.Close()
	return port
}

// Both I/O modes: Go's netpoller and blocking system calls.
var ioModes = []string{"off", "on"}

// Each I/O mode talks through its own kind of socket (drivers/sockio).
func TestSocketIOMode(t *testing.T) {
	s := testenv.RequireServer(t, "mysql")
	for _, mode := range ioModes {
		d, _ := openDriver(t, drivers.Config{Values: s.Values(nil, "mysql-blocking-io", mode)})
		c := testenv.Connect(t, d).(*conn)
		testenv.MustQuery(t, c, "SELECT 1")
		var ok bool
		if mode == "on" {
			_, ok = c.nc.(*sockio.Conn)
		} else {
			_, ok = c.nc.(*sockio.PolledConn)
		}
		if !ok {
			t.Errorf("blocking-io=%s talks through a %T", mode, c.nc)
		}
	}
}

func TestKillReconnect(t *testing.T) {
	for _, mode := range ioModes {
		t.Run("blocking-io="+mode, func(t *testing.T) { testKillReconnect(t, mode) })
	}
}

func testKillReconnect(t *testing.T, blocking string) {
	s := testenv.RequireServer(t, "mysql")
	d, log := openDriver(t, drivers.Config{Values: s.Values(nil, "mysql-ignore-errors", "1213,2013,2006", "mysql-blocking-io", blocking), Debug: true})
	c, killer := testenv.Connect(t, d), testenv.Connect(t, d)
	ctx := context.Background()
	st, err := c.Prepare(ctx, "SELECT ?")
	if err != nil {
		t.Fatal(err)
	}
	id := testenv.Rows(testenv.MustQuery(t, c, "SELECT CONNECTION_ID()"))[0][0]
	testenv.MustQuery(t, killer, "KILL CONNECTION "+id)

	_, err = c.Query(ctx, "SELECT 1")
	e := drivers.AsError(err)
	if e == nil || e.Kind != drivers.Reconnect || (e.Code != 2013 && e.Code != 2006) {
		t.Fatalf("after kill: %v (%#v)", err, e)
	}
	if !strings.Contains(log.String(), "DEBUG: Ignoring error") || !strings.Contains(log.String(), "DEBUG: Reconnected") {
		t.Fatalf("log %q", log)
	}
	// The driver has reconnected: the connection and its statements work.
	if got := testenv.Rows(testenv.MustQuery(t, c, "SELECT CONNECTION_ID()"))[0][0]; got == id {
		t.Fatalf("same connection id %s after reconnect", got)
	}
	r, err := st.Execute(ctx, []drivers.Value{{Type: drivers.TypeInt, Int: 42}})
	if err != nil {
		t.Fatal(err)
	}
	if got := testenv.Rows(r)[0][0]; got != "42" {
		t.Fatalf("statement after reconnect: %s", got)
	}

	// Not ignorable: a fatal 2013 with the reference's line.
	d2, log2 := openDriver(t, drivers.Config{Values: s.Values(nil, "mysql-blocking-io", blocking)})
	c2 := testenv.Connect(t, d2)
	id = testenv.Rows(testenv.MustQuery(t, c2, "SELECT CONNECTION_ID()"))[0][0]
	testenv.MustQuery(t, killer, "KILL CONNECTION "+id)
	_, err = c2.Query(ctx, "SELECT 1")
	if e = drivers.AsError(err); e == nil || e.Kind != drivers.Fatal || e.Code != 2013 {
		t.Fatalf("fatal lost connection: %v", err)
	}
	if want := "FATAL: mysql_drv_query() returned error 2013 (Lost connection to server during query) for query 'SELECT 1'\n"; log2.String() != want {
		t.Fatalf("log %q, want %q", log2, want)
	}
	// The next call finds the connection gone.
	_, err = c2.Query(ctx, "SELECT 2")
	if e = drivers.AsError(err); e == nil || e.Kind != drivers.Fatal || e.Code != 2006 {
		t.Fatalf("query on a lost connection: %v", err)
	}
	if err := c2.Reconnect(ctx); err != nil {
		t.Fatal(err)
	}
	testenv.MustQuery(t, c2, "SELECT 3")
}

func TestCompressionAndTLS(t *testing.T) {
	s := testenv.RequireServer(t, "mysql")
	d, _ := openDriver(t, drivers.Config{Values: s.Values(nil, "mysql-compression", "on")})
	c := testenv.Connect(t, d)
	r := testenv.MustQuery(t, c, "SELECT REPEAT('x', 100000)")
	if _, ok := r.Value(0); ok {
		t.Fatal("Value before Next returned a value")
	}
	if !r.Next() {
		t.Fatal("no row")
	}
	if v, ok := r.Value(0); !ok || len(v) != 100000 {
		t.Fatalf("compressed result of %d bytes", len(v))
	}
	// PREFERRED falls back to plain text on a server without TLS; REQUIRED
	// fails there. A server with TLS (testdb.sh gives its server a
	// self-signed certificate) encrypts either way, in both I/O modes.
	cipher := func(c drivers.Conn) string {
		return testenv.Rows(testenv.MustQuery(t, c, "SHOW SESSION STATUS LIKE 'Ssl_cipher'"))[0][1]
	}
	offered := testenv.Rows(testenv.MustQuery(t, c, "SHOW VARIABLES LIKE 'have_ssl'"))[0][1] == "YES"
	if !offered {
		t.Log("the test server offers no TLS: only the fallback is checked")
	}
	for _, mode := range ioModes {
		d, _ = openDriver(t, drivers.Config{Values: s.Values(nil, "mysql-ssl", "PREFERRED", "mysql-blocking-io", mode)})
		if got := cipher(testenv.Connect(t, d)); (got != "") != offered {
			t.Errorf("PREFERRED, blocking-io=%s: cipher %q with TLS offered %v", mode, got, offered)
		}
		d, _ = openDriver(t, drivers.Config{Values: s.Values(nil, "mysql-ssl", "REQUIRED", "mysql-blocking-io", mode)})
		c, err := d.Connect(context.Background())
		switch {
		case err == nil && offered:
			if cipher(c) == "" {
				t.Errorf("REQUIRED, blocking-io=%s: the session is not encrypted", mode)
			}
			// TLS runs over the socket kind the I/O mode chose.
			if _, blocking := c.(*conn).nc.(*sockio.Conn); blocking != (mode == "on") {
				t.Errorf("REQUIRED, blocking-io=%s: TLS over a %T", mode, c.(*conn).nc)
			}
			// A larger reply, many TLS records.
			testenv.MustQuery(t, c, "SELECT REPEAT('x', 100000)")
			c.Close()
		case err == nil:
			t.Errorf("REQUIRED connected to a server without TLS")
		case offered:
			t.Fatalf("REQUIRED, blocking-io=%s: %v", mode, err)
		default:
			if e := drivers.AsError(err); e == nil || e.Code != 2026 {
				t.Fatalf("REQUIRED without server TLS: %v", err)
			}
		}
	}
}

func TestTargets(t *testing.T) {
	v := options.NewValues()
	v.Set("mysql-host", "h1,h2")
	v.Set("mysql-port", "1,2,3")
	d, err := Open(drivers.Config{Values: v})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tg := range d.(*drv).s.targets {
		got = append(got, tg.addr)
	}
	if want := "h1:1 h1:2 h1:3 h2:1 h2:2 h2:3"; strings.Join(got, " ") != want {
		t.Fatalf("targets %v, want %s", got, want)
	}
}

// TestRoundRobin: connections take the targets in turn, and one whose own
// target refuses goes on to the next target of the list (its Endpoint says
// which). Only when every target fails does the connect fail, with the own
// target's error.
func TestRoundRobin(t *testing.T) {
	s := testenv.RequireServer(t, "mysql")
	bad := closedPort(t)
	good := s.Host + ":" + s.Port
	d, _ := openDriver(t, drivers.Config{Values: s.Values(nil, "mysql-port", s.Port+","+bad)})
	ctx := context.Background()
	for i := 0; i < 4; i++ {
		c, err := d.Connect(ctx)
		if err != nil {
			t.Fatalf("connection %d: %v, want the next target", i, err)
		}
		if got := drivers.EndpointOf(c); got != good {
			t.Errorf("connection %d: endpoint %q, want %q", i, got, good)
		}
		// con:reconnect() takes the same way.
		if err := c.Reconnect(ctx); err != nil {
			t.Fatalf("connection %d: reconnect: %v", i, err)
		}
		if got := drivers.EndpointOf(c); got != good {
			t.Errorf("connection %d reconnected: endpoint %q, want %q", i, got, good)
		}
		c.Close()
	}
	// Two live targets (the same server's socket by two names): taken in
	// turn.
	if s.Socket != "" {
		alias := filepath.Join(t.TempDir(), "s")
		if err := os.Symlink(s.Socket, alias); err != nil {
			t.Fatal(err)
		}
		d, _ = openDriver(t, drivers.Config{Values: s.Values(nil, "mysql-socket", s.Socket+","+alias)})
		for i, w := range []string{s.Socket, alias, s.Socket} {
			c, err := d.Connect(ctx)
			if err != nil {
				t.Fatalf("socket connection %d: %v", i, err)
			}
			if got := drivers.EndpointOf(c); got != w {
				t.Errorf("socket connection %d: endpoint %q, want %q", i, got, w)
			}
			c.Close()
		}
	}
	d, log := openDriver(t, drivers.Config{Values: s.Values(nil, "mysql-port", bad+","+closedPort(t))})
	_, err := d.Connect(ctx)
	if e := drivers.AsError(err); e == nil || e.Code != 2002 {
		t.Fatalf("every target refused: %v, want error 2002", err)
	}
	if !strings.Contains(log.String(), "port "+bad+", aborting") {
		t.Errorf("the FATAL line does not name the connection's own target:\n%s", log)
	}
}

func TestMultiStatement(t *testing.T) {
	s := testenv.RequireServer(t, "mysql")
	d, _ := openDriver(t, drivers.Config{Values: s.Values(nil)})
	c := testenv.Connect(t, d)
	ctx := context.Background()
	r := testenv.MustQuery(t, c, "SELECT 1; SELECT 2, 3 UNION ALL SELECT 4, 5")
	if got := testenv.Rows(r); len(got) != 1 || got[0][0] != "1" {
		t.Fatalf("first result %v", got)
	}
	if !c.MoreResults() {
		t.Fatal("MoreResults = false after the first result")
	}
	r, err := c.NextResult(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := testenv.Rows(r); len(got) != 2 || strings.Join(got[1], ",") != "4,5" || r.Counter() != drivers.CntRead {
		t.Fatalf("second result %v", got)
	}
	if c.MoreResults() {
		t.Fatal("MoreResults = true after the last result")
	}
	// A new query discards unread results.
	testenv.MustQuery(t, c, "SELECT 1; SELECT 2")
	if got := testenv.Rows(testenv.MustQuery(t, c, "SELECT 7"))[0][0]; got != "7" {
		t.Fatalf("after discarded results: %s", got)
	}
}

func TestDryRun(t *testing.T) {
	v := options.NewValues()
	v.Set("mysql-dry-run", "on")
	v.Set("mysql-port", "1") // nothing listens: dry run never connects
	d, err := Open(drivers.Config{Values: v})
	if err != nil {
		t.Fatal(err)
	}
	c, err := d.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Query(context.Background(), "INSERT INTO t VALUES (1)")
	if err != nil || r.Counter() != drivers.CntOther || r.NRows() != 0 {
		t.Fatalf("dry run: %v %v", r, err)
	}
}

// The engine gives workers a processor each only for blocking connections:
// the default, with SSL too, but not in a dry run, when turned off or,
// unless turned on, from drivers.ManyThreads threads on.
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
		{nil, true, 1, none},
		{[]string{"mysql-dry-run", "on"}, false, 1, none},
		{[]string{"mysql-dry-run", "on"}, false, 1000, none},
		{[]string{"mysql-blocking-io", "off"}, false, 1, polled},
		{[]string{"mysql-ssl", "REQUIRED"}, false, 8, blocking},
		{[]string{"mysql-ssl", "REQUIRED", "mysql-blocking-io", "off"}, false, 8, polled},
		{[]string{"mysql-ssl", "off"}, false, 8, blocking},
		{nil, false, drivers.ManyThreads - 1, blocking},
		{nil, false, drivers.ManyThreads, polled}, // many threads: the netpoller
		{[]string{"mysql-blocking-io", "on"}, false, 1000, blocking},
	} {
		v := testenv.Values(nil, tc.set...)
		if got := Factory.Wait(drivers.Config{Values: v, DryRun: tc.dry, Threads: tc.threads}); got != tc.want {
			t.Errorf("%v dry=%v threads=%d: Wait %v, want %v", tc.set, tc.dry, tc.threads, got, tc.want)
		}
	}
}

// TestOptionsMatchReference: the reference's block of --help is ours byte
// for byte (sysbench 1.0.20's --help, recorded).
func TestOptionsMatchReference(t *testing.T) {
	block := "mysql options:\n" + options.FormatReferenceHelp(Factory.Options) + "\n"
	if !strings.Contains(testenv.ReferenceHelp(t, "../.."), "\n"+block) {
		t.Errorf("our mysql options block is not the reference's:\n%s", block)
	}
}

func TestBadSSLMode(t *testing.T) {
	v := options.NewValues()
	v.Set("mysql-ssl", "SOMETIMES")
	if _, err := Open(drivers.Config{Values: v}); err == nil {
		t.Fatal("bad --mysql-ssl accepted")
	}
	for _, m := range []string{"on", "off", "DISABLED", "preferred", "REQUIRED"} {
		v.Set("mysql-ssl", m)
		if _, err := Open(drivers.Config{Values: v}); err != nil {
			t.Fatalf("--mysql-ssl=%s: %v", m, err)
		}
	}
}

func TestCancelledContext(t *testing.T) {
	for _, mode := range ioModes {
		t.Run("blocking-io="+mode, func(t *testing.T) { testCancelledContext(t, mode) })
	}
}

func testCancelledContext(t *testing.T, blocking string) {
	s := testenv.RequireServer(t, "mysql")
	d, log := openDriver(t, drivers.Config{Values: s.Values(nil, "mysql-blocking-io", blocking)})
	c := testenv.Connect(t, d)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := c.Query(ctx, "SELECT SLEEP(5)")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancelled query: %v", err)
	}
	if log.String() != "" {
		t.Fatalf("cancellation logged %q", log)
	}
	// The connection serves the next context (as thread_done would use it),
	// whether the old context ended during a call or while idle.
	testenv.MustQuery(t, c, "SELECT 1")
	ctx2, cancel2 := context.WithCancel(context.Background())
	if _, err := c.Query(ctx2, "SELECT 2"); err != nil {
		t.Fatal(err)
	}
	cancel2()
	time.Sleep(10 * time.Millisecond)
	if got := testenv.Rows(testenv.MustQuery(t, c, "SELECT 3"))[0][0]; got != "3" {
		t.Fatalf("after idle cancel: %s", got)
	}
	if log.String() != "" {
		t.Fatalf("log %q", log)
	}
}

func TestPreparedAllocs(t *testing.T) {
	s := testenv.RequireServer(t, "mysql")
	for name, c := range bothPaths(t, s) {
		ctx := context.Background()
		st, err := c.Prepare(ctx, "SELECT ?, 'abc'")
		if err != nil {
			t.Fatal(err)
		}
		args := []drivers.Value{{Type: drivers.TypeInt, Int: 1}}
		perCall := allocs.PerRun(200, func() {
			r, err := st.Execute(ctx, args)
			if err != nil {
				t.Fatal(err)
			}
			for r.Next() {
				r.Value(0)
			}
		})
		t.Logf("%s: %.1f allocations per prepared point select", name, perCall)
		// Our execute path allocates nothing; go-sql-driver's allocates
		// the rows object and boxes values in driver.Value.
		if limit := map[string]float64{"wire": 0, "go-sql-driver": 8}[name]; perCall > limit {
			t.Fatalf("%s: %.1f allocations per execute", name, perCall)
		}
	}
}

// BenchmarkPointSelect is sysbench's oltp_point_select on a one-row table:
// go test -run '^$' -bench PointSelect ./drivers/mysql/
func BenchmarkPointSelect(b *testing.B) {
	s := testenv.RequireServer(b, "mysql")
	for _, mode := range []drivers.PSMode{drivers.PSAuto, drivers.PSDisable} {
		b.Run(strconv.Itoa(int(mode)), func(b *testing.B) {
			d, err := Open(drivers.Config{Values: s.Values(nil), PSMode: mode})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			c, err := d.Connect(ctx)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			st, err := c.Prepare(ctx, "SELECT CONCAT(?, '-', REPEAT('c', 100))")
			if err != nil {
				b.Fatal(err)
			}
			args := []drivers.Value{{Type: drivers.TypeInt, Int: 12345}}
			b.ReportAllocs()
			for b.Loop() {
				r, err := st.Execute(ctx, args)
				if err != nil {
					b.Fatal(err)
				}
				for r.Next() {
					r.Value(0)
				}
			}
		})
	}
}
