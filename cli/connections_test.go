package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/drivers/pgsql"
	"github.com/sysbench-go/sysbench-go/internal/testenv"
	"github.com/sysbench-go/sysbench-go/report"
)

// connScript is the script of these tests (testdata/scripts/connections.lua).
const connScript = "testdata/scripts/connections.lua"

// randomName is prefix and 8 random hex digits: a user or role of the
// test's own.
func randomName(prefix string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// serverAdmin runs statements as the test server's superuser: root on
// MariaDB's socket (with the mariadb client), postgres on PostgreSQL's
// (trusted locally, as scripts/testdb.sh sets it up). A server without
// that access skips the test (fails it under CI=true).
type serverAdmin struct {
	t   *testing.T
	srv testenv.Server
	pg  *pgconn.PgConn
}

func newServerAdmin(t *testing.T, srv testenv.Server) *serverAdmin {
	t.Helper()
	a := &serverAdmin{t: t, srv: srv}
	if srv.Socket == "" {
		testenv.Unavailable(t, "no SBTEST_"+strings.ToUpper(srv.Kind)+"_SOCKET: the test needs the server's superuser on its socket")
	}
	if srv.Kind == "pgsql" {
		ctx, cancel := context.WithTimeout(context.Background(), loadedWait)
		defer cancel()
		pg, err := pgconn.Connect(ctx, fmt.Sprintf("host=%s port=%s user=postgres dbname=postgres", srv.Socket, srv.Port))
		if err != nil {
			testenv.Unavailable(t, fmt.Sprintf("PostgreSQL's superuser on %s: %v", srv.Socket, err))
		}
		a.pg = pg
		t.Cleanup(func() { pg.Close(context.Background()) })
		return a
	}
	if _, err := a.exec("SELECT 1"); err != nil {
		testenv.Unavailable(t, fmt.Sprintf("MariaDB's root on %s: %v", srv.Socket, err))
	}
	return a
}

// exec runs q and returns the first column of its rows.
func (a *serverAdmin) exec(q string) ([]string, error) {
	if a.pg != nil {
		ctx, cancel := context.WithTimeout(context.Background(), loadedWait)
		defer cancel()
		return pgColumn(a.pg.Exec(ctx, q).ReadAll())
	}
	client := "mariadb"
	if _, err := exec.LookPath(client); err != nil {
		client = "mysql"
	}
	out, err := exec.Command(client, "--no-defaults", "--socket="+a.srv.Socket, "-uroot", "-N", "-B", "-e", q).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, out)
	}
	var col []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l != "" {
			col = append(col, strings.Split(l, "\t")[0])
		}
	}
	return col, nil
}

// must runs q and fails the test if it fails.
func (a *serverAdmin) must(q string) []string {
	a.t.Helper()
	col, err := a.exec(q)
	if err != nil {
		a.t.Fatalf("%s: %v", q, err)
	}
	return col
}

// ownUser creates a login of the test's own for database db (with
// attrs: "WITH MAX_USER_CONNECTIONS 3", "CONNECTION LIMIT 2") and
// returns the run's options with it in place of the server's user.
func (a *serverAdmin) ownUser(db *faultDB, attrs string) []string {
	a.t.Helper()
	name := randomName("sbtest_conn_")
	if a.pg != nil {
		a.must(fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD 'sbtest' %s", name, attrs))
		a.must(fmt.Sprintf("GRANT ALL ON DATABASE %s TO %s", db.name, name))
		a.t.Cleanup(func() {
			_, _ = a.exec(fmt.Sprintf("REVOKE ALL ON DATABASE %s FROM %s", db.name, name))
			_, _ = a.exec("DROP ROLE IF EXISTS " + name)
		})
	} else {
		a.must(fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY 'sbtest' %s; GRANT ALL ON `%s`.* TO '%s'@'%%'", name, attrs, db.name, name))
		a.t.Cleanup(func() { _, _ = a.exec(fmt.Sprintf("DROP USER IF EXISTS '%s'@'%%'", name)) })
	}
	return append(append([]string(nil), db.args...), "--"+a.srv.Kind+"-user="+name)
}

// pollCount reads a count with read until it is at least want, for at
// most loadedWait, and returns the count it read last.
func pollCount(t *testing.T, want int, read func() (int, error)) int {
	t.Helper()
	deadline := time.Now().Add(loadedWait)
	for {
		n, err := read()
		if err != nil {
			t.Fatal(err)
		}
		if n >= want || time.Now().After(deadline) {
			return n
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// countOf reads a count from q on db's side connection.
func countOf(db *faultDB, q string) func() (int, error) {
	return func() (int, error) {
		ctx, cancel := context.WithTimeout(context.Background(), loadedWait)
		defer cancel()
		col, err := db.query(ctx, q)
		if err != nil || len(col) != 1 {
			return 0, fmt.Errorf("%s: %v %v", q, col, err)
		}
		return strconv.Atoi(col[0])
	}
}

// reconnectsPerThread is what --reconnect=every gives for the threads of
// w, each of conns connections: a reconnect of each after every every-th
// event of the thread.
func reconnectsPerThread(w *report.Window, every, conns int) uint64 {
	var n uint64
	for _, th := range w.Threads {
		n += th.Events / uint64(every) * uint64(conns)
	}
	return n
}

// --reconnect=N: a new connection every N events, per thread, for every
// connection a Lua script's thread opened (its prepared statement still
// runs on the new one) and for the bundled workloads' Go event plans;
// each counted as a reconnect, and the server's own count of connections
// opened agrees (USER_STATISTICS of a user of the test's own on MariaDB,
// pg_stat_database.sessions of its own database on PostgreSQL).
func TestReconnectEveryNEvents(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"mysql", "pgsql"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			db := newFaultDB(t, kind)
			admin := newServerAdmin(t, db.srv)
			args := db.args
			var opened func() (int, error)
			if kind == "mysql" {
				// The user's count of connections: others' do not move it.
				was := admin.must("SELECT @@GLOBAL.userstat")[0]
				admin.must("SET GLOBAL userstat = 1")
				t.Cleanup(func() { _, _ = admin.exec("SET GLOBAL userstat = " + was) })
				args = admin.ownUser(db, "")
				user := strings.TrimPrefix(args[len(args)-1], "--mysql-user=")
				opened = func() (int, error) {
					col, err := admin.exec("SELECT COALESCE(SUM(TOTAL_CONNECTIONS), 0) FROM information_schema.USER_STATISTICS WHERE USER = '" + user + "'")
					if err != nil || len(col) != 1 {
						return 0, fmt.Errorf("USER_STATISTICS: %v %v", col, err)
					}
					return strconv.Atoi(col[0])
				}
			} else {
				opened = countOf(db, "SELECT sessions FROM pg_stat_database WHERE datname = '"+db.name+"'")
			}

			// A script's two connections per thread.
			before := pollCount(t, 0, opened)
			path := filepath.Join(t.TempDir(), "r.json")
			run := append([]string{connScript, "--conns=2", "--statements=2", "--threads=3", "--events=301", "--time=0",
				"--reconnect=20", "--results=" + path, "run"}, args...)
			out, code := runCLI(t, run...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, out)
			}
			res := readResults(t, path)
			want := reconnectsPerThread(res.Total, 20, 2)
			if got := res.Total.Counters.Reconnects; got != want || want < 2*(301/20-3) {
				t.Fatalf("%d reconnects, want %d for threads of %v events\n%s", got, want, res.Total.Threads, out)
			}
			if n := counter(t, out, "reconnects"); uint64(n) != want {
				t.Errorf("the report says %d reconnects, want %d", n, want)
			}
			// Opened: the limits' check, the threads' connections, each
			// reconnect.
			wantOpened := before + 1 + 3*2 + int(want)
			if got := pollCount(t, wantOpened, opened); got != wantOpened {
				t.Errorf("the server counted %d connections opened, want %d (1 check + 6 + %d reconnects)", got-before, wantOpened-before, want)
			}

			// The bundled workload's Go event plan.
			oltp := append([]string{"oltp_point_select", "--tables=1", "--table-size=100"}, db.args...)
			if out, code := runCLI(t, append(oltp, "prepare")...); code != 0 {
				t.Fatalf("prepare: exit %d\n%s", code, out)
			}
			out, code = runCLI(t, append(oltp, "--threads=2", "--events=200", "--time=0", "--reconnect=7", "--results="+path, "run")...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, out)
			}
			res = readResults(t, path)
			if got, want := res.Total.Counters.Reconnects, reconnectsPerThread(res.Total, 7, 1); got != want || want < 200/7-2 {
				t.Errorf("oltp_point_select: %d reconnects, want %d\n%s", got, want, out)
			}
		})
	}
}

// --conn-lifetime=MIN:MAX: each connection lives a number of events drawn
// between MIN and MAX; with MIN = MAX it is exactly --reconnect, and with
// --rand-seed the draws repeat.
func TestConnectionLifetime(t *testing.T) {
	db := newFaultDB(t, "mysql")
	path := filepath.Join(t.TempDir(), "r.json")
	run := func(lifetime string) *report.Results {
		t.Helper()
		out, code := runCLI(t, append([]string{connScript, "--threads=1", "--events=200", "--time=0", "--rand-seed=7",
			"--conn-lifetime=" + lifetime, "--results=" + path, "run"}, db.args...)...)
		if code != 0 {
			t.Fatalf("--conn-lifetime=%s: exit %d\n%s", lifetime, code, out)
		}
		return readResults(t, path)
	}
	if got := run("25:25").Total.Counters.Reconnects; got != 200/25 {
		t.Errorf("--conn-lifetime=25:25: %d reconnects, want %d", got, 200/25)
	}
	first := run("5:40").Total.Counters.Reconnects
	// 200 events of lifetimes of 5 to 40: between 200/40 and 200/5.
	if first < 200/40-1 || first > 200/5 {
		t.Errorf("--conn-lifetime=5:40: %d reconnects over 200 events", first)
	}
	if again := run("5:40").Total.Counters.Reconnects; again != first {
		t.Errorf("--rand-seed=7 gave %d reconnects, then %d", first, again)
	}
	if got := run("40").Total.Counters.Reconnects; got != 200/40 {
		t.Errorf("--conn-lifetime=40: %d reconnects, want %d", got, 200/40)
	}

	// A script with its own --reconnect reconnects once each time.
	out, code := runCLI(t, append([]string{"testdata/scripts/own_reconnect.lua", "--events=100", "--time=0", "--reconnect=10",
		"--results=" + path, "run"}, db.args...)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if got := readResults(t, path).Total.Counters.Reconnects; got != 10 {
		t.Errorf("a script with its own --reconnect=10: %d reconnects over 100 events, want 10", got)
	}
	// A script's own loop: after every N-th sb_event_stop.
	out, code = runCLI(t, append([]string{"testdata/scripts/loop_reconnect.lua", "--events=100", "--time=0", "--reconnect=10",
		"--results=" + path, "run"}, db.args...)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if got := readResults(t, path).Total.Counters.Reconnects; got != 10 {
		t.Errorf("thread_run: %d reconnects over 100 events with --reconnect=10, want 10", got)
	}

	for _, bad := range []string{"10s:5", "0:5", "9:3", "x"} {
		out, code := runCLI(t, append([]string{connScript, "--conn-lifetime=" + bad, "run"}, db.args...)...)
		if f := fatalLines(out); code != 1 || len(f) != 1 || !strings.Contains(f[0], "--conn-lifetime") {
			t.Errorf("--conn-lifetime=%s: exit %d, FATAL lines %q", bad, code, f)
		}
	}
}

// --idle-connections=N: while the run goes on, the server counts the
// threads' connections and N more (read from another connection while
// the threads wait in their first event), the report says so, the
// results file records it, and they are closed at the end.
func TestIdleConnections(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"mysql", "pgsql"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			db := newFaultDB(t, kind)
			sessions := countOf(db, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE DB = '"+db.name+"'")
			if kind == "pgsql" {
				sessions = countOf(db, "SELECT count(*) FROM pg_stat_activity WHERE datname = '"+db.name+"'")
			}
			dir := t.TempDir()
			hold, path := filepath.Join(dir, "go"), filepath.Join(dir, "r.json")
			const threads, idle = 3, 25
			type result struct {
				out  string
				code int
			}
			done := make(chan result, 1)
			go func() {
				out, code := runCLI(t, append([]string{connScript, "--threads=3", "--events=6", "--time=0", "--hold=" + hold,
					"--idle-connections=25", "--results=" + path, "run"}, db.args...)...)
				done <- result{out, code}
			}()
			got := pollCount(t, threads+idle, sessions)
			// The threads hold in their first event: the count stays.
			again, _ := sessions()
			if err := os.WriteFile(hold, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			r := <-done
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.out)
			}
			if got != threads+idle || again != got {
				t.Errorf("the server had %d then %d sessions on the run's database, want %d threads + %d idle", got, again, threads, idle)
			}
			if !strings.Contains(r.out, "\nConnections: 3 active, 25 idle\n") {
				t.Errorf("no line for the connections in:\n%s", r.out)
			}
			// Pings well inside the server's idle timeout.
			timeout := time.Duration(0)
			if kind == "mysql" {
				s, err := countOf(db, "SELECT @@SESSION.wait_timeout")()
				if err != nil {
					t.Fatal(err)
				}
				timeout = time.Duration(s) * time.Second
			}
			c := readResults(t, path).Connections
			if c == nil || c.Active != threads || c.Idle != idle || c.KeepaliveSeconds != keepaliveFor(timeout).Seconds() {
				t.Errorf("results: connections %+v", c)
			}
			deadline := time.Now().Add(loadedWait)
			n, _ := sessions()
			for n != 0 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
				n, _ = sessions()
			}
			if n != 0 {
				t.Errorf("%d sessions left after the run", n)
			}

			if kind == "pgsql" {
				// A database that closes sessions idle for 3 s: its idle
				// connections are pinged every second.
				if _, err := db.query(context.Background(), "ALTER DATABASE "+db.name+" SET idle_session_timeout = '3s'"); err != nil {
					t.Fatal(err)
				}
				if out, code := runCLI(t, append([]string{connScript, "--events=2", "--time=0", "--idle-connections=2", "--results=" + path, "run"}, db.args...)...); code != 0 {
					t.Fatalf("exit %d\n%s", code, out)
				}
				if c := readResults(t, path).Connections; c == nil || c.KeepaliveSeconds != 1 {
					t.Errorf("with idle_session_timeout=3s: connections %+v, want a ping every second", c)
				}
			}

			// Without the option the output has no such line.
			out, code := runCLI(t, append([]string{connScript, "--events=2", "--time=0", "run"}, db.args...)...)
			if code != 0 || strings.Contains(out, "Connections:") {
				t.Errorf("exit %d, without --idle-connections:\n%s", code, out)
			}
		})
	}
}

// refused runs args and checks the run was refused: exit 1 and one line,
// a FATAL line naming setting.
func refused(t *testing.T, setting string, args ...string) {
	t.Helper()
	out, code := runCLI(t, args...)
	f := fatalLines(out)
	if code != 1 || len(f) != 1 || !strings.HasPrefix(f[0], "FATAL: "+setting+" is ") || !strings.Contains(f[0], "--skip-checks") {
		t.Errorf("%v: exit %d, FATAL lines %q, want one naming %s\n%s", args, code, f, setting, out)
	}
	noPanic(t, out)
}

// runs runs args and checks the run succeeded.
func runs(t *testing.T, args ...string) string {
	t.Helper()
	out, code := runCLI(t, args...)
	if code != 0 {
		t.Errorf("%v: exit %d\n%s", args, code, out)
	}
	return out
}

// A run that cannot succeed is refused before it opens a connection of
// its own, with one line naming the server's setting; within the limits
// it runs, and --skip-checks leaves the limit to the server.
func TestRefusedUpFront(t *testing.T) {
	t.Parallel()
	t.Run("mysql", func(t *testing.T) {
		t.Parallel()
		db := newFaultDB(t, "mysql")
		run := func(args ...string) []string {
			return append(append([]string{connScript, "--events=4", "--time=0"}, args...), "run")
		}
		maxConn, err := countOf(db, "SELECT @@GLOBAL.max_connections")()
		if err != nil {
			t.Fatal(err)
		}
		refused(t, "max_connections", append(run("--threads="+strconv.Itoa(maxConn+1)), db.args...)...)
		refused(t, "max_connections", append(run("--threads=2", "--idle-connections="+strconv.Itoa(maxConn)), db.args...)...)
		runs(t, append(run("--threads=2", "--idle-connections=3"), db.args...)...)
		// This process's limit on open files, each connection one.
		bin := testenv.Binary(t)
		for _, c := range []struct {
			threads string
			code    int
		}{{"60", 1}, {"40", 0}} {
			cmd := exec.Command("sh", append([]string{"-c", `ulimit -n 64 && exec "$@"`, "sh", bin}, run("--threads="+c.threads)...)...)
			cmd.Args = append(cmd.Args, db.args...)
			b, _ := cmd.CombinedOutput()
			f := fatalLines(string(b))
			if cmd.ProcessState.ExitCode() != c.code || (c.code == 1) != (len(f) == 1 && strings.HasPrefix(f[0], "FATAL: the open files limit (ulimit -n) is 56 (64, ")) {
				t.Errorf("--threads=%s under ulimit -n 64: exit %d, FATAL lines %q\n%s", c.threads, cmd.ProcessState.ExitCode(), f, b)
			}
		}
		// The bundled workloads prepare on every thread.
		refused(t, "max_connections", append([]string{"oltp_point_select", "--threads=" + strconv.Itoa(maxConn+1), "prepare"}, db.args...)...)

		// 20 threads of 1000 statements each do not fit under the
		// default 16382: the first thread's count says so before the
		// others prepare any.
		stmts, err := countOf(db, "SELECT @@GLOBAL.max_prepared_stmt_count")()
		if err != nil {
			t.Fatal(err)
		}
		threads := stmts/1000 + 4
		refused(t, "max_prepared_stmt_count", append(run("--threads="+strconv.Itoa(threads), "--statements=1000"), db.args...)...)
		runs(t, append(run("--threads=2", "--statements=50"), db.args...)...)
		// Statements substituted on the client take no room.
		runs(t, append(run("--threads="+strconv.Itoa(threads), "--statements=1000", "--db-ps-mode=disable"), db.args...)...)

		admin := newServerAdmin(t, db.srv)
		own := admin.ownUser(db, "WITH MAX_USER_CONNECTIONS 3")
		refused(t, "max_user_connections", append(run("--threads=4"), own...)...)
		refused(t, "max_user_connections", append(run("--threads=2", "--idle-connections=2"), own...)...)
		runs(t, append(run("--threads=2"), own...)...)
		// The server says no to the fourth connection itself.
		out, code := runCLI(t, append(run("--threads=4", "--skip-checks"), own...)...)
		if code != 1 || strings.Contains(out, "--skip-checks runs anyway") || !strings.Contains(out, "max_user_connections") {
			t.Errorf("--skip-checks: exit %d, want the server's refusal:\n%s", code, out)
		}
	})
	t.Run("pgsql", func(t *testing.T) {
		t.Parallel()
		db := newFaultDB(t, "pgsql")
		run := func(args ...string) []string {
			return append(append([]string{connScript, "--events=4", "--time=0"}, args...), "run")
		}
		maxConn, err := countOf(db, "SELECT current_setting('max_connections')")()
		if err != nil {
			t.Fatal(err)
		}
		// Less the slots reserved for superusers.
		refused(t, "max_connections", append(run("--threads="+strconv.Itoa(maxConn)), db.args...)...)

		// The database's own limit, which its owner sets. (The runs that
		// fit leave a connection's room: the limits' own connection may
		// not have left the server yet when the threads connect.)
		if _, err := db.query(context.Background(), "ALTER DATABASE "+db.name+" CONNECTION LIMIT 3"); err != nil {
			t.Fatal(err)
		}
		refused(t, "the CONNECTION LIMIT of database "+db.name, append(run("--threads=4"), db.args...)...)
		runs(t, append(run("--threads=2"), db.args...)...)
		// Connections open there now count against it.
		own := db.srv
		own.DB = db.name
		ctx, cancel := context.WithTimeout(context.Background(), loadedWait)
		side, err := pgconn.Connect(ctx, own.PgURL(own.DB))
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		out, _ := runCLI(t, append(run("--threads=3"), db.args...)...)
		if f := fatalLines(out); len(f) != 1 || !strings.Contains(f[0], "is 3 with 1 connection open: --threads=3 needs 3") {
			t.Errorf("with a connection open to the database: FATAL lines %q, want the limit's with 1 connection open", f)
		}
		side.Close(context.Background())
		out, code := runCLI(t, append(run("--threads=4", "--skip-checks"), db.args...)...)
		if code != 1 || strings.Contains(out, "--skip-checks runs anyway") || !strings.Contains(out, "too many connections for database") {
			t.Errorf("--skip-checks: exit %d, want the server's refusal:\n%s", code, out)
		}
		if _, err := db.query(context.Background(), "ALTER DATABASE "+db.name+" CONNECTION LIMIT -1"); err != nil {
			t.Fatal(err)
		}

		// A role's limit.
		admin := newServerAdmin(t, db.srv)
		user := admin.ownUser(db, "CONNECTION LIMIT 3")
		role := strings.TrimPrefix(user[len(user)-1], "--pgsql-user=")
		refused(t, "the CONNECTION LIMIT of role "+role, append(run("--threads=2", "--idle-connections=2"), user...)...)
		runs(t, append(run("--threads=2"), user...)...)
	})
}

// --conn-lifetime's values: events, or seconds with an s on both ends.
func TestParseLifetime(t *testing.T) {
	for _, c := range []struct {
		in     string
		lo, hi int64
		timed  bool
	}{
		{"100:1000", 100, 1000, false},
		{" 7 ", 7, 7, false},
		{"5s:30s", 5e9, 30e9, true},
		{"0.5s:1.5s", 5e8, 15e8, true},
	} {
		m, err := parseLifetime(c.in)
		if err != nil || m.LifetimeMin != c.lo || m.LifetimeMax != c.hi || m.Timed != c.timed || m.Every != 0 || !m.On() {
			t.Errorf("%q: %+v, %v", c.in, m, err)
		}
	}
	for _, bad := range []string{"", "5s:30", "5:30s", "-1:4", "4:1", "1s:0.5s", "a:b", "0s:1s", "1e99s:1e99s"} {
		if _, err := parseLifetime(bad); err == nil || !strings.Contains(err.Error(), "--conn-lifetime") {
			t.Errorf("%q: %v, want an error naming --conn-lifetime", bad, err)
		}
	}
}

// The idle connections are pinged, and one the server closed is opened
// again: with a ping every 50 ms, each session's last statement becomes
// the ping, and a session terminated on the server is replaced.
func TestIdleKeepalive(t *testing.T) {
	t.Parallel()
	db := newFaultDB(t, "pgsql")
	own := db.srv
	own.DB = db.name
	cfg := drivers.Config{Values: own.Values(pgsql.Factory.Options)}
	pool, err := openIdle(context.Background(), &pgsql.Factory, cfg, 3, 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.close()
	on := "FROM pg_stat_activity WHERE datname = '" + db.name + "'"
	if n := pollCount(t, 3, countOf(db, "SELECT count(*) "+on+" AND query = 'SELECT 1'")); n != 3 {
		t.Fatalf("%d of the 3 idle sessions pinged", n)
	}
	pids, err := db.query(context.Background(), "SELECT pid "+on)
	if err != nil || len(pids) != 3 {
		t.Fatalf("sessions %v: %v", pids, err)
	}
	if _, err := db.query(context.Background(), "SELECT pg_terminate_backend("+pids[0]+")"); err != nil {
		t.Fatal(err)
	}
	// Three sessions again, the terminated one replaced.
	again := countOf(db, "SELECT count(*) "+on+" AND pid <> "+pids[0])
	if n := pollCount(t, 3, again); n != 3 {
		t.Errorf("%d sessions after one was terminated, want it opened again", n)
	}
}

// A built-in test opens no connection: the options say so once each.
func TestBuiltinSaysConnectionOptionsDoNothing(t *testing.T) {
	out, code := runCLI(t, "cpu", "--cpu-max-prime=100", "--events=10", "--time=0", "--conn-lifetime=1:9",
		"--idle-connections=3", "run")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, o := range []string{"conn-lifetime", "idle-connections"} {
		line := "WARNING: --" + o + ": the cpu test uses no database: no connection to open\n"
		if strings.Count(out, line) != 1 {
			t.Errorf("want the line %q once:\n%s", line, out)
		}
	}
	if strings.Contains(out, "Connections:") {
		t.Errorf("a connections line for a test without connections:\n%s", out)
	}
}
