package cli

// Failover tests (issue 41): a run against servers of the test's own that
// go away mid-run. A PostgreSQL primary is stopped and its streaming
// standby promoted; a MariaDB server is stopped and started again. The
// run must follow the service to where it is back (the host list's next
// host, or the same one), end on time, count what failed, say which host
// served which window, and report one outage that the test's own
// observations bound (outageBounds): the server goes while every worker
// waits on a table lock the test holds, so that the outage begins between
// the last row the test saw before the lock and the moment it saw the
// workers wait, and ends between the moment the test let the service
// back and the moment it saw more new rows there than there are workers.
//
// The servers are private (their own data directories and free loopback
// ports), so the tests run in parallel with the others. The runs are
// paced (--rate): a loaded machine takes long to stop, start and promote
// servers, and a --time long enough for that costs little CPU.

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
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

	"github.com/sysbench-go/sysbench-go/drivers"
	mysqldrv "github.com/sysbench-go/sysbench-go/drivers/mysql"
	"github.com/sysbench-go/sysbench-go/internal/testenv"
	"github.com/sysbench-go/sysbench-go/report"
)

// downFor is how long the test keeps the service down, from the moment
// the workers waited, before bringing it back: longer than the run's
// outage threshold (1 s), so that the run reports one.
const downFor = 1500 * time.Millisecond

// failoverTime is the runs' --time, and failoverRate their --rate.
const failoverTime, failoverRate = 15 * time.Second, 100

// failoverRun is the options that run a failover test's workload.
func failoverRun(threads int, results string) []string {
	return []string{"--threads=" + strconv.Itoa(threads), "--rate=" + strconv.Itoa(failoverRate),
		"--time=" + strconv.Itoa(int(failoverTime.Seconds())), "--results=" + results}
}

// restartPort returns a TCP port on 127.0.0.1 that nothing listens on
// now, below the kernel's ephemeral range, for a server that the test
// stops and starts again: while it is down, a port of the ephemeral range
// may be taken by another test's listener (freePort) or be the local end
// of any outgoing connection, and the server could not listen on it
// again.
func restartPort(t *testing.T) string {
	t.Helper()
	lo := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil {
				lo = n
			}
		}
	}
	for range 100 {
		port := strconv.Itoa(10000 + rand.IntN(max(lo-10000, 1)))
		if l, err := net.Listen("tcp", "127.0.0.1:"+port); err == nil {
			l.Close()
			return port
		}
	}
	t.Fatal("no free port below the ephemeral range")
	return ""
}

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
	s.ctl(t, "-l", s.data+".log", "-w", "-t", "600", "start")
}

// connect opens a side connection to the server's sbtest (or db)
// database.
func (s pgServer) connect(ctx context.Context, db string) (*pgconn.PgConn, error) {
	return pgconn.Connect(ctx, fmt.Sprintf("host=127.0.0.1 port=%s user=sbtest dbname=%s sslmode=disable connect_timeout=5", s.port, db))
}

// count is the number of rows of sbtest1 on the server (those that
// match the condition where, if any), -1 when it cannot be read.
func (s pgServer) count(ctx context.Context, where ...string) int {
	c, err := s.connect(ctx, "sbtest")
	if err != nil {
		return -1
	}
	defer c.Close(context.Background())
	q := "SELECT count(*) FROM sbtest1"
	if len(where) > 0 {
		q += " WHERE " + where[0]
	}
	res, err := c.Exec(ctx, q).ReadAll()
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

// outageLine is the line of the report's k-th outage (from 1).
func outageLine(t *testing.T, out string, k int) string {
	t.Helper()
	l := regexp.MustCompile(`(?m)^    #` + strconv.Itoa(k) + `\s+[0-9.]+s\s+([0-9.]+s|end)\s+[0-9.]+s\s.*$`).FindString(out)
	if l == "" {
		t.Fatalf("no line for outage #%d:\n%s", k, out)
	}
	return l
}

// indexOf is the place of o among outages, from 1.
func indexOf(outages []report.Outage, o report.Outage) int {
	for i := range outages {
		if outages[i].Start == o.Start {
			return i + 1
		}
	}
	return 0
}

// TestFailoverPostgreSQL: a write workload against a primary and its
// standby (--pgsql-target-session-attrs=read-write), the primary stopped
// (immediate) while its workers wait on a table lock, and the standby
// promoted. The workers reconnect to the promoted standby, which writes
// the rest of the run.
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
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	side, err := primary.connect(ctx, "postgres") // for pg_stat_activity
	if err != nil {
		t.Fatal(err)
	}
	defer side.Close(context.Background())
	lc, err := primary.connect(ctx, "sbtest")
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Close(context.Background())
	lock := pgLock(lc)
	// Who inserted each row, and on which server (its port).
	for _, q := range []string{addWho["pgsql"], "ALTER TABLE sbtest1 ADD COLUMN srv int DEFAULT inet_server_port()"} {
		if err := lock.exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	// The standby has the table before the run starts.
	pollUntil(t, 2*time.Minute, "the standby replays the prepare", func() bool { return standby.count(ctx) >= 100 })

	results := filepath.Join(t.TempDir(), "r.json")
	r := startCLI(append(args, append(failoverRun(threads, results), "--pgsql-ignore-errors=all", "run")...)...)
	defer func() {
		if t.Failed() {
			t.Logf("the run's output:\n%s", r.out.String())
		}
	}()
	sessions := func() ([]string, int, error) {
		return lockSessions(ctx, "pgsql", "sbtest", func(ctx context.Context, q string) ([]string, error) {
			return pgColumn(side.Exec(ctx, q).ReadAll())
		})
	}
	b, _, _ := lockOut(t, ctx, r, lock, threads, sessions)
	// The primary goes, its workers waiting on the lock.
	primary.ctl(t, "-m", "immediate", "-w", "-t", "600", "stop")
	time.Sleep(time.Until(b.startBy.Add(downFor))) // the outage the run is to report
	b.endFrom = time.Now()
	standby.ctl(t, "-w", "-t", "600", "promote")
	onStandby := "srv = " + standby.port
	r.until(t, "the run wrote more rows on the promoted standby than it has workers", func() bool {
		if standby.count(ctx, onStandby) > threads {
			b.endBy = time.Now()
		}
		return !b.endBy.IsZero()
	})

	out, code := r.wait(t, failoverTime+2*cutoffGrace(failoverTime)+time.Minute)
	cleanRun(t, out, code)
	res := readResults(t, results)
	ranItsTime(t, res, out, failoverTime)
	if n := counter(t, out, "reconnects"); n < threads {
		t.Errorf("reconnects: %d, want at least %d (each worker lost its connection)", n, threads)
	}
	hosts := hostsBlock(t, out)
	old, promoted := hosts["127.0.0.1:"+primary.port], hosts["127.0.0.1:"+standby.port]
	if len(hosts) != 2 || old.events == 0 || promoted.events == 0 {
		t.Fatalf("Hosts block: %v, want the primary's and the standby's port, each with events\n%s", hosts, out)
	}
	if promoted.from <= old.from || promoted.to < res.Total.Duration-0.5 {
		t.Errorf("the promoted standby served %.2f-%.2fs, the primary %.2f-%.2fs: want the standby the later window, to the end",
			promoted.from, promoted.to, old.from, old.to)
	}
	// Each event completed there committed its row there.
	if rows := standby.count(ctx, onStandby); rows < promoted.events {
		t.Errorf("%d rows written on the promoted standby for %d events there", rows, promoted.events)
	}
	o := b.check(t, res.Outages, out)
	line := outageLine(t, out, indexOf(res.Outages, o))
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
	case <-time.After(5 * time.Minute):
		_ = s.proc.Process.Kill()
		t.Fatal("MariaDB did not stop within 5 minutes")
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

// query runs q and returns its first column.
func (s *myServer) query(ctx context.Context, q string) ([]string, error) {
	db := s.db("")
	defer db.Close()
	return sqlColumn(db.QueryContext(ctx, q))
}

// errorLog is the end of the server's error log.
func (s *myServer) errorLog() string {
	b, _ := os.ReadFile(filepath.Join(filepath.Dir(s.cnf), "error.log"))
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
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
	s := &myServer{server: server, cnf: filepath.Join(dir, "my.cnf"), port: restartPort(t)}
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
	pollUntil(t, 5*time.Minute, "MariaDB starts", func() bool { return db.Ping() == nil })
	if _, err := db.Exec("CREATE DATABASE sbtest"); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestFailoverMariaDBRestart: a write workload against a MariaDB server
// that is stopped while its workers wait on a table lock, and started
// again; the workers reconnect to it.
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
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	ldb := s.db("sbtest")
	defer ldb.Close()
	lc, err := ldb.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Close()
	lock := myLock(lc)
	if err := lock.exec(ctx, addWho["mysql"]); err != nil {
		t.Fatal(err)
	}

	results := filepath.Join(t.TempDir(), "r.json")
	r := startCLI(append(args, append(failoverRun(threads, results), "--mysql-ignore-errors=all", "run")...)...)
	defer func() {
		if t.Failed() {
			t.Logf("the side connection's last error: %v; the run's output:\n%s", s.lastErr, r.out.String())
		}
	}()
	sessions := func() ([]string, int, error) { return lockSessions(ctx, "mysql", "sbtest", s.query) }
	b, _, _ := lockOut(t, ctx, r, lock, threads, sessions)
	// The server goes, its workers waiting on the lock.
	s.stop(t)
	time.Sleep(time.Until(b.startBy.Add(downFor))) // the outage the run is to report
	b.endFrom = time.Now()
	s.start(t)
	// New rows come from the new sessions only (the old ones went with
	// the server): more than there are workers, and one of them
	// completed an event.
	before := -1
	r.until(t, "MariaDB started again", func() bool {
		select {
		case <-s.exited:
			t.Fatalf("MariaDB exited as it started again:\n%s", s.errorLog())
		default:
		}
		before = s.count(ctx)
		return before >= 0
	})
	r.until(t, "the run wrote more rows after the restart than it has workers", func() bool {
		if s.count(ctx) > before+threads {
			b.endBy = time.Now()
		}
		return !b.endBy.IsZero()
	})

	out, code := r.wait(t, failoverTime+2*cutoffGrace(failoverTime)+time.Minute)
	cleanRun(t, out, code)
	res := readResults(t, results)
	ranItsTime(t, res, out, failoverTime)
	if n := counter(t, out, "reconnects"); n < threads {
		t.Errorf("reconnects: %d, want at least %d (each worker lost its connection)", n, threads)
	}
	if strings.Contains(out, "\nHosts:\n") {
		t.Errorf("a Hosts block for one server:\n%s", out)
	}
	o := b.check(t, res.Outages, out)
	line := outageLine(t, out, indexOf(res.Outages, o))
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
