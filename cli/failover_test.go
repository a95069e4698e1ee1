package cli

// Failover tests (issue 41): a run against servers of the test's own that
// go away mid-run. A PostgreSQL primary is stopped and its streaming
// standby promoted; a MariaDB server is stopped and started again. The
// run must follow the service to where it is back (the host list's next
// host, or the same one), end on time, count what failed, say which host
// served which window, and report one outage as long as the test saw
// from outside: from the moment it stopped the server to the first row
// the run wrote after it, which the test polls for.
//
// The servers are private (their own data directories and free loopback
// ports), so the tests run in parallel with the others.

import (
	"context"
	"database/sql"
	"fmt"
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

	"github.com/sysbench-go/sysbench-go/drivers"
	mysqldrv "github.com/sysbench-go/sysbench-go/drivers/mysql"
	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

// failoverTolerance is how far the reported outage may be from the one the
// test observed: the test sees a stop a few milliseconds after it sends
// it and a row a polling period (and a busy machine's scheduling) after
// it was committed.
const failoverTolerance = 500 * time.Millisecond

// downFor is how long the test keeps the service down before bringing it
// back: longer than the run's outage threshold (1 s), so that the run
// reports one.
const downFor = 1500 * time.Millisecond

// failoverTime is the runs' --time.
const failoverTime = 7

// privateDir is a short directory (unix socket paths live under it) of
// the test's own, removed at the end; when we are root, the postgres
// user owns it, as PostgreSQL refuses to run as root.
func privateDir(t *testing.T, prefix string) string {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// pgBinDir is the bin directory of the newest PostgreSQL with initdb,
// pg_ctl and pg_basebackup, "" when there is none.
func pgBinDir() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return vi < vj
	})
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		dirs = append([]string{filepath.Dir(p)}, dirs...)
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		ok := true
		for _, b := range []string{"initdb", "pg_ctl", "pg_basebackup"} {
			if _, err := os.Stat(filepath.Join(dirs[i], b)); err != nil {
				ok = false
			}
		}
		if ok {
			return dirs[i]
		}
	}
	return ""
}

// pgTool runs a PostgreSQL program as the user that owns the data.
func pgTool(t *testing.T, bin, name string, args ...string) {
	t.Helper()
	cmd := append([]string{filepath.Join(bin, name)}, args...)
	if os.Getuid() == 0 {
		cmd = append([]string{"runuser", "-u", "postgres", "--"}, cmd...)
	}
	if out, err := exec.Command(cmd[0], cmd[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd, " "), err, out)
	}
}

// pgServer is one private PostgreSQL server.
type pgServer struct {
	bin, data, port string
}

func (s pgServer) ctl(t *testing.T, args ...string) {
	t.Helper()
	pgTool(t, s.bin, "pg_ctl", append([]string{"-D", s.data}, args...)...)
}

func (s pgServer) start(t *testing.T) {
	t.Helper()
	s.ctl(t, "-l", s.data+".log", "-w", "-t", "60", "start")
}

// connect opens a side connection to the server's sbtest (or db)
// database.
func (s pgServer) connect(ctx context.Context, db string) (*pgconn.PgConn, error) {
	return pgconn.Connect(ctx, fmt.Sprintf("host=127.0.0.1 port=%s user=sbtest dbname=%s sslmode=disable connect_timeout=5", s.port, db))
}

// count is the number of rows of sbtest1 on the server, -1 when it cannot
// be read.
func (s pgServer) count(ctx context.Context) int {
	c, err := s.connect(ctx, "sbtest")
	if err != nil {
		return -1
	}
	defer c.Close(context.Background())
	res, err := c.Exec(ctx, "SELECT count(*) FROM sbtest1").ReadAll()
	if err != nil || len(res) == 0 || len(res[0].Rows) == 0 {
		return -1
	}
	n, _ := strconv.Atoi(string(res[0].Rows[0][0]))
	return n
}

// newPrimaryAndStandby starts a PostgreSQL primary with a database sbtest
// (user sbtest, trusted on loopback) and a streaming standby of it made
// with pg_basebackup -R, each on a free port.
func newPrimaryAndStandby(t *testing.T, bin string) (primary, standby pgServer) {
	t.Helper()
	dir := privateDir(t, "sbgo-failover-pg-")
	if os.Getuid() == 0 {
		if out, err := exec.Command("chown", "postgres:", dir).CombinedOutput(); err != nil {
			t.Fatalf("chown: %v\n%s", err, out)
		}
	}
	primary = pgServer{bin: bin, data: filepath.Join(dir, "primary"), port: freePort(t)}
	standby = pgServer{bin: bin, data: filepath.Join(dir, "standby"), port: freePort(t)}
	pgTool(t, bin, "initdb", "-D", primary.data, "-U", "sbtest", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync")
	// Durability off: the test measures a failover, not the disk.
	conf := fmt.Sprintf("\nlisten_addresses = '127.0.0.1'\nport = %s\nunix_socket_directories = '%s'\n"+
		"fsync = off\nsynchronous_commit = off\nfull_page_writes = off\nshared_buffers = 16MB\nmax_connections = 40\n",
		primary.port, dir)
	appendFile(t, filepath.Join(primary.data, "postgresql.conf"), conf)
	primary.start(t)
	t.Cleanup(func() {
		for _, s := range []pgServer{primary, standby} {
			args := []string{filepath.Join(bin, "pg_ctl"), "-D", s.data, "-m", "immediate", "-w", "stop"}
			if os.Getuid() == 0 {
				args = append([]string{"runuser", "-u", "postgres", "--"}, args...)
			}
			_ = exec.Command(args[0], args[1:]...).Run() // one is down already
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := primary.connect(ctx, "postgres")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "CREATE DATABASE sbtest").ReadAll(); err != nil {
		t.Fatal(err)
	}
	c.Close(ctx)
	pgTool(t, bin, "pg_basebackup", "-h", "127.0.0.1", "-p", primary.port, "-U", "sbtest", "-D", standby.data,
		"-R", "-X", "stream", "--checkpoint=fast", "--no-sync")
	// The standby's own port (a later line wins over the copied one).
	appendFile(t, filepath.Join(standby.data, "postgresql.conf"), fmt.Sprintf("\nport = %s\n", standby.port))
	if os.Getuid() == 0 {
		if out, err := exec.Command("chown", "-R", "postgres:", standby.data).CombinedOutput(); err != nil {
			t.Fatalf("chown: %v\n%s", err, out)
		}
	}
	standby.start(t)
	return primary, standby
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// pollUntil calls cond every few milliseconds until it holds, and returns
// when it first did; it fails the test after d.
func pollUntil(t *testing.T, d time.Duration, what string, cond func() bool) time.Time {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return time.Now()
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, d)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// hostLine is one line of the Hosts block.
type hostLine struct {
	from, to float64
	events   int
}

var hostLineRE = regexp.MustCompile(`(?m)^    (\S+):\s+([0-9.]+)s -\s+([0-9.]+)s\s+events: (\d+)$`)

// hostsBlock reads the Hosts block of a run's output, by endpoint.
func hostsBlock(t *testing.T, out string) map[string]hostLine {
	t.Helper()
	i := strings.Index(out, "\nHosts:\n")
	if i < 0 {
		t.Fatalf("no Hosts block:\n%s", out)
	}
	block := out[i+len("\nHosts:\n"):]
	if j := strings.Index(block, "\n\n"); j >= 0 {
		block = block[:j+1]
	}
	hosts := map[string]hostLine{}
	for _, m := range hostLineRE.FindAllStringSubmatch(block, -1) {
		from, _ := strconv.ParseFloat(m[2], 64)
		to, _ := strconv.ParseFloat(m[3], 64)
		n, _ := strconv.Atoi(m[4])
		hosts[m[1]] = hostLine{from: from, to: to, events: n}
	}
	return hosts
}

var (
	outagesRE    = regexp.MustCompile(`(?m)^    outages:\s+(\d+) `)
	outageLineRE = regexp.MustCompile(`(?m)^    #1\s+([0-9.]+)s\s+([0-9.]+s|end)\s+([0-9.]+)s\s.*$`)
)

// oneOutage checks that the run reported exactly one outage and returns
// its line and its length.
func oneOutage(t *testing.T, out string) (string, time.Duration) {
	t.Helper()
	m := outagesRE.FindStringSubmatch(out)
	if m == nil || m[1] != "1" {
		t.Fatalf("want one outage in the Availability block:\n%s", out)
	}
	l := outageLineRE.FindStringSubmatch(out)
	if l == nil {
		t.Fatalf("no outage line:\n%s", out)
	}
	sec, _ := strconv.ParseFloat(l[3], 64)
	return l[0], time.Duration(sec * float64(time.Second))
}

// checkOutage compares the reported outage with the one observed.
//
// What the test sees from outside bounds the outage: it began between the
// call that stopped the server and that call's return (a loaded machine
// takes a while to kill a server), and ended between the call that let
// the service back (promote, start) and the first new row the test saw.
// The reported length must lie within those bounds, give or take the
// tolerance.
func checkOutage(t *testing.T, out string, stopCalled, stopReturned, backCalled, backSeen time.Time) string {
	t.Helper()
	line, got := oneOutage(t, out)
	lo, hi := backCalled.Sub(stopReturned), backSeen.Sub(stopCalled)
	if got < lo-failoverTolerance || got > hi+failoverTolerance {
		t.Errorf("outage of %v reported, %v to %v observed from outside (tolerance %v): %s", got, lo, hi, failoverTolerance, line)
	}
	t.Logf("outage: %v reported, %v to %v observed", got, lo, hi)
	return line
}

// endsOnTime checks the run's exit and that it ended on time: its total
// time is --time, give or take the grace for events still running.
func endsOnTime(t *testing.T, out string, code int, took time.Duration) {
	t.Helper()
	cleanRun(t, out, code)
	m := regexp.MustCompile(`total time:\s+([0-9.]+)s`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no total time:\n%s", out)
	}
	total, _ := strconv.ParseFloat(m[1], 64)
	if total < failoverTime || total > failoverTime+1 {
		t.Errorf("total time %.3fs, want %ds (and at most 1 s more)", total, failoverTime)
	}
	if took > (failoverTime+5)*time.Second {
		t.Errorf("the run took %v for --time=%d", took, failoverTime)
	}
}

// TestFailoverPostgreSQL: a write workload against a primary and its
// standby (--pgsql-target-session-attrs=read-write), the primary stopped
// (immediate) and the standby promoted mid-run. The workers reconnect to
// the promoted standby, which writes the rest of the run.
func TestFailoverPostgreSQL(t *testing.T) {
	bin := pgBinDir()
	if bin == "" {
		testenv.Unavailable(t, "PostgreSQL server programs (initdb, pg_ctl, pg_basebackup) are missing: no primary and standby to fail over")
	}
	t.Parallel()
	primary, standby := newPrimaryAndStandby(t, bin)
	const threads = 2
	args := []string{"oltp_insert", "--db-driver=pgsql", "--pgsql-host=127.0.0.1",
		"--pgsql-port=" + primary.port + "," + standby.port, "--pgsql-user=sbtest", "--pgsql-db=sbtest",
		"--pgsql-sslmode=disable", "--pgsql-target-session-attrs=read-write", "--tables=1", "--table-size=100"}
	if out, code := runCLI(t, append(args, "prepare")...); code != 0 {
		t.Fatalf("prepare: exit %d\n%s", code, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// The standby has the table before the run starts.
	pollUntil(t, 20*time.Second, "the standby replays the prepare", func() bool { return standby.count(ctx) >= 100 })

	begin := time.Now()
	r := startCLI(append(args, "--threads="+strconv.Itoa(threads), "--time="+strconv.Itoa(failoverTime),
		"--pgsql-ignore-errors=all", "run")...)
	defer func() {
		if t.Failed() {
			t.Logf("the run's output:\n%s", r.out.String())
		}
	}()
	r.started(t)
	pollUntil(t, 20*time.Second, "the run writes on the primary", func() bool { return primary.count(ctx) > 100 })

	stopped := time.Now()
	primary.ctl(t, "-m", "immediate", "-w", "stop")
	stopReturned := time.Now()
	time.Sleep(downFor - time.Since(stopped)) // the outage the run is to report
	before := standby.count(ctx)
	promoting := time.Now()
	standby.ctl(t, "-w", "-t", "60", "promote")
	back := pollUntil(t, 20*time.Second, "the run writes on the promoted standby", func() bool { return standby.count(ctx) > before })

	out, code := r.wait(t, 30*time.Second)
	endsOnTime(t, out, code, time.Since(begin))
	if n := counter(t, out, "reconnects"); n < threads {
		t.Errorf("reconnects: %d, want at least %d (each worker lost its connection)", n, threads)
	}
	hosts := hostsBlock(t, out)
	old, promoted := hosts["127.0.0.1:"+primary.port], hosts["127.0.0.1:"+standby.port]
	if len(hosts) != 2 || old.events == 0 || promoted.events == 0 {
		t.Fatalf("Hosts block: %v, want the primary's and the standby's port, each with events\n%s", hosts, out)
	}
	if promoted.from <= old.from || promoted.to < failoverTime-0.5 {
		t.Errorf("the promoted standby served %.2f-%.2fs, the primary %.2f-%.2fs: want the standby the later window, to the end",
			promoted.from, promoted.to, old.from, old.to)
	}
	if after := standby.count(ctx); after-before < promoted.events/2 {
		t.Errorf("%d rows written on the promoted standby for %d events there", after-before, promoted.events)
	}
	line := checkOutage(t, out, stopped, stopReturned, promoting, back)
	if want := "hosts: 127.0.0.1:" + primary.port + " -> 127.0.0.1:" + standby.port; !strings.Contains(line, want) {
		t.Errorf("outage line %q does not say %q", line, want)
	}
}

// mariadbPrograms are the server and its installer, "" when missing.
func mariadbPrograms() (server, install string) {
	find := func(names ...string) string {
		for _, n := range names {
			if p, err := exec.LookPath(n); err == nil {
				return p
			}
			if _, err := os.Stat("/usr/sbin/" + n); err == nil {
				return "/usr/sbin/" + n
			}
		}
		return ""
	}
	return find("mariadbd", "mysqld"), find("mariadb-install-db", "mysql_install_db")
}

// myServer is a private MariaDB server that the test stops and starts.
type myServer struct {
	server, cnf, port string
	proc              *exec.Cmd
	exited            chan struct{}
	lastErr           error // count's, for a test that fails waiting on it
}

func (s *myServer) args() []string {
	a := []string{"--defaults-file=" + s.cnf}
	if os.Getuid() == 0 {
		a = append(a, "--user=root")
	}
	return a
}

func (s *myServer) start(t *testing.T) {
	t.Helper()
	s.proc = exec.Command(s.server, s.args()...)
	s.proc.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.proc.Start(); err != nil {
		t.Fatal(err)
	}
	s.exited = make(chan struct{})
	go func(c *exec.Cmd, done chan struct{}) { _ = c.Wait(); close(done) }(s.proc, s.exited)
}

// stop shuts the server down (SIGTERM) and waits for it to exit.
func (s *myServer) stop(t *testing.T) {
	t.Helper()
	_ = s.proc.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(60 * time.Second):
		_ = s.proc.Process.Kill()
		t.Fatal("MariaDB did not stop within 60 s")
	}
}

func (s *myServer) db(name string) *sql.DB {
	mc := gomysql.NewConfig()
	mc.User, mc.Net, mc.Addr, mc.DBName = "root", "tcp", "127.0.0.1:"+s.port, name
	mc.Timeout = 2 * time.Second
	mc.Logger = &gomysql.NopLogger{}
	conn, _ := gomysql.NewConnector(mc)
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(0) // a restart breaks any kept connection
	return db
}

// count is the number of rows of sbtest1, -1 when it cannot be read.
func (s *myServer) count(ctx context.Context) int {
	db := s.db("sbtest")
	defer db.Close()
	n := -1
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sbtest1").Scan(&n); err != nil {
		s.lastErr = err
		return -1
	}
	return n
}

// newMariaDB installs and starts a MariaDB server of the test's own on a
// free port, without grant tables (any user is let in), with a database
// sbtest.
func newMariaDB(t *testing.T, server, install string) *myServer {
	t.Helper()
	dir := privateDir(t, "sbgo-failover-my-")
	s := &myServer{server: server, cnf: filepath.Join(dir, "my.cnf"), port: freePort(t)}
	cnf := fmt.Sprintf(`[mysqld]
datadir=%[1]s/data
tmpdir=%[1]s
socket=%[1]s/mysqld.sock
pid-file=%[1]s/mysqld.pid
log-error=%[1]s/error.log
port=%[2]s
bind-address=127.0.0.1
skip-name-resolve
skip-log-bin
skip-grant-tables
performance_schema=OFF
innodb_buffer_pool_size=32M
innodb_log_file_size=16M
innodb_flush_log_at_trx_commit=2
`, dir, s.port)
	if err := os.WriteFile(s.cnf, []byte(cnf), 0o644); err != nil {
		t.Fatal(err)
	}
	inst := append([]string{"--defaults-file=" + s.cnf, "--auth-root-authentication-method=normal", "--skip-test-db"},
		s.args()[1:]...)
	if out, err := exec.Command(install, inst...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", install, err, out)
	}
	s.start(t)
	t.Cleanup(func() {
		select {
		case <-s.exited:
		default:
			_ = s.proc.Process.Kill()
			<-s.exited
		}
	})
	db := s.db("")
	defer db.Close()
	pollUntil(t, 60*time.Second, "MariaDB starts", func() bool { return db.Ping() == nil })
	if _, err := db.Exec("CREATE DATABASE sbtest"); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestFailoverMariaDBRestart: a write workload against a MariaDB server
// that is stopped and started again mid-run; the workers reconnect to it.
func TestFailoverMariaDBRestart(t *testing.T) {
	server, install := mariadbPrograms()
	if server == "" || install == "" {
		testenv.Unavailable(t, "MariaDB server programs (mariadbd, mariadb-install-db) are missing: no server to restart")
	}
	t.Parallel()
	s := newMariaDB(t, server, install)
	const threads = 2
	args := []string{"oltp_insert", "--db-driver=mysql", "--mysql-host=127.0.0.1", "--mysql-port=" + s.port,
		"--mysql-user=root", "--mysql-db=sbtest", "--tables=1", "--table-size=100"}
	if out, code := runCLI(t, append(args, "prepare")...); code != 0 {
		t.Fatalf("prepare: exit %d\n%s", code, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	begin := time.Now()
	r := startCLI(append(args, "--threads="+strconv.Itoa(threads), "--time="+strconv.Itoa(failoverTime),
		"--mysql-ignore-errors=all", "run")...)
	defer func() {
		if t.Failed() {
			t.Logf("the side connection's last error: %v; the run's output:\n%s", s.lastErr, r.out.String())
		}
	}()
	r.started(t)
	pollUntil(t, 20*time.Second, "the run writes", func() bool { return s.count(ctx) > 100 })

	stopped := time.Now()
	s.stop(t)
	stopReturned := time.Now()
	time.Sleep(downFor - time.Since(stopped)) // the outage the run is to report
	starting := time.Now()
	s.start(t)
	before := -1
	pollUntil(t, 30*time.Second, "MariaDB starts again", func() bool { before = s.count(ctx); return before >= 0 })
	// The first row after the restart may have come before the test's
	// first count: then the restart's end is the best the test saw.
	back := pollUntil(t, 20*time.Second, "the run writes after the restart", func() bool { return s.count(ctx) > before })

	out, code := r.wait(t, 30*time.Second)
	endsOnTime(t, out, code, time.Since(begin))
	if n := counter(t, out, "reconnects"); n < threads {
		t.Errorf("reconnects: %d, want at least %d (each worker lost its connection)", n, threads)
	}
	if strings.Contains(out, "\nHosts:\n") {
		t.Errorf("a Hosts block for one server:\n%s", out)
	}
	line := checkOutage(t, out, stopped, stopReturned, starting, back)
	if want := "host: 127.0.0.1:" + s.port; !strings.Contains(line, want) {
		t.Errorf("outage line %q does not say %q", line, want)
	}

	// A read-only server (a replica) is no host for --mysql-target=read-write.
	db := s.db("")
	defer db.Close()
	if _, err := db.Exec("SET GLOBAL read_only = 1"); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"any", "read-write"} {
		v := testenv.Values(mysqldrv.Factory.Options, "mysql-host", "127.0.0.1", "mysql-port", s.port,
			"mysql-user", "root", "mysql-db", "sbtest", "mysql-target", target)
		d, log := testenv.OpenDriver(t, mysqldrv.Open, drivers.Config{Values: v})
		c, err := d.Connect(ctx)
		switch {
		case target == "any" && err != nil:
			t.Errorf("--mysql-target=any refused a read-only server: %v", err)
		case target == "read-write" && err == nil:
			t.Error("--mysql-target=read-write accepted a read-only server")
		case target == "read-write" && !strings.Contains(log.String(), "read-only"):
			t.Errorf("the refusal does not say the server is read-only: %s", log.String())
		}
		if c != nil {
			c.Close()
		}
	}
}
