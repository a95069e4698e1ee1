package cli

// Outages on the real servers, made by a fault that costs nothing to
// cause or undo: a side connection locks the run's table (MariaDB LOCK
// TABLES ... WRITE, PostgreSQL LOCK TABLE ... ACCESS EXCLUSIVE) for a
// stretch the test times itself. The run's inserts wait on the lock;
// with --query-timeout they fail with HYT00 and try again on a new
// connection. The network partition (cli/netfault_test.go) is the other
// fault, one that no query can see.

import (
	"context"
	"database/sql"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sysbench-go/sysbench-go/drivers"
)

// tableLock holds and releases a lock on sbtest1 of a fault database from
// a connection of its own.
type tableLock struct {
	my   *sql.Conn
	pg   *pgconn.PgConn
	lock []string // the statements that take it
	free string   // the one that releases it
}

func newTableLock(t *testing.T, f *faultDB) *tableLock {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l := &tableLock{}
	switch f.srv.Kind {
	case "mysql":
		conn, err := gomysql.NewConnector(f.srv.MySQLConfig(f.name))
		if err != nil {
			t.Fatal(err)
		}
		db := sql.OpenDB(conn)
		t.Cleanup(func() { db.Close() })
		if l.my, err = db.Conn(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.my.Close() })
		l.lock, l.free = []string{"LOCK TABLES sbtest1 WRITE"}, "UNLOCK TABLES"
	case "pgsql":
		pg, err := pgconn.Connect(ctx, f.srv.PgURL(f.name))
		if err != nil {
			t.Fatal(err)
		}
		l.pg = pg
		t.Cleanup(func() { pg.Close(context.Background()) })
		l.lock, l.free = []string{"BEGIN", "LOCK TABLE sbtest1 IN ACCESS EXCLUSIVE MODE"}, "COMMIT"
	}
	return l
}

func (l *tableLock) exec(ctx context.Context, q string) error {
	if l.my != nil {
		_, err := l.my.ExecContext(ctx, q)
		return err
	}
	_, err := l.pg.Exec(ctx, q).ReadAll()
	return err
}

// count is the rows of sbtest1, read from the lock's connection.
func (l *tableLock) count(ctx context.Context) (int, error) {
	var s []string
	var err error
	if l.my != nil {
		s, err = sqlColumn(l.my.QueryContext(ctx, "SELECT COUNT(*) FROM sbtest1"))
	} else {
		s, err = pgColumn(l.pg.Exec(ctx, "SELECT COUNT(*) FROM sbtest1").ReadAll())
	}
	if err != nil || len(s) == 0 {
		return 0, err
	}
	return strconv.Atoi(s[0])
}

// An insert workload on each server, its table locked for 1.5 s from the
// side: the report has one outage, from the last insert before the lock
// to the first after it, within outageTolerance of the moments the test
// took and released it; the waiting inserts failed with HYT00 under
// --query-timeout, and the run ended on time.
func TestOutageOnServers(t *testing.T) {
	for _, kind := range []string{"mysql", "pgsql"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel() // databases and ports of their own
			f := newFaultDB(t, kind)
			common := append([]string{"oltp_insert", "--tables=1", "--table-size=100"}, f.args...)
			if out, code := runCLI(t, append(common, "prepare")...); code != 0 {
				t.Fatalf("prepare: exit %d\n%s", code, out)
			}
			lock := newTableLock(t, f)
			results := filepath.Join(t.TempDir(), "r.json")
			const runTime = 4 * time.Second
			type ran struct {
				out  string
				code int
			}
			done := make(chan ran, 1)
			began := time.Now()
			metricsURL := "http://127.0.0.1:" + freePort(t) + "/metrics"
			go func() {
				out, code := runCLI(t, append(common, "--threads=2", "--time=4", "--query-timeout=0.5",
					"--"+kind+"-ignore-errors=HYT00", "--results="+results,
					"--metrics-addr="+strings.TrimSuffix(strings.TrimPrefix(metricsURL, "http://"), "/metrics"), "run")...)
				done <- ran{out, code}
			}()
			// poll scrapes --metrics-addr until cond holds of the
			// outage gauge and counter, or 3 s pass.
			poll := func(cond func(on, ended float64) bool) bool {
				for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
					// The run may not listen yet on a busy machine.
					if c, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(metricsURL, "http://"), "/metrics")); err != nil {
						continue
					} else {
						c.Close()
					}
					mf := scrape(t, metricsURL)
					if cond(value(t, mf, "sysbench_outage"), value(t, mf, "sysbench_outages_total")) {
						return true
					}
				}
				return false
			}

			// The run is inserting: its rows grow past the prepared 100.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			for {
				n, err := lock.count(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if n > 150 {
					break
				}
				select {
				case r := <-done:
					t.Fatalf("the run ended before it inserted: exit %d\n%s", r.code, r.out)
				case <-time.After(20 * time.Millisecond):
				}
			}
			for _, q := range lock.lock {
				if err := lock.exec(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			locked := time.Now()
			// --metrics-addr says an outage is on once the threshold (1 s)
			// has passed.
			if !poll(func(on, ended float64) bool { return on == 1 && ended == 0 }) {
				t.Errorf("sysbench_outage is not 1 while the table is locked")
			}
			time.Sleep(time.Until(locked.Add(1500 * time.Millisecond))) // the stretch's length; the test measures it
			freed := time.Now()
			if err := lock.exec(ctx, lock.free); err != nil {
				t.Fatalf("%s: %v", lock.free, err)
			}
			if !poll(func(on, ended float64) bool { return on == 0 && ended == 1 }) {
				t.Errorf("sysbench_outage and sysbench_outages_total are not 0 and 1 after the lock")
			}
			r := <-done
			elapsed := time.Since(began)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.out)
			}
			if elapsed > runTime+2*time.Second {
				t.Errorf("the run took %s for --time=4\n%s", elapsed, r.out)
			}
			res := readResults(t, results)
			if len(res.Outages) != 1 {
				t.Fatalf("outages %+v, want 1 for the lock %s .. %s\n%s", res.Outages,
					locked.Format(time.StampMilli), freed.Format(time.StampMilli), r.out)
			}
			o := res.Outages[0]
			t.Logf("lock held %s, outage %.3fs: began %s from the lock, ended %s from its release",
				freed.Sub(locked), o.Duration, o.StartTime.Sub(locked), o.EndTime.Sub(freed))
			if o.Ongoing || !within(o.StartTime, locked, outageTolerance) || !within(o.EndTime, freed, outageTolerance) {
				t.Errorf("outage %+v, want %s .. %s within %s\n%s", o, locked.Format(time.StampMilli),
					freed.Format(time.StampMilli), outageTolerance, r.out)
			}
			// 1.5 s of waits of 0.5 s, by 2 workers: a few timeouts each.
			if n := o.Failures[drivers.QueryTimeoutState]; n < 2 || o.Reconnects < 2 {
				t.Errorf("outage failures %v, reconnects %d: want the timed-out inserts\n%s", o.Failures, o.Reconnects, r.out)
			}
			if !strings.Contains(r.out, "HYT00 (query_timeout):") {
				t.Errorf("the report does not list the timeouts\n%s", r.out)
			}
		})
	}
}
