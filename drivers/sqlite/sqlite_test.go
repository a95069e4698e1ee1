package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/internal/testenv"
	"github.com/sysbench-go/sysbench-go/options"
)

// open returns a driver on a fresh database file in a temporary directory.
func open(t testing.TB, mode drivers.PSMode, set ...string) (drivers.Driver, *testenv.Buffer) {
	t.Helper()
	v := testenv.Values(Factory.Options, append([]string{"sqlite-db", filepath.Join(t.TempDir(), "sb test.db")}, set...)...)
	return testenv.OpenDriver(t, Factory.Open, drivers.Config{Values: v, PSMode: mode})
}

func intV(n int64) drivers.Value { return drivers.Value{Type: drivers.TypeInt, Int: n} }

func wantKind(t *testing.T, err error, kind drivers.ErrorKind) *drivers.Error {
	t.Helper()
	e := drivers.AsError(err)
	if e == nil {
		t.Fatalf("error %v (%T) is not a *drivers.Error", err, err)
	}
	if e.Kind != kind {
		t.Fatalf("kind %d (%v), want %d", e.Kind, e, kind)
	}
	return e
}

func TestOptions(t *testing.T) {
	var names []string
	for _, o := range Factory.Options {
		names = append(names, fmt.Sprintf("%s=%s", o.Name, o.Default))
	}
	if got := strings.Join(names, " "); got != "sqlite-db=sbtest.db sqlite-journal-mode=WAL sqlite-synchronous=NORMAL sqlite-busy-timeout=5000" {
		t.Errorf("options %s", got)
	}
	for _, bad := range [][]string{{"sqlite-journal-mode", "fast"}, {"sqlite-synchronous", "maybe"}, {"sqlite-busy-timeout", "soon"}} {
		v := options.NewValues()
		v.Set(bad[0], bad[1])
		if _, err := Open(drivers.Config{Values: v}); err == nil {
			t.Errorf("%s=%s accepted", bad[0], bad[1])
		}
	}
}

func TestPragmas(t *testing.T) {
	d, _ := open(t, drivers.PSAuto, "sqlite-busy-timeout", "1234")
	c := testenv.Connect(t, d)
	for q, want := range map[string]string{
		"PRAGMA journal_mode": "wal",
		"PRAGMA synchronous":  "1",
		"PRAGMA busy_timeout": "1234",
	} {
		if got := testenv.Rows(testenv.MustQuery(t, c, q)); got[0][0] != want {
			t.Errorf("%s = %s, want %s", q, got[0][0], want)
		}
	}
}

func TestQueryAndCounters(t *testing.T) {
	d, _ := open(t, drivers.PSAuto)
	c := testenv.Connect(t, d)
	testenv.MustQuery(t, c, "CREATE TABLE k (id INTEGER PRIMARY KEY, v INTEGER, s TEXT)")
	for _, tc := range []struct {
		query string
		cnt   drivers.Counter
		nrows uint64
	}{
		{"BEGIN", drivers.CntOther, 0},
		{"INSERT INTO k VALUES (1, 1, 'a'), (2, NULL, '')", drivers.CntWrite, 2},
		{"SELECT * FROM k WHERE id = 42", drivers.CntRead, 0},
		{"UPDATE k SET v = 5 WHERE id = 1", drivers.CntWrite, 1},
		{"DELETE FROM k WHERE id = 42", drivers.CntWrite, 0},
		{"COMMIT", drivers.CntOther, 0},
		{"  /* c */ -- x\n SELECT 1", drivers.CntRead, 1},
		{"WITH x AS (SELECT 1) SELECT * FROM x", drivers.CntRead, 1},
		{"REPLACE INTO k VALUES (3, 3, 'c')", drivers.CntWrite, 1},
	} {
		r := testenv.MustQuery(t, c, tc.query)
		if r.Counter() != tc.cnt || r.NRows() != tc.nrows {
			t.Errorf("%s: counter %d nrows %d, want %d %d", tc.query, r.Counter(), r.NRows(), tc.cnt, tc.nrows)
		}
	}
	r := testenv.MustQuery(t, c, "SELECT id, v, s, 1.5 FROM k ORDER BY id")
	if r.NFields() != 4 || r.NRows() != 3 {
		t.Fatalf("nfields %d nrows %d", r.NFields(), r.NRows())
	}
	got := fmt.Sprintf("%q", testenv.Rows(r))
	if want := `[["1" "5" "a" "1.5"] ["2" "NULL" "" "1.5"] ["3" "3" "c" "1.5"]]`; got != want {
		t.Errorf("rows %s, want %s", got, want)
	}
	r = testenv.MustQuery(t, c, "SELECT ''")
	r.Next()
	if v, ok := r.Value(0); !ok || v == nil {
		t.Errorf("empty string read as NULL")
	}
	if c.MoreResults() {
		t.Error("MoreResults")
	}
}

func TestPrepared(t *testing.T) {
	for _, mode := range []drivers.PSMode{drivers.PSAuto, drivers.PSDisable} {
		t.Run(fmt.Sprint("mode", mode), func(t *testing.T) {
			d, _ := open(t, mode)
			c := testenv.Connect(t, d)
			ctx := context.Background()
			testenv.MustQuery(t, c, "CREATE TABLE p (i INTEGER, s CHAR(10), d DOUBLE)")
			ins, err := c.Prepare(ctx, "INSERT INTO p VALUES (?, ?, ?)")
			if err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]drivers.Value{
				{intV(1), {Type: drivers.TypeChar, Str: []byte("it's ?")}, {Type: drivers.TypeDouble, Float: 2.5}},
				{intV(2), {Type: drivers.TypeChar, Null: true}, {Type: drivers.TypeDouble, Null: true}},
				{intV(3), {Type: drivers.TypeVarChar, Str: []byte{}}, {Type: drivers.TypeDouble, Float: -1}},
			} {
				r, err := ins.Execute(ctx, args)
				if err != nil {
					t.Fatal(err)
				}
				if r.Counter() != drivers.CntWrite || r.NRows() != 1 {
					t.Errorf("insert: counter %d nrows %d", r.Counter(), r.NRows())
				}
			}
			sel, err := c.Prepare(ctx, "SELECT i, s, d, '?' FROM p WHERE i >= ? AND s = ? OR i > ? ORDER BY i")
			if err != nil {
				t.Fatal(err)
			}
			r, err := sel.Execute(ctx, []drivers.Value{intV(1), {Type: drivers.TypeChar, Str: []byte("it's ?")}, intV(2)})
			if err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprintf("%q", testenv.Rows(r))
			if want := `[["1" "it's ?" "2.5" "?"] ["3" "" "-1" "?"]]`; got != want {
				t.Errorf("rows %s, want %s", got, want)
			}
			if r.Counter() != drivers.CntRead {
				t.Errorf("counter %d", r.Counter())
			}
			sel.Close()
			ins.Close()
		})
	}
}

func TestErrors(t *testing.T) {
	d, log := open(t, drivers.PSAuto)
	c := testenv.Connect(t, d)
	ctx := context.Background()
	_, err := c.Query(ctx, "SELEC 1")
	e := wantKind(t, err, drivers.Fatal)
	if !strings.Contains(e.Msg, "syntax error") || e.Query != "SELEC 1" {
		t.Errorf("error %+v", e)
	}
	if !strings.Contains(log.String(), "FATAL: failed query was: SELEC 1\n") {
		t.Errorf("log %q", log.String())
	}
	_, err = c.Prepare(ctx, "SELECT c FROM nosuchtable WHERE id = ?")
	e = wantKind(t, err, drivers.Fatal)
	if e.Msg != "SQL logic error: no such table: nosuchtable" {
		t.Errorf("msg %q", e.Msg)
	}

	testenv.MustQuery(t, c, "CREATE TABLE u (id INTEGER PRIMARY KEY, v TEXT UNIQUE NOT NULL)")
	testenv.MustQuery(t, c, "BEGIN")
	testenv.MustQuery(t, c, "INSERT INTO u VALUES (1, 'a')")
	s, err := c.Prepare(ctx, "INSERT INTO u VALUES (?, 'b')")
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Execute(ctx, []drivers.Value{intV(1)})
	if e := wantKind(t, err, drivers.Ignorable); e.State != "23505" {
		t.Errorf("state %q", e.State)
	}
	// Rolled back: a new transaction can begin, the first insert is gone.
	testenv.MustQuery(t, c, "BEGIN")
	if got := testenv.Rows(testenv.MustQuery(t, c, "SELECT count(*) FROM u")); got[0][0] != "0" {
		t.Errorf("count %s after rollback", got[0][0])
	}
	testenv.MustQuery(t, c, "INSERT INTO u VALUES (1, 'a')")
	_, err = c.Query(ctx, "INSERT INTO u VALUES (2, 'a')")
	wantKind(t, err, drivers.Ignorable)
	_, err = c.Query(ctx, "INSERT INTO u VALUES (2, NULL)")
	wantKind(t, err, drivers.Fatal) // NOT NULL is not ignorable
}

func TestReconnect(t *testing.T) {
	d, _ := open(t, drivers.PSAuto)
	c := testenv.Connect(t, d)
	testenv.MustQuery(t, c, "CREATE TEMP TABLE tmp (x)")
	if err := c.Reconnect(context.Background()); err != nil {
		t.Fatal(err)
	}
	// A temporary table belongs to the old connection.
	if _, err := c.Query(context.Background(), "SELECT * FROM tmp"); err == nil {
		t.Error("temp table survived reconnect")
	}
	testenv.MustQuery(t, c, "SELECT 1")
	c.Close()
	if _, err := c.Query(context.Background(), "SELECT 1"); err == nil {
		t.Error("query on a closed connection")
	}
}

// Four writers with explicit transactions on one file: lock conflicts come
// out as ignorable errors, never fatal ones, and the committed work adds up.
func TestConcurrentWriters(t *testing.T) {
	d, _ := open(t, drivers.PSAuto, "sqlite-busy-timeout", "20")
	setup := testenv.Connect(t, d)
	testenv.MustQuery(t, setup, "CREATE TABLE acct (id INTEGER PRIMARY KEY, bal INTEGER NOT NULL)")
	testenv.MustQuery(t, setup, "INSERT INTO acct VALUES (1, 0), (2, 0)")
	testenv.MustQuery(t, setup, "CREATE TABLE hist (w INTEGER, n INTEGER)")

	const workers, txs = 4, 40
	var wg sync.WaitGroup
	var mu sync.Mutex
	ignored := 0
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		c := testenv.Connect(t, d)
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			ctx := context.Background()
			sel, err := c.Prepare(ctx, "SELECT bal FROM acct WHERE id = ?")
			if err != nil {
				errs <- err
				return
			}
			upd, err := c.Prepare(ctx, "UPDATE acct SET bal = bal + ? WHERE id = ?")
			if err != nil {
				errs <- err
				return
			}
			for n := 0; n < txs; {
				// One event: read then write, which needs the lock upgrade
				// that makes concurrent SQLite writers fail with BUSY.
				err := func() error {
					if _, err := c.Query(ctx, "BEGIN"); err != nil {
						return err
					}
					if _, err := sel.Execute(ctx, []drivers.Value{intV(1)}); err != nil {
						return err
					}
					for _, id := range []int64{1, 2} {
						if _, err := upd.Execute(ctx, []drivers.Value{intV(1), intV(id)}); err != nil {
							return err
						}
					}
					if _, err := c.Query(ctx, fmt.Sprintf("INSERT INTO hist VALUES (%d, %d)", w, n)); err != nil {
						return err
					}
					_, err := c.Query(ctx, "COMMIT")
					return err
				}()
				if err != nil {
					if e := drivers.AsError(err); e != nil && e.Kind == drivers.Ignorable {
						mu.Lock()
						ignored++
						mu.Unlock()
						continue // restart the event
					}
					errs <- err
					return
				}
				n++
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("worker failed: %v", err)
	}
	got := testenv.Rows(testenv.MustQuery(t, setup, "SELECT (SELECT group_concat(bal) FROM acct), (SELECT count(*) FROM hist)"))
	want := fmt.Sprintf("%d,%d", workers*txs, workers*txs)
	if got[0][0] != want || got[0][1] != fmt.Sprint(workers*txs) {
		t.Errorf("balances %s history %s, want %s and %d", got[0][0], got[0][1], want, workers*txs)
	}
	t.Logf("%d ignorable lock errors restarted events", ignored)
}

func TestDryRun(t *testing.T) {
	d, err := Open(drivers.Config{Values: options.NewValues(), DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	c, err := d.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r, err := c.Query(context.Background(), "SELECT 1"); err != nil || r.Counter() != drivers.CntOther {
		t.Fatal(err)
	}
}
