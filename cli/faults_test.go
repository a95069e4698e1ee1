package cli

// Fault tests (issue 3): deadlocks, connections lost in the middle of a
// run, a server restarted under a run, SQL errors and bad driver options.
//
// Lost connections are caused by killing the run's server sessions from a
// side connection (MariaDB KILL CONNECTION, PostgreSQL
// pg_terminate_backend), which the client sees as it would see a server
// restart. Every run works in a database of its own, so that only its own
// sessions are killed and the other users of the shared test servers are
// not disturbed. One test restarts real servers: a private pair started
// with scripts/testdb.sh on ports of its own.
//
// Nothing here sleeps and hopes: the tests poll for conditions (sessions
// on the server, rows written) with deadlines long enough for a loaded
// machine (loadedWait), which cost nothing when things go well.

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sysbench-go/sysbench-go/engine"
	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

// loadedWait bounds the tests' waits for what a loaded machine is slow
// to do (connect, start a server, run a statement): a deadline that only
// a hang reaches.
const loadedWait = 3 * time.Minute

// faultDB is a database of the test's own on a test server, with a side
// connection to the server's main database for looking at and killing the
// sessions that use it.
type faultDB struct {
	srv  testenv.Server // the server
	name string         // the database
	args []string       // command-line options that point a run at it

	my *sql.DB        // side connection (MariaDB)
	pg *pgconn.PgConn // side connection (PostgreSQL)
}

// newFaultDB creates a database of the test's own on the shared test
// server, skipping the test when there is none.
func newFaultDB(t *testing.T, kind string) *faultDB {
	t.Helper()
	return newFaultDBOn(t, testenv.RequireServer(t, kind))
}

// newFaultDBOn creates a database of the test's own on the server srv
// (testenv's OwnDatabase, dropped when the test ends) and opens the side
// connection beside it.
func newFaultDBOn(t *testing.T, srv testenv.Server) *faultDB {
	t.Helper()
	own := srv.OwnDatabase(t)
	f := &faultDB{srv: srv, name: own.DB, args: own.Args()}
	switch srv.Kind {
	case "mysql":
		mc := srv.MySQLConfig(srv.DB)
		// Quiet about the connections a server restart breaks.
		mc.Logger = &gomysql.NopLogger{}
		conn, err := gomysql.NewConnector(mc)
		if err != nil {
			t.Fatal(err)
		}
		db := sql.OpenDB(conn)
		db.SetMaxOpenConns(1)
		f.my = db
		t.Cleanup(func() { db.Close() })
	case "pgsql":
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		pg, err := pgconn.Connect(ctx, srv.PgURL(srv.DB))
		if err != nil {
			t.Fatal(err)
		}
		f.pg = pg
		t.Cleanup(func() { pg.Close(context.Background()) })
	}
	return f
}

// query runs q on the side connection and returns its first column.
func (f *faultDB) query(ctx context.Context, q string) ([]string, error) {
	if f.my != nil {
		return sqlColumn(f.my.QueryContext(ctx, q))
	}
	return pgColumn(f.pg.Exec(ctx, q).ReadAll())
}

// sqlColumn returns the first column of rows (NULL as "").
func sqlColumn(rows *sql.Rows, err error) ([]string, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s sql.NullString
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s.String)
	}
	return out, rows.Err()
}

// pgColumn returns the first column of res.
func pgColumn(res []*pgconn.Result, err error) ([]string, error) {
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range res {
		for _, row := range r.Rows {
			out = append(out, string(row[0]))
		}
	}
	return out, nil
}

// inDB runs q in the test's database and returns its first column.
func (f *faultDB) inDB(ctx context.Context, q string) ([]string, error) {
	if f.my != nil {
		conn, err := f.my.Conn(ctx)
		if err != nil {
			return nil, err
		}
		defer conn.Close()
		// Not USE: the side connection must stay outside the database.
		return sqlColumn(conn.QueryContext(ctx, strings.ReplaceAll(q, "sbgo_", f.name+".sbgo_")))
	}
	pg, err := pgconn.Connect(ctx, f.srv.PgURL(f.name))
	if err != nil {
		return nil, err
	}
	defer pg.Close(ctx)
	return pgColumn(pg.Exec(ctx, q).ReadAll())
}

// sessions returns the ids of the server sessions connected to the test's
// database (the side connection is not among them).
func (f *faultDB) sessions(ctx context.Context) ([]string, error) {
	if f.my != nil {
		return f.query(ctx, "SELECT id FROM information_schema.processlist WHERE db = '"+f.name+"'")
	}
	// Not autovacuum workers, which visit every database.
	return f.query(ctx, "SELECT pid FROM pg_stat_activity WHERE datname = '"+f.name+
		"' AND backend_type = 'client backend'")
}

// kill ends one server session: its client finds the connection closed.
func (f *faultDB) kill(ctx context.Context, id string) error {
	if f.my != nil {
		_, err := f.my.ExecContext(ctx, "KILL CONNECTION "+id)
		if err != nil && strings.Contains(err.Error(), "1094") {
			err = nil // unknown thread id: it ended on its own
		}
		return err
	}
	_, err := f.query(ctx, "SELECT pg_terminate_backend("+id+")")
	return err
}

// progress returns how many updates fault_reconnect.lua has committed.
func (f *faultDB) progress() (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), loadedWait)
	defer cancel()
	v, err := f.inDB(ctx, "SELECT SUM(v) FROM sbgo_fault_rows")
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(v[0])
}

// stopRun tells fault_reconnect.lua to end the run.
func (f *faultDB) stopRun(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), loadedWait)
	defer cancel()
	if _, err := f.inDB(ctx, "UPDATE sbgo_fault_ctl SET stop = 1"); err != nil {
		t.Fatalf("stop the run: %v", err)
	}
}

// asyncRun is the command line running in the background.
type asyncRun struct {
	out  testenv.Buffer // the run's output, read while it runs
	done chan struct{}
	code int
}

func startCLI(args ...string) *asyncRun {
	return startCLIContext(context.Background(), args...)
}

// interruptible is a context for startCLIContext and the function that
// ends it as main's ends on SIGINT: with the signal as its cause.
func interruptible() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	return ctx, func() { cancel(&engine.Interrupt{Signal: syscall.SIGINT}) }
}

// startCLIContext starts the command line with ctx, which main ends on
// SIGINT.
func startCLIContext(ctx context.Context, args ...string) *asyncRun {
	r := &asyncRun{done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.code = run(ctx, args, strings.NewReader(""), &r.out, &r.out)
	}()
	return r
}

// wait waits for the run to end and fails the test if it does not within
// d.
func (r *asyncRun) wait(t *testing.T, d time.Duration) (string, int) {
	t.Helper()
	select {
	case <-r.done:
		return r.out.String(), r.code
	case <-time.After(d):
		t.Fatalf("the run did not end within %v; output so far:\n%s", d, r.out.String())
		return "", 0
	}
}

// waitFor polls cond until it holds, the run ends or d passes, and
// reports whether it held.
func (r *asyncRun) waitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		select {
		case <-r.done:
			return cond()
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// started waits for the worker threads to start.
func (r *asyncRun) started(t *testing.T) {
	t.Helper()
	if !r.waitFor(loadedWait, func() bool { return strings.Contains(r.out.String(), "Threads started!") }) {
		t.Fatalf("the threads did not start within %v (or the run ended first):\n%s", loadedWait, r.out.String())
	}
}

// progresses waits for the run to commit more updates than it had when
// called. A side connection broken by a server restart is not an error.
func (r *asyncRun) progresses(t *testing.T, f *faultDB, what string) {
	t.Helper()
	from, err := -1, error(nil)
	if !r.waitFor(loadedWait, func() bool {
		n, e := f.progress()
		if err = e; e != nil {
			return false
		}
		if from < 0 {
			from = n
		}
		return n > from
	}) {
		t.Fatalf("no progress %s within %v, or the run ended first (last error: %v); output:\n%s", what, loadedWait, err, r.out.String())
	}
}

// killRounds kills every session of the run, once the threads have
// started and each time the workers have reconnected, rounds times; with
// back it then waits for the workers to reconnect once more. It returns
// how many sessions it killed.
func killRounds(t *testing.T, f *faultDB, r *asyncRun, threads, rounds int, back bool) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*loadedWait)
	defer cancel()
	r.started(t)
	killed := map[string]bool{}
	for i := 0; i < rounds || (i == rounds && back); i++ {
		// Every worker connected, with a session not killed yet.
		var live []string
		var err error
		ok := r.waitFor(loadedWait, func() bool {
			live, err = f.sessions(ctx)
			if err != nil || len(live) != threads {
				return false
			}
			for _, id := range live {
				if killed[id] {
					return false
				}
			}
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			t.Fatalf("round %d: the %d workers did not (re)connect within %v, or the run ended first; sessions %v, output:\n%s",
				i, threads, loadedWait, live, r.out.String())
		}
		if i == rounds {
			break
		}
		for _, id := range live {
			if err := f.kill(ctx, id); err != nil {
				t.Fatalf("kill %s: %v", id, err)
			}
			killed[id] = true
		}
	}
	return len(killed)
}

// counter returns a number of the final report ("reconnects" etc.).
func counter(t *testing.T, out, name string) int {
	t.Helper()
	m := regexp.MustCompile(`(?m)^\s+` + regexp.QuoteMeta(name) + `:\s+(\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no %q in the report:\n%s", name, out)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// noPanic fails the test if the output shows a Go panic or stack trace.
func noPanic(t *testing.T, out string) {
	t.Helper()
	for _, s := range []string{"panic:", "goroutine ", "runtime error", ".go:"} {
		if strings.Contains(out, s) {
			t.Errorf("Go panic or stack trace in the output (%q):\n%s", s, out)
			return
		}
	}
}

// cleanRun checks that a run ended well: exit 0, no FATAL line.
func cleanRun(t *testing.T, out string, code int) {
	t.Helper()
	noPanic(t, out)
	if code != 0 || strings.Contains(out, "FATAL") {
		t.Fatalf("exit %d, want 0 without FATAL lines\n%s", code, out)
	}
}

// TestFaultDeadlock: pairs of threads update two rows in opposite orders
// inside BEGIN/COMMIT, so the server kills some transactions as deadlock
// victims. Each is counted as an ignored error and its event restarts
// from the beginning: the run succeeds, each of --events commits once, and
// the rows hold exactly what the committed transactions wrote.
func TestFaultDeadlock(t *testing.T) {
	t.Parallel()
	const events = 40
	for _, db := range []string{"mysql", "pgsql"} {
		t.Run(db, func(t *testing.T) {
			f := newFaultDB(t, db)
			args := append([]string{"testdata/scripts/fault_deadlock.lua", "--threads=4"}, f.args...)
			if db == "pgsql" {
				// PostgreSQL looks for deadlocks after deadlock_timeout
				// (1 s): deadlock on purpose in the first round only.
				args = append(args, "--order=first")
			}
			if out, code := runCLI(t, append(args, "prepare")...); code != 0 {
				t.Fatalf("prepare: exit %d\n%s", code, out)
			}
			resPath := filepath.Join(t.TempDir(), "r.json")
			out, code := runCLI(t, append(args, "--time=0", "--events="+strconv.Itoa(events), "--results="+resPath, "run")...)
			cleanRun(t, out, code)
			// The deadlocks are in the results by their code: MariaDB's
			// error number, PostgreSQL's SQLSTATE.
			code1 := map[string]string{"mysql": "1213", "pgsql": "40P01"}[db]
			if res := readResults(t, resPath); res.Total == nil || res.Total.Errors[code1] == 0 ||
				res.Total.Errors[code1] > res.Total.Counters.Errors || uint64(counter(t, out, "ignored errors")) != res.Total.Counters.Errors {
				t.Errorf("errors by code %v (counter %v), want the deadlocks as %s", res.Total.Errors, res.Total.Counters, code1)
			}
			if strings.Contains(out, "partner never came") {
				t.Errorf("a thread met no partner:\n%s", out)
			}
			if n := counter(t, out, "ignored errors"); n == 0 {
				t.Errorf("no deadlock counted as an ignored error:\n%s", out)
			}
			if n := counter(t, out, "transactions"); n != events {
				t.Errorf("transactions: %d, want %d (--events)\n%s", n, events, out)
			}
			if n := counter(t, out, "total number of events"); n != events {
				t.Errorf("total number of events: %d, want %d\n%s", n, events, out)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			sum, err := f.inDB(ctx, "SELECT SUM(v) FROM sbgo_fault_rows")
			if err != nil {
				t.Fatal(err)
			}
			if sum[0] != strconv.Itoa(2*events) {
				t.Errorf("the rows were updated %s times, want %d: a victim's updates survived or a commit was lost", sum[0], 2*events)
			}
		})
	}
}

// TestFaultLostConnection kills the workers' server connections in the
// middle of a run, which the client sees as a server restart. With every
// error ignored the workers reconnect, the reconnects are counted and the
// run carries on; without, the run stops with a FATAL line, exit code 1,
// and the report of what it measured.
func TestFaultLostConnection(t *testing.T) {
	t.Parallel()
	const threads = 2
	for _, db := range []string{"mysql", "pgsql"} {
		t.Run(db, func(t *testing.T) {
			t.Parallel() // a database of its own: its sessions are the run's
			f := newFaultDB(t, db)
			oltp := append([]string{"oltp_read_write", "--tables=1", "--table-size=100",
				"--threads=" + strconv.Itoa(threads)}, f.args...)
			if out, code := runCLI(t, append(oltp, "prepare")...); code != 0 {
				t.Fatalf("prepare: exit %d\n%s", code, out)
			}
			script := append([]string{"testdata/scripts/fault_reconnect.lua",
				"--threads=" + strconv.Itoa(threads)}, f.args...)
			ignore := "--" + db + "-ignore-errors=all"

			t.Run("ignore-errors", func(t *testing.T) {
				// One round only: oltp_common's before_restart_event
				// hook prepares its statements again after a
				// reconnect, and a connection lost under that hook
				// ends the run (see the report of issue 3). The run
				// must outlast the kill and the reconnects on a loaded
				// machine: a --time of seconds, paced (--rate) to cost
				// little CPU.
				const runTime = 10 * time.Second
				results := filepath.Join(t.TempDir(), "r.json")
				r := startCLI(append(oltp, ignore, "--time=10", "--rate=20", "--results="+results, "run")...)
				killed := killRounds(t, f, r, threads, 1, true)
				out, code := r.wait(t, runTime+2*cutoffGrace(runTime)+loadedWait)
				cleanRun(t, out, code)
				// Each killed connection is found lost once, and
				// re-established.
				if n := counter(t, out, "reconnects"); n < killed {
					t.Errorf("reconnects: %d, want at least %d (the sessions killed)\n%s", n, killed, out)
				}
				if n := counter(t, out, "transactions"); n == 0 {
					t.Errorf("no transactions:\n%s", out)
				}
				// The run went on to its end rather than stopping at
				// the lost connections.
				ranItsTime(t, readResults(t, results), out, runTime)
			})

			t.Run("repeated", func(t *testing.T) {
				// Connections lost again and again, found by a query,
				// a prepare or an execute: a reconnect each time, the
				// event restarts, and the run goes on.
				if out, code := runCLI(t, append(script, "prepare")...); code != 0 {
					t.Fatalf("prepare: exit %d\n%s", code, out)
				}
				r := startCLI(append(script, ignore, "--time=60", "run")...)
				killed := killRounds(t, f, r, threads, 3, true)
				r.progresses(t, f, "after the last reconnect")
				f.stopRun(t)
				out, code := r.wait(t, loadedWait)
				cleanRun(t, out, code)
				if n := counter(t, out, "reconnects"); n < killed {
					t.Errorf("reconnects: %d, want at least %d (the sessions killed)\n%s", n, killed, out)
				}
			})

			t.Run("fatal", func(t *testing.T) {
				// A long --time: the lost connection must end the run.
				r := startCLI(append(oltp, "--time=60", "run")...)
				killRounds(t, f, r, threads, 1, false)
				out, code := r.wait(t, loadedWait)
				noPanic(t, out)
				if code != 1 {
					t.Errorf("exit %d, want 1\n%s", code, out)
				}
				fatal := strings.Index(out, "FATAL: ")
				if fatal < 0 {
					t.Fatalf("no FATAL line:\n%s", out)
				}
				if !strings.Contains(out[fatal:], "SQL statistics:") || !strings.Contains(out[fatal:], "transactions:") {
					t.Errorf("no final report after the FATAL line:\n%s", out)
				}
			})
		})
	}
}

// TestFaultInterrupt: an interrupted run (SIGINT, which ends the context
// main passes to run, with the signal as its cause) stops at once,
// abandoning the events under way and the queries they wait for, and
// prints its report and the line saying it was interrupted: no FATAL line,
// exit 130.
func TestFaultInterrupt(t *testing.T) {
	t.Parallel()
	for _, db := range []string{"mysql", "pgsql"} {
		t.Run(db, func(t *testing.T) {
			f := newFaultDB(t, db)
			script := append([]string{"testdata/scripts/fault_reconnect.lua", "--threads=2"}, f.args...)
			if out, code := runCLI(t, append(script, "prepare")...); code != 0 {
				t.Fatalf("prepare: exit %d\n%s", code, out)
			}
			ctx, interrupt := interruptible()
			defer interrupt()
			r := startCLIContext(ctx, append(script, "--time=60", "run")...)
			r.started(t)
			r.progresses(t, f, "before the interrupt")
			interrupt()
			out, code := r.wait(t, loadedWait)
			noPanic(t, out)
			if code != 130 || strings.Contains(out, "FATAL") || !strings.Contains(out, "The run was interrupted by SIGINT") {
				t.Fatalf("exit %d, want 130, the interrupt's line and no FATAL line\n%s", code, out)
			}
			if n := counter(t, out, "transactions"); n == 0 {
				t.Errorf("no transactions in the report:\n%s", out)
			}
		})
	}
}

// freePort returns a TCP port on 127.0.0.1 that nothing listens on now.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

// serverBinaries reports whether MariaDB and PostgreSQL can be started
// here, and returns PostgreSQL's bin directory.
func serverBinaries() (pgBin string, ok bool) {
	have := func(name string) bool {
		if _, err := exec.LookPath(name); err == nil {
			return true
		}
		_, err := os.Stat("/usr/sbin/" + name)
		return err == nil
	}
	if !have("mariadbd") && !have("mysqld") {
		return "", false
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return vi < vj
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "pg_ctl")); err == nil {
			return dirs[i], true
		}
	}
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		return filepath.Dir(p), true
	}
	return "", false
}

// TestFaultServerRestart restarts real servers under a run that ignores
// errors: a private MariaDB and PostgreSQL started with scripts/testdb.sh
// on free ports. The workers keep reconnecting while the server is down,
// the reconnects are counted, and the run goes on after the restart.
func TestFaultServerRestart(t *testing.T) {
	// Skip (or fail under CI=true) as the other integration tests do.
	testenv.RequireServer(t, "mysql")
	testenv.RequireServer(t, "pgsql")
	pgBin, ok := serverBinaries()
	if !ok {
		testenv.Unavailable(t, "MariaDB or PostgreSQL server binaries are missing: no private servers to restart")
	}
	t.Parallel()

	// Short: unix socket paths live under it.
	dir, err := os.MkdirTemp("/tmp", "sbgo-fault-")
	if err != nil {
		t.Fatal(err)
	}
	// Ports that nothing takes while the servers restart (restartPort).
	env := map[string]string{"MYSQL_PORT": restartPort(t), "PGSQL_PORT": restartPort(t)}
	testdb := func(cmd string) (string, error) {
		c := exec.Command("bash", "../scripts/testdb.sh", cmd, dir)
		c.Env = append(os.Environ(), "SBTEST_MYSQL_PORT="+env["MYSQL_PORT"],
			"SBTEST_PGSQL_PORT="+env["PGSQL_PORT"], "SBTEST_START_TIMEOUT=300")
		out, err := c.CombinedOutput()
		return string(out), err
	}
	t.Cleanup(func() {
		if out, err := testdb("stop"); err != nil {
			t.Errorf("testdb.sh stop: %v\n%s", err, out)
		}
	})
	if out, err := testdb("start"); err != nil {
		t.Fatalf("testdb.sh start: %v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "env"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(strings.TrimPrefix(l, "export SBTEST_"), "="); ok {
			env[k] = v
		}
	}
	privateEnv := func(k string) string { return env[k] }

	restart := map[string]func() (string, error){
		"mysql": func() (string, error) {
			// Shut down, wait for the server to be gone, and let
			// testdb.sh start it again on the same data.
			admin := "mariadb-admin"
			if _, err := exec.LookPath(admin); err != nil {
				admin = "mysqladmin"
			}
			out, err := exec.Command(admin, "--no-defaults", "--socket="+env["MYSQL_SOCKET"],
				"-uroot", "shutdown").CombinedOutput()
			if err != nil {
				return string(out), err
			}
			pidFile := filepath.Join(dir, "mysql", "mysqld.pid")
			for deadline := time.Now().Add(loadedWait); ; time.Sleep(20 * time.Millisecond) {
				if _, err := os.Stat(pidFile); os.IsNotExist(err) {
					break
				}
				if time.Now().After(deadline) {
					return "", fmt.Errorf("MariaDB did not stop: %s remains", pidFile)
				}
			}
			return testdb("start")
		},
		"pgsql": func() (string, error) {
			args := []string{filepath.Join(pgBin, "pg_ctl"), "-D", filepath.Join(dir, "pg", "data"),
				"-l", filepath.Join(dir, "pg", "server.log"), "-m", "fast", "-w", "-t", "300", "restart"}
			if os.Getuid() == 0 {
				args = append([]string{"runuser", "-u", "postgres", "--"}, args...)
			}
			out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
			return string(out), err
		},
	}
	const threads = 2
	for _, db := range []string{"mysql", "pgsql"} {
		t.Run(db, func(t *testing.T) {
			srv, _ := testenv.Lookup(db, privateEnv)
			f := newFaultDBOn(t, srv)
			script := append([]string{"testdata/scripts/fault_reconnect.lua",
				"--threads=" + strconv.Itoa(threads)}, f.args...)
			if out, code := runCLI(t, append(script, "prepare")...); code != 0 {
				t.Fatalf("prepare: exit %d\n%s", code, out)
			}
			r := startCLI(append(script, "--"+db+"-ignore-errors=all", "--time=60", "run")...)
			r.started(t)
			r.progresses(t, f, "before the restart")
			if out, err := restart[db](); err != nil {
				t.Fatalf("restart: %v\n%s", err, out)
			}
			r.progresses(t, f, "after the restart")
			f.stopRun(t)
			out, code := r.wait(t, loadedWait)
			cleanRun(t, out, code)
			// Every worker lost its connection and got it back.
			if n := counter(t, out, "reconnects"); n < threads {
				t.Errorf("reconnects: %d, want at least %d\n%s", n, threads, out)
			}
		})
	}
}

// TestFaultSQLError: a query with a syntax error sent from Lua, as text
// or as a prepared statement, stops the run with FATAL lines carrying the
// database's error text, and exit code 1. The report after it counts no
// ignored error: the fatal error was not ignored (it counted one per
// failing thread).
func TestFaultSQLError(t *testing.T) {
	t.Parallel()
	dbs := map[string][]string{"sqlite": {"--db-driver=sqlite", "--sqlite-db=" + filepath.Join(t.TempDir(), "fault.db")}}
	want := map[string]string{
		"mysql":  "You have an error in your SQL syntax",
		"pgsql":  `syntax error at or near "SELEC"`,
		"sqlite": `near "SELEC": syntax error`,
	}
	for _, db := range []string{"mysql", "pgsql"} {
		if s, ok := testenv.OptionalServer(t, db); ok {
			dbs[db] = s.Args()
		}
	}
	for db, conn := range dbs {
		for _, how := range []string{"query", "prepare"} {
			t.Run(db+"/"+how, func(t *testing.T) {
				args := append([]string{"testdata/scripts/fault_sql_error.lua", "--how=" + how, "--events=5", "--time=0", "--threads=2"}, conn...)
				out, code := runCLI(t, append(args, "run")...)
				noPanic(t, out)
				if code != 1 {
					t.Errorf("exit %d, want 1\n%s", code, out)
				}
				if !strings.Contains(strings.Join(fatalLines(out), "\n"), want[db]) {
					t.Errorf("no FATAL line with %q:\n%s", want[db], out)
				}
				if !strings.Contains(out, "FATAL: `thread_run' function failed: testdata/scripts/fault_sql_error.lua:") {
					t.Errorf("no FATAL line naming the script's line:\n%s", out)
				}
				if n := counter(t, out, "ignored errors"); n != 0 {
					t.Errorf("ignored errors: %d after a fatal error, want 0\n%s", n, out)
				}
			})
		}
	}
}

// TestFaultBadDriverOptions: an unknown driver and a bad --db-ps-mode are
// a clear FATAL line and exit code 1, and no run.
func TestFaultBadDriverOptions(t *testing.T) {
	t.Parallel()
	const noDriver = "FATAL: invalid database driver name: 'nosuch'"
	const badMode = "FATAL: Invalid value for db-ps-mode: bogus"
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"oltp_point_select", "--db-driver=nosuch", "run"}, noDriver},
		{[]string{"oltp_point_select", "--db-driver=nosuch", "prepare"}, noDriver},
		{[]string{"testdata/scripts/fault_sql_error.lua", "--db-driver=nosuch", "run"}, noDriver},
		{[]string{"oltp_point_select", "--db-ps-mode=bogus", "run"}, badMode},
		{[]string{"oltp_point_select", "--db-ps-mode=bogus", "--db-driver=pgsql", "prepare"}, badMode},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			out, code := runCLI(t, c.args...)
			noPanic(t, out)
			if code != 1 {
				t.Errorf("exit %d, want 1\n%s", code, out)
			}
			if !strings.Contains(out, c.want+"\n") {
				t.Errorf("output lacks the line %q:\n%s", c.want, out)
			}
			if strings.Contains(out, "Threads started!") {
				t.Errorf("the run started:\n%s", out)
			}
		})
	}
}

// runBounded runs the program as a process and returns what it printed
// and its exit status; a process still running after loadedWait is killed
// and fails the test (a run that does not end at its --time).
func runBounded(t *testing.T, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), loadedWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, testenv.Binary(t), args...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("still running %v later (%v):\n%s", loadedWait, args, out)
	}
	return string(out), processExit(t, err)
}

// TestTimeBoundsEvents: --time bounds a run whatever its events do. An
// event that restarts after an ignored error for ever (a duplicate key
// with the error ignored) ends at --time: the run reports its errors and
// no event, and exits 0 (it ran until killed before). An event whose query
// waits on the server is cancelled a grace period after --time, with a
// warning, and not counted.
func TestTimeBoundsEvents(t *testing.T) {
	t.Parallel()
	// Side by side from the start: the parts mostly wait (the grace
	// periods, the sleeps of thread_done).
	parts := map[string]func(t *testing.T){}
	var names []string
	part := func(name string, f func(t *testing.T)) {
		names = append(names, name)
		parts[name] = f
	}
	for _, db := range []string{"mysql", "pgsql"} {
		part(db+"/restarting event", func(t *testing.T) {
			f := newFaultDB(t, db)
			script := append([]string{"testdata/scripts/dup_key.lua"}, f.args...)
			if db == "mysql" {
				script = append(script, "--mysql-ignore-errors=1062")
			}
			if out, code := runCLI(t, append(script, "prepare")...); code != 0 {
				t.Fatalf("prepare: exit %d\n%s", code, out)
			}
			out, code := runBounded(t, append(script, "--threads=1", "--time=1", "run")...)
			noPanic(t, out)
			if code != 0 || strings.Contains(out, "FATAL") || strings.Contains(out, "WARNING") {
				t.Fatalf("exit %d, want 0 without FATAL or WARNING lines\n%s", code, out)
			}
			if n := counter(t, out, "ignored errors"); n == 0 {
				t.Errorf("no ignored errors counted:\n%s", out)
			}
			if n := counter(t, out, "total number of events"); n != 0 {
				t.Errorf("%d events counted, want 0: every event restarted until the end\n%s", n, out)
			}
		})
		part(db+"/waiting query", func(t *testing.T) {
			srv := testenv.RequireServer(t, db)
			args := append([]string{"testdata/scripts/wait_query.lua", "--time=1"}, srv.Args()...)
			out, code := runBounded(t, append(args, "run")...)
			noPanic(t, out)
			if code != 0 || strings.Contains(out, "FATAL") {
				t.Fatalf("exit %d, want 0 without FATAL lines\n%s", code, out)
			}
			if !strings.Contains(out, "WARNING: 1 event still running 5s after --time cancelled: not counted\n") {
				t.Errorf("no warning about the cancelled event:\n%s", out)
			}
			if n := counter(t, out, "total number of events"); n != 0 {
				t.Errorf("%d events counted, want 0\n%s", n, out)
			}
		})
	}
	// A Lua loop cannot be cancelled: its worker is abandoned, as by
	// --forced-shutdown, with its message and exit status.
	part("lua loop", func(t *testing.T) {
		out, code := runBounded(t, "testdata/scripts/hang.lua", "--time=1", "run")
		noPanic(t, out)
		if code != 2 || !strings.Contains(out, "FATAL: The --max-time limit has expired, forcing shutdown...\n") {
			t.Errorf("exit %d, want 2 and the forced shutdown's line\n%s", code, out)
		}
		if !strings.Contains(out, "General statistics:") {
			t.Errorf("no final report:\n%s", out)
		}
	})
	// The bound is on events: a thread_done that works past both grace
	// periods (5 s each after --time=1; it works 11-12 s, as a bulk
	// insert's last rows may) runs to its end, as the reference's does.
	part("slow thread_done", func(t *testing.T) {
		args := []string{"testdata/scripts/slow_thread_done.lua", "--db-driver=sqlite",
			"--sqlite-db=" + filepath.Join(t.TempDir(), "done.db"), "--threads=2"}
		if out, code := runCLI(t, append(args, "prepare")...); code != 0 {
			t.Fatalf("prepare: exit %d\n%s", code, out)
		}
		out, code := runBounded(t, append(args, "--time=1", "--slow=12", "run")...)
		noPanic(t, out)
		if code != 0 || strings.Contains(out, "FATAL") || strings.Contains(out, "WARNING") {
			t.Fatalf("exit %d, want 0 without FATAL or WARNING lines\n%s", code, out)
		}
		rows := runSQLite(t, args, "SELECT COUNT(*) FROM slow_done")
		if rows != "2" {
			t.Errorf("%s rows written by thread_done, want 2 (one a worker)\n%s", rows, out)
		}
	})
	sideBySide(t, names, func(t *testing.T, name string) { parts[name](t) })
}

// runSQLite runs query on the SQLite database of args with a script and
// returns the first column of its first row.
func runSQLite(t *testing.T, args []string, query string) string {
	t.Helper()
	script := filepath.Join(t.TempDir(), "query.lua")
	body := "print('row=' .. tostring(sysbench.sql.driver():connect():query_row([[" + query + "]])))\n"
	if err := os.WriteFile(script, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := runCLI(t, append([]string{script}, args[1:]...)...)
	_, row, ok := strings.Cut(out, "row=")
	if code != 0 || !ok {
		t.Fatalf("%s: exit %d\n%s", query, code, out)
	}
	return strings.TrimSpace(row)
}
