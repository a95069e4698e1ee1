package cli

// Outages on the real servers, made by a fault that costs nothing to
// cause or undo: a side connection locks the run's table (MariaDB LOCK
// TABLES ... WRITE, PostgreSQL LOCK TABLE ... ACCESS EXCLUSIVE) until the
// test has seen what it needs. The run's inserts wait on the lock; with
// --query-timeout they fail with HYT00 and try again on a new
// connection. The network partition (cli/netfault_test.go) is the other
// fault, one that no query can see.
//
// The outage a run reports is judged against what the test saw from
// outside, with no tolerance, so that a loaded machine cannot fail it
// (outageBounds).

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/report"
)

// tableLock holds and releases a lock on sbtest1 from a connection of its
// own.
type tableLock struct {
	my   *sql.Conn
	pg   *pgconn.PgConn
	lock []string // the statements that take it
	free string   // the one that releases it
}

// myLock locks with LOCK TABLES on c.
func myLock(c *sql.Conn) *tableLock {
	return &tableLock{my: c, lock: []string{"LOCK TABLES sbtest1 WRITE"}, free: "UNLOCK TABLES"}
}

// pgLock locks in a transaction of pg.
func pgLock(pg *pgconn.PgConn) *tableLock {
	return &tableLock{pg: pg, lock: []string{"BEGIN", "LOCK TABLE sbtest1 IN ACCESS EXCLUSIVE MODE"}, free: "COMMIT"}
}

// newTableLock opens the lock's connection to a fault database.
func newTableLock(t *testing.T, f *faultDB) *tableLock {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if f.srv.Kind == "mysql" {
		conn, err := gomysql.NewConnector(f.srv.MySQLConfig(f.name))
		if err != nil {
			t.Fatal(err)
		}
		db := sql.OpenDB(conn)
		t.Cleanup(func() { db.Close() })
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return myLock(c)
	}
	pg, err := pgconn.Connect(ctx, f.srv.PgURL(f.name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Close(context.Background()) })
	return pgLock(pg)
}

func (l *tableLock) exec(ctx context.Context, q string) error {
	if l.my != nil {
		_, err := l.my.ExecContext(ctx, q)
		return err
	}
	_, err := l.pg.Exec(ctx, q).ReadAll()
	return err
}

// bySession reads, from the lock's connection, how many rows of sbtest1
// each session inserted (the who column, addWho).
func (l *tableLock) bySession(ctx context.Context) (bySession, error) {
	const q = "SELECT who, COUNT(*) FROM sbtest1 GROUP BY who"
	m := bySession{}
	if l.my != nil {
		rows, err := l.my.QueryContext(ctx, q)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		for rows.Next() {
			var who sql.NullString
			var n int
			if err := rows.Scan(&who, &n); err != nil {
				return nil, err
			}
			m[who.String] = n
		}
		return m, rows.Err()
	}
	res, err := l.pg.Exec(ctx, q).ReadAll()
	if err != nil {
		return nil, err
	}
	for _, r := range res {
		for _, row := range r.Rows {
			n, _ := strconv.Atoi(string(row[1]))
			m[string(row[0])] = n
		}
	}
	return m, nil
}

// addWho gives sbtest1 a column that records the server session of the
// connection that inserted each row (the run's INSERTs name their
// columns, and leave it to its default).
var addWho = map[string]string{
	"mysql": "ALTER TABLE sbtest1 ADD COLUMN who BIGINT DEFAULT (CONNECTION_ID())",
	"pgsql": "ALTER TABLE sbtest1 ADD COLUMN who int DEFAULT pg_backend_pid()",
}

// bySession is the rows of a table by the server session that inserted
// them.
type bySession map[string]int

// gained reports whether some session has at least n rows more in b than
// in a. A session that inserted two rows after a had the answer to the
// first before it sent the second: the worker on it completed an event in
// between, and recorded that completion. (One row proves less: a
// connection that --query-timeout gave up still has its insert waiting
// at the server, which commits it once the lock is gone, and no worker
// hears of it.)
func gained(a, b bySession, n int) bool {
	for who, k := range b {
		if k-a[who] >= n {
			return true
		}
	}
	return false
}

// lockSessions reads the sessions of database db with query, on a
// connection outside it (on PostgreSQL a transaction sees
// pg_stat_activity as it first read it): their ids, and how many wait on
// a table lock.
func lockSessions(ctx context.Context, kind, db string, query func(context.Context, string) ([]string, error)) (ids []string, waiting int, err error) {
	q := "SELECT CONCAT(id, ' ', state LIKE 'Waiting for table%') FROM information_schema.processlist WHERE db = '" + db + "'"
	if kind == "pgsql" {
		q = "SELECT pid || ' ' || coalesce(wait_event_type = 'Lock', false)::int FROM pg_stat_activity WHERE datname = '" + db +
			"' AND backend_type = 'client backend'"
	}
	col, err := query(ctx, q)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %v", q, err)
	}
	for _, c := range col {
		id, w, _ := strings.Cut(c, " ")
		ids = append(ids, id)
		if w == "1" {
			waiting++
		}
	}
	return ids, waiting, nil
}

// until polls cond every 10 ms until it holds. The run's end ends the
// wait, and fails the test: the run's --time bounds the test's waits.
func (r *asyncRun) until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-r.done:
			t.Fatalf("the run ended before %s", what)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// lockOut locks sbtest1 (given its who column) under the insert workload
// r of threads workers, and bounds the start of the outage that follows:
// the rows the test read before the lock, each with the moment before
// the read, give startFrom (the latest read that a session went on to
// insert two rows after, seen under the lock); the moment threads of the
// run's sessions wait on the lock (sessions, lockSessions) gives startBy.
// It returns the rows under the lock, and the sessions then.
func lockOut(t *testing.T, ctx context.Context, r *asyncRun, l *tableLock, threads int,
	sessions func() ([]string, int, error)) (b outageBounds, locked bySession, waited []string) {
	t.Helper()
	rows := func() bySession {
		t.Helper()
		m, err := l.bySession(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	type seen struct {
		at   time.Time
		rows bySession
	}
	var before []seen
	r.until(t, "the test saw it insert", func() bool {
		at := time.Now()
		before = append(before, seen{at, rows()})
		return gained(before[0].rows, before[len(before)-1].rows, 3)
	})
	for _, q := range l.lock {
		if err := l.exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	locked = rows() // nothing commits under the lock
	for _, s := range before {
		if gained(s.rows, locked, 2) {
			b.startFrom = s.at // the latest such read is the last
		}
	}
	r.until(t, "every worker waited on the lock", func() bool {
		ids, n, err := sessions()
		if err != nil {
			t.Fatal(err)
		}
		if n >= threads {
			b.startBy, waited = time.Now(), ids
		}
		return n >= threads
	})
	return b, locked, waited
}

// givenUp waits, while the lock holds, until --query-timeout has given up
// n of the workers' connections since the sessions waited: n sessions
// that were not among them, each the reconnect of a worker whose
// connection was given up (MariaDB ends the session of a connection
// closed while it waits), or n more sessions waiting than workers
// (PostgreSQL's stays, waiting, until the lock is gone). A loaded machine
// may not let a reconnect through within the timeout, which fails again:
// then the run's own count of reconnects tells (metrics, scrapes begun
// after the sessions waited), if the caller has it.
func givenUp(t *testing.T, r *asyncRun, threads, n int, waited []string, waitedAt time.Time,
	sessions func() ([]string, int, error), metrics func() []scraped) {
	t.Helper()
	old := map[string]bool{}
	for _, id := range waited {
		old[id] = true
	}
	fresh := map[string]bool{}
	r.until(t, fmt.Sprintf("the timeouts gave up %d connections", n), func() bool {
		ids, w, err := sessions()
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			if !old[id] {
				fresh[id] = true
			}
		}
		if len(fresh) >= n || w >= threads+n {
			return true
		}
		if metrics == nil {
			return false
		}
		first := -1.0
		for _, s := range metrics() {
			if s.began.Before(waitedAt) {
				continue
			}
			if first < 0 {
				first = s.reconnects
			}
			if s.reconnects >= first+float64(n) {
				return true
			}
		}
		return false
	})
}

// outageBounds are the moments, seen from outside the run, between which
// its outage must begin and end. Without tolerance: each bound follows
// from what the test saw and what an outage is (the last completion
// before it, or the start of the oldest event waiting in it, to the first
// completion after it; docs/availability.md).
type outageBounds struct {
	// startFrom: a completion came after it (a row the test had not seen
	// yet at this moment, by a session that went on to insert another);
	// startBy: every worker waited by then (sessions seen waiting at the
	// server, or requests seen at the proxy): the last completion before
	// the outage, and the start of every event that waits in it, came
	// earlier.
	startFrom, startBy time.Time
	// endFrom: the service came back no earlier (the unlock, heal, start
	// or promotion was issued then); endBy: a worker had completed an
	// event after it by then (a session that inserted two rows since, or
	// a request after a reply at the proxy). Zero for an outage ongoing at
	// the end.
	endFrom, endBy time.Time
}

// check finds the outage of the fault among a run's outages and compares
// it with the bounds. It is the only one that reaches into the stretch
// from startFrom to endBy: another, wholly before or after, is the loaded
// machine's own (a stall of every worker longer than the threshold, with
// timeouts: a true report the test cannot judge), and is only logged. The
// results file's times are the run's clock on the wall clock, as the
// test's moments are: the same clock.
func (b outageBounds) check(t *testing.T, outages []report.Outage, out string) report.Outage {
	t.Helper()
	var of []report.Outage
	for _, o := range outages {
		if !o.EndTime.Before(b.startFrom) && (b.endBy.IsZero() || !o.StartTime.After(b.endBy)) {
			of = append(of, o)
		} else {
			t.Logf("an outage outside the fault's (bounds %s), the machine's own: %+v", b, o)
		}
	}
	if len(of) != 1 {
		t.Fatalf("outages %+v: want 1 in the fault's bounds %s\n%s", outages, b, out)
	}
	o := of[0]
	t.Logf("outage %s .. %s (%.3f s, %.3f s .. %.3f s of the run), bounds %s", o.StartTime.Format(stampMicro),
		o.EndTime.Format(stampMicro), o.Duration, o.Start, o.End, b)
	if o.StartTime.Before(b.startFrom) || o.StartTime.After(b.startBy) {
		t.Errorf("the outage began at %s, want between %s and %s\n%s", o.StartTime.Format(stampMicro),
			b.startFrom.Format(stampMicro), b.startBy.Format(stampMicro), out)
	}
	switch {
	case b.endBy.IsZero() && !o.Ongoing:
		t.Errorf("the outage ended at %s, want it ongoing at the end of the run\n%s", o.EndTime.Format(stampMicro), out)
	case !b.endBy.IsZero() && o.Ongoing:
		t.Errorf("the outage is ongoing at the end of the run, want it ended between %s and %s\n%s",
			b.endFrom.Format(stampMicro), b.endBy.Format(stampMicro), out)
	case !b.endBy.IsZero() && (o.EndTime.Before(b.endFrom) || o.EndTime.After(b.endBy)):
		t.Errorf("the outage ended at %s, want between %s and %s\n%s", o.EndTime.Format(stampMicro),
			b.endFrom.Format(stampMicro), b.endBy.Format(stampMicro), out)
	}
	return o
}

const stampMicro = "15:04:05.000000"

func (b outageBounds) String() string {
	s := fmt.Sprintf("start %s .. %s", b.startFrom.Format(stampMicro), b.startBy.Format(stampMicro))
	if b.endBy.IsZero() {
		return s + ", ongoing"
	}
	return s + fmt.Sprintf(", end %s .. %s", b.endFrom.Format(stampMicro), b.endBy.Format(stampMicro))
}

// cutoffGrace is how long a run whose --time is up waits for its events
// still running before it cancels what they wait for (engine: a tenth of
// --time, at least 5 s).
func cutoffGrace(runTime time.Duration) time.Duration { return max(5*time.Second, runTime/10) }

// ranItsTime checks, from its results file, that a run ended on time: its
// measured window lasted --time, and it ended before --time's grace for
// the events still running was up, with none cancelled. The window leaves
// out what a loaded machine stretches (connecting, the report).
func ranItsTime(t *testing.T, res *report.Results, out string, runTime time.Duration) {
	t.Helper()
	if res.Total == nil {
		t.Fatalf("no total window in the results\n%s", out)
	}
	d := time.Duration(res.Total.Duration * float64(time.Second))
	if d < runTime-time.Millisecond || d >= runTime+cutoffGrace(runTime) || strings.Contains(out, "after --time cancelled") {
		t.Errorf("a measured window of %s for --time=%s: want it at least --time, and ended before the %s grace for the events still running\n%s",
			d, runTime, cutoffGrace(runTime), out)
	}
}

// scrapeNow reads the metrics at url; an error is not the test's failure
// (the run may not serve yet, or no longer).
func scrapeNow(url string) (map[string]*dto.MetricFamily, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scrape: %s", resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(resp.Body)
}

// metric is the value of an unlabelled counter or gauge, false when the
// scrape has none.
func metric(mf map[string]*dto.MetricFamily, name string) (float64, bool) {
	f, ok := mf[name]
	if !ok || len(f.Metric) == 0 {
		return 0, false
	}
	m := f.Metric[0]
	switch {
	case m.Counter != nil:
		return m.Counter.GetValue(), true
	case m.Gauge != nil:
		return m.Gauge.GetValue(), true
	}
	return 0, false
}

// scraped is what one scrape of a run's metrics said, and when it began.
type scraped struct {
	began                 time.Time
	on, ended, reconnects float64
}

// watchMetrics scrapes the run's --metrics-addr every 100 ms until the
// run ends or stop is called (a scrape of a run in the test binary takes
// long on a loaded machine: the test's other waits do not wait for it).
// scrapes returns the scrapes so far.
func watchMetrics(r *asyncRun, url string) (scrapes func() []scraped, stop func()) {
	var mu sync.Mutex
	var got []scraped
	done := make(chan struct{})
	go func() {
		for {
			began := time.Now()
			if mf, err := scrapeNow(url); err == nil {
				s := scraped{began: began}
				s.on, _ = metric(mf, "sysbench_outage")
				s.ended, _ = metric(mf, "sysbench_outages_total")
				s.reconnects, _ = metric(mf, "sysbench_reconnects_total")
				mu.Lock()
				got = append(got, s)
				mu.Unlock()
			}
			select {
			case <-r.done:
				return
			case <-done:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return func() []scraped {
			mu.Lock()
			defer mu.Unlock()
			return append([]scraped(nil), got...)
		}, sync.OnceFunc(func() {
			close(done)
		})
}

// An insert workload on each server, its table locked from the side until
// the test has seen every worker wait on the lock, the outage on
// --metrics-addr and two reconnects: the report has one outage, which
// began after the last row the test saw before the lock and by the time
// the workers waited, and ended after the unlock and by the time a worker
// had completed an event again; the waiting inserts failed with HYT00
// under --query-timeout, and the run ended on time. The run is paced
// (--rate): it must outlast the test's steps on a loaded machine, and
// costs little CPU all the same.
func TestOutageOnServers(t *testing.T) {
	t.Parallel()
	// 30 s: beside a loaded suite, the lock, the waits and the unlock
	// took 11 s, and a run of 10 ended before the test saw it go on.
	const threads, rate, runTime = 2, 50, 30 * time.Second
	// Side by side from the start (databases and ports of their own):
	// the runs are paced and mostly wait, and a late start made the
	// suite's last half minute wait for them.
	sideBySide(t, []string{"mysql", "pgsql"}, func(t *testing.T, kind string) {
		f := newFaultDB(t, kind)
		common := append([]string{"oltp_insert", "--tables=1", "--table-size=100"}, f.args...)
		if out, code := runCLI(t, append(common, "prepare")...); code != 0 {
			t.Fatalf("prepare: exit %d\n%s", code, out)
		}
		lock := newTableLock(t, f)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		if err := lock.exec(ctx, addWho[kind]); err != nil {
			t.Fatal(err)
		}
		results := filepath.Join(t.TempDir(), "r.json")
		addr := "127.0.0.1:" + freePort(t)
		metricsURL := "http://" + addr + "/metrics"
		r := startCLI(append(common, "--threads="+strconv.Itoa(threads), "--rate="+strconv.Itoa(rate),
			fmt.Sprintf("--time=%d", int(runTime.Seconds())), "--query-timeout=2",
			"--"+kind+"-ignore-errors=HYT00", "--results="+results, "--metrics-addr="+addr, "run")...)
		defer func() {
			if t.Failed() {
				t.Logf("the run's output:\n%s", r.out.String())
			}
		}()
		rows := func() bySession {
			t.Helper()
			m, err := lock.bySession(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		sessions := func() ([]string, int, error) { return lockSessions(ctx, kind, f.name, f.query) }
		metrics, stopMetrics := watchMetrics(r, metricsURL)
		defer stopMetrics()
		b, locked, waited := lockOut(t, ctx, r, lock, threads, sessions)
		// Held until the timeouts have given up two connections and
		// --metrics-addr said the outage is on.
		t.Logf("locked; every worker waited at %s", b.startBy.Format(stampMicro))
		givenUp(t, r, threads, 2, waited, b.startBy, sessions, metrics)
		t.Logf("two connections given up at %s", time.Now().Format(stampMicro))
		r.until(t, "--metrics-addr said the outage was on", func() bool {
			for _, s := range metrics() {
				if s.on == 1 && !s.began.Before(b.startBy) {
					return true
				}
			}
			return false
		})
		b.endFrom = time.Now()
		if err := lock.exec(ctx, lock.free); err != nil {
			t.Fatalf("%s: %v", lock.free, err)
		}
		t.Logf("unlocked at %s", time.Now().Format(stampMicro))
		r.until(t, "a worker inserted two rows after the unlock", func() bool {
			if gained(locked, rows(), 2) {
				b.endBy = time.Now()
			}
			return !b.endBy.IsZero()
		})
		r.until(t, "--metrics-addr said the outage ended", func() bool {
			m := metrics()
			return len(m) > 0 && m[len(m)-1].began.After(b.endBy) && m[len(m)-1].on == 0 && m[len(m)-1].ended >= 1
		})
		stopMetrics()

		out, code := r.wait(t, runTime+2*cutoffGrace(runTime)+time.Minute)
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, out)
		}
		res := readResults(t, results)
		ranItsTime(t, res, out, runTime)
		o := b.check(t, res.Outages, out)
		// Waits of 2 s, and two connections given up.
		if n := o.Failures[drivers.QueryTimeoutState]; n < 2 || o.Reconnects < 2 {
			t.Errorf("outage failures %v, reconnects %d: want the timed-out inserts\n%s", o.Failures, o.Reconnects, out)
		}
		if !strings.Contains(out, "HYT00 (query_timeout):") {
			t.Errorf("the report does not list the timeouts\n%s", out)
		}
	})
}
