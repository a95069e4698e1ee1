package mysql

import (
	"context"
	"crypto/md5"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

// Prepared statements run through our own COM_STMT_EXECUTE (wire.go) on
// plain connections. These tests hold it to what go-sql-driver's path
// gives for the same statements on the same server: every column type,
// every kind of argument, errors, packets of 16 MiB and more, lost and
// cancelled connections.

// bothPaths opens the driver twice with the same options: "wire" uses our
// execute path, "go-sql-driver" does not.
func bothPaths(t *testing.T, s testenv.Server, kv ...string) map[string]drivers.Conn {
	t.Helper()
	conns := map[string]drivers.Conn{}
	for _, name := range []string{"wire", "go-sql-driver"} {
		d, _ := openDriver(t, drivers.Config{Values: s.Values(nil, kv...)})
		d.(*drv).noWire = name != "wire"
		c := testenv.Connect(t, d)
		if got := c.(*conn).wireOn; got != (name == "wire") {
			t.Fatalf("%s: wire in use %v", name, got)
		}
		conns[name] = c
	}
	return conns
}

// execute prepares query on c, runs it with args and returns the result
// as text, its counter and the error.
func execute(t *testing.T, c drivers.Conn, query string, args ...drivers.Value) (rows [][]string, cnt drivers.Counter, nrows uint64, err error) {
	t.Helper()
	ctx := context.Background()
	st, err := c.Prepare(ctx, query)
	if err != nil {
		t.Fatalf("Prepare(%q): %v", query, err)
	}
	defer st.Close()
	if w := c.(*conn).wireOn; st.(*stmt).wire != (w && !isCall(query)) {
		t.Fatalf("Prepare(%q): statement on wire %v, connection %v", query, st.(*stmt).wire, w)
	}
	r, err := st.Execute(ctx, args)
	if err != nil {
		return nil, 0, 0, err
	}
	cnt, nrows = r.Counter(), r.NRows()
	return testenv.Rows(r), cnt, nrows, nil
}

func intArg(v int64) drivers.Value { return drivers.Value{Type: drivers.TypeInt, Int: v} }
func strArg(s string) drivers.Value {
	return drivers.Value{Type: drivers.TypeVarChar, Str: []byte(s)}
}

func TestWireColumnTypes(t *testing.T) {
	s := testenv.RequireServer(t, "mysql")
	conns := bothPaths(t, s)
	c := conns["wire"]
	table(t, c, "drvmysql_types", `(id INT PRIMARY KEY,
		ti TINYINT, tu TINYINT UNSIGNED, si SMALLINT, su SMALLINT UNSIGNED,
		mi MEDIUMINT, mu MEDIUMINT UNSIGNED, i INT, iu INT UNSIGNED,
		bi BIGINT, bu BIGINT UNSIGNED, f FLOAT, d DOUBLE, de DECIMAL(12,3),
		y YEAR, dt DATE, tm TIME, tm3 TIME(3), dtm DATETIME, dtm6 DATETIME(6),
		ts TIMESTAMP(2) NULL DEFAULT NULL, ch CHAR(5), vc VARCHAR(300),
		vb VARBINARY(8), tx TEXT, bl MEDIUMBLOB, e ENUM('a','b'), st SET('x','y'),
		b BIT(10), j JSON, n INT NULL)`)
	testenv.MustQuery(t, c, `INSERT INTO drvmysql_types VALUES
		(1, -128, 0, -32768, 0, -8388608, 0, -2147483648, 0, -9223372036854775808, 0,
		 -1.5e-7, -2.2250738585072014e-308, -999999999.999, 1901, '1000-01-01',
		 '-838:59:59', '-00:00:00.001', '1000-01-01 00:00:00', '1000-01-01 00:00:00.000001',
		 '1970-01-02 00:00:00.01', '', '', '', '', '', 'a', '', b'0', '[]', NULL),
		(2, 127, 255, 32767, 65535, 8388607, 16777215, 2147483647, 4294967295,
		 9223372036854775807, 18446744073709551615, 3.4e38, 1.7976931348623157e308,
		 999999999.999, 2155, '9999-12-31', '838:59:59', '123:45:06.789',
		 '9999-12-31 23:59:59', '9999-12-31 23:59:59.999999', '2038-01-19 03:14:07.99',
		 'abcde', REPEAT('v', 300), X'00FF27225C', 'it''s', REPEAT('z', 70000),
		 'b', 'x,y', b'1111111111', '{"k": [1, "two", null]}', 7),
		(3, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 0, 2000, '2024-02-29', '00:00:00',
		 '12:00:00.5', '2024-02-29 12:34:56', '2024-02-29 12:34:56.5', NULL,
		 'a', 'b', X'', 'c', X'00', 'a', 'x', b'1', '{}', NULL),
		(4, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0.1, 0.1, 0.5, 2024, '0000-00-00',
		 '-01:02:03', '00:00:01.2', '0000-00-00 00:00:00', '2024-01-01 00:00:00',
		 '2024-01-01 00:00:00', 'x', 'y', 'z', 'w', 'v', 'b', 'y', b'10', '1', NULL)`)

	queries := []struct {
		q    string
		args []drivers.Value
	}{
		{"SELECT * FROM drvmysql_types WHERE id >= ? ORDER BY id", []drivers.Value{intArg(1)}},
		{"SELECT * FROM drvmysql_types WHERE id = ?", []drivers.Value{intArg(99)}},
		// expressions of every kind, NULLs among them
		{"SELECT ?, ?, ?, ?, ?, NULL, 1.25, 1e20+0e0, CAST(? AS SIGNED), CAST(? AS UNSIGNED), " +
			"CAST(? AS DOUBLE), CURDATE() > '2000-01-01', CAST('10:11:12' AS TIME), SEC_TO_TIME(?)",
			[]drivers.Value{intArg(-5), strArg("x'y\\z"), {Type: drivers.TypeDouble, Float: -0.25},
				{Type: drivers.TypeFloat, Float: 1.5}, {Type: drivers.TypeInt, Null: true},
				intArg(-3), strArg("18446744073709551615"), strArg("1e-9"), intArg(400000)}},
		{"SELECT id, c FROM (SELECT 1 AS id, 'a' AS c UNION ALL SELECT 2, NULL) t WHERE id <= ?", []drivers.Value{intArg(2)}},
	}
	for _, q := range queries {
		var want [][]string
		var wantHead string
		for _, name := range []string{"go-sql-driver", "wire"} {
			rows, cnt, n, err := execute(t, conns[name], q.q, q.args...)
			if err != nil {
				t.Fatalf("%s: %q: %v", name, q.q, err)
			}
			head := fmt.Sprintf("counter %v, %d rows", cnt, n)
			if name == "go-sql-driver" {
				want, wantHead = rows, head
				continue
			}
			if head != wantHead {
				t.Errorf("%q: wire %s, go-sql-driver %s", q.q, head, wantHead)
			}
			if d := diffRows(rows, want); d != "" {
				t.Errorf("%q: wire / go-sql-driver: %s", q.q, d)
			}
		}
	}

	// The binary rows must read as the text protocol sends them.
	rows, _, _, err := execute(t, c, "SELECT * FROM drvmysql_types WHERE id >= ? ORDER BY id", intArg(1))
	if err != nil {
		t.Fatal(err)
	}
	text := testenv.Rows(testenv.MustQuery(t, c, "SELECT * FROM drvmysql_types ORDER BY id"))
	if d := diffRows(rows, text); d != "" {
		t.Errorf("binary / text protocol: %s", d)
	}
}

// diffRows describes the first difference between two results, or
// returns "".
func diffRows(got, want [][]string) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			return fmt.Sprintf("row %d: %d columns, want %d", i+1, len(got[i]), len(want[i]))
		}
		for j := range want[i] {
			if g, w := got[i][j], want[i][j]; g != w {
				return fmt.Sprintf("row %d column %d: %.60q, want %.60q", i+1, j+1, g, w)
			}
		}
	}
	return ""
}

func TestWireArguments(t *testing.T) {
	s := testenv.RequireServer(t, "mysql")
	conns := bothPaths(t, s)
	table(t, conns["wire"], "drvmysql_args", "(path VARCHAR(20), i BIGINT, f DOUBLE, s MEDIUMBLOB, e VARCHAR(5), n INT NULL)")
	// String lengths on both sides of each length-encoding step.
	for _, size := range []int{0, 250, 251, 65535, 65536, 300000} {
		str := strings.Repeat("\x00'\"\\\xff", size/5+1)[:size]
		var rows [2][][]string
		for k, name := range []string{"wire", "go-sql-driver"} {
			args := []drivers.Value{strArg(name), intArg(-1 << 63),
				{Type: drivers.TypeDouble, Float: 1.0 / 3}, {Type: drivers.TypeVarChar, Str: []byte(str)},
				{Type: drivers.TypeChar}, {Type: drivers.TypeInt, Null: true}}
			_, cnt, n, err := execute(t, conns[name], "INSERT INTO drvmysql_args VALUES (?, ?, ?, ?, ?, ?)", args...)
			if err != nil || cnt != drivers.CntWrite || n != 1 {
				t.Fatalf("%s, %d bytes: counter %v, %d rows, %v", name, size, cnt, n, err)
			}
			rows[k] = testenv.Rows(testenv.MustQuery(t, conns[name],
				"SELECT i, f, LENGTH(s), MD5(s), s = UNHEX('"+fmt.Sprintf("%X", str)+"'), e IS NULL, n FROM drvmysql_args WHERE path = '"+name+"'"))
		}
		if d := diffRows(rows[0], rows[1]); d != "" || rows[0][0][4] != "1" || rows[0][0][2] != fmt.Sprint(size) {
			t.Fatalf("%d bytes: wire %q, go-sql-driver %q (%s)", size, rows[0], rows[1], d)
		}
		testenv.MustQuery(t, conns["wire"], "DELETE FROM drvmysql_args")
	}
}

func TestWireErrors(t *testing.T) {
	s := testenv.RequireServer(t, "mysql")
	conns := bothPaths(t, s)
	table(t, conns["wire"], "drvmysql_errs", "(id INT PRIMARY KEY)")
	testenv.MustQuery(t, conns["wire"], "INSERT INTO drvmysql_errs VALUES (1), (2)")
	for _, q := range []struct {
		query string
		code  int
		op    string
	}{
		{"INSERT INTO drvmysql_errs VALUES (?)", 1062, "mysql_stmt_execute()"},
		// fails while the rows are sent
		{"SELECT id, (SELECT id FROM drvmysql_errs) FROM drvmysql_errs WHERE id >= ?", 1242, "mysql_stmt_store_result()"},
	} {
		got := map[string]string{}
		for name, c := range conns {
			_, _, _, err := execute(t, c, q.query, intArg(1))
			e := drivers.AsError(err)
			if e == nil || e.Code != q.code || e.Op != q.op {
				t.Fatalf("%s: %q: %v (%#v)", name, q.query, err, e)
			}
			got[name] = fmt.Sprintf("%d %s %s %s %v", e.Code, e.State, e.Msg, e.Op, e.Kind)
			// The connection is in step afterwards.
			if r := testenv.Rows(testenv.MustQuery(t, c, "SELECT 'next'")); r[0][0] != "next" {
				t.Fatalf("%s: after the error: %q", name, r)
			}
		}
		if got["wire"] != got["go-sql-driver"] {
			t.Errorf("%q: wire %s, go-sql-driver %s", q.query, got["wire"], got["go-sql-driver"])
		}
	}
}

// Payloads of 16 MiB and more travel in several packets, and one of
// exactly 16 MiB - 1 bytes is followed by an empty packet. The test server
// allows 64 MiB packets (scripts/testdb.sh).
func TestWireLargePackets(t *testing.T) {
	s := testenv.RequireServer(t, "mysql")
	conns := bothPaths(t, s)
	v := testenv.Rows(testenv.MustQuery(t, conns["wire"], "SELECT @@max_allowed_packet"))[0][0]
	if n, _ := strconv.Atoi(v); n < 48<<20 {
		msg := fmt.Sprintf("max_allowed_packet is %s: the server of scripts/testdb.sh allows 64 MiB", v)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	const max = 1<<24 - 1
	for name, c := range conns {
		// Sent: 14 bytes of command and parameter type, a length of 4
		// bytes (9 from 16 MiB on), the string. The sizes on either side
		// of a packet's end are our framing's (wire.go); go-sql-driver's
		// path, the yardstick, sends and receives the payloads of several
		// packets (at 16 MiB each, each size costs the race-built test a
		// second of CPU).
		sent, received := []int{max - 19, max - 18, max - 17, 20 << 20}, []int{max - 7, max - 6, max - 5, 40 << 20}
		if name != "wire" {
			sent, received = sent[3:], received[3:]
		}
		for _, size := range sent {
			arg := strings.Repeat("0123456789abcdef", size/16+1)[:size]
			rows, _, _, err := execute(t, c, "SELECT LENGTH(s), MD5(s) FROM (SELECT ? AS s) t", strArg(arg))
			if err != nil {
				t.Fatalf("%s: %d bytes sent: %v", name, size, err)
			}
			if want := fmt.Sprintf("%x", md5.Sum([]byte(arg))); rows[0][0] != strconv.Itoa(size) || rows[0][1] != want {
				t.Fatalf("%s: %d bytes sent, the server got %s bytes, MD5 %s", name, size, rows[0][0], rows[0][1])
			}
		}
		// Received: a row is a 0x00 byte, the NULL bitmap, a length of 4
		// or 9 bytes and the string; then the next row.
		for _, size := range received {
			rows, cnt, n, err := execute(t, c, "SELECT REPEAT('a', ?) UNION ALL SELECT 'next'", intArg(int64(size)))
			if err != nil || cnt != drivers.CntRead || n != 2 {
				t.Fatalf("%s: %d bytes received: counter %v, %d rows, %v", name, size, cnt, n, err)
			}
			if got := rows[0][0]; len(got) != size || strings.Trim(got, "a") != "" || rows[1][0] != "next" {
				t.Fatalf("%s: %d bytes received: %d bytes, second row %.20q", name, size, len(got), rows[1][0])
			}
		}
	}
}

func TestWireLostAndCancelled(t *testing.T) {
	s := testenv.RequireServer(t, "mysql")
	dk, _ := openDriver(t, drivers.Config{Values: s.Values(nil)})
	killer := testenv.Connect(t, dk)
	for name, c := range bothPaths(t, s) {
		ctx := context.Background()
		st, err := c.Prepare(ctx, "SELECT SLEEP(?)")
		if err != nil {
			t.Fatal(err)
		}
		id := testenv.Rows(testenv.MustQuery(t, c, "SELECT CONNECTION_ID()"))[0][0]
		testenv.MustQuery(t, killer, "KILL CONNECTION "+id)
		_, err = st.Execute(ctx, []drivers.Value{intArg(0)})
		if e := drivers.AsError(err); e == nil || e.Kind != drivers.Fatal || e.Code != 2013 && e.Code != 2006 || e.Op != "mysql_stmt_execute()" {
			t.Fatalf("%s: killed connection: %v (%#v)", name, err, e)
		}
		_, err = st.Execute(ctx, []drivers.Value{intArg(0)})
		if e := drivers.AsError(err); e == nil || e.Code != 2006 {
			t.Fatalf("%s: lost connection: %v", name, err)
		}
		if err := c.Reconnect(ctx); err != nil {
			t.Fatal(err)
		}
		// A cancelled context ends a running statement; the next context
		// gets a working connection and statement.
		cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		_, err = st.Execute(cctx, []drivers.Value{intArg(5)})
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("%s: cancelled statement: %v", name, err)
		}
		r, err := st.Execute(ctx, []drivers.Value{intArg(0)})
		if err != nil || testenv.Rows(r)[0][0] != "0" {
			t.Fatalf("%s: after the cancelled statement: %v", name, err)
		}
		if c.(*conn).wireOn != (name == "wire") {
			t.Fatalf("%s: reconnected with wire %v", name, c.(*conn).wireOn)
		}
	}
}

// Compression and TLS stay with go-sql-driver.
func TestWireOnlyPlain(t *testing.T) {
	s := testenv.RequireServer(t, "mysql")
	check := func(kv ...string) {
		d, _ := openDriver(t, drivers.Config{Values: s.Values(nil, kv...)})
		c, err := d.Connect(context.Background())
		if err != nil {
			t.Logf("%v: %v", kv, err) // no TLS on this server
			return
		}
		defer c.Close()
		if c.(*conn).wireOn {
			t.Errorf("%v: wire in use", kv)
		}
		if rows, _, _, err := execute(t, c, "SELECT ?", intArg(3)); err != nil || rows[0][0] != "3" {
			t.Errorf("%v: %q, %v", kv, rows, err)
		}
	}
	check("mysql-compression", "on")
	check("mysql-ssl", "REQUIRED")
}
