package cli

import (
	"bufio"
	"context"
	"database/sql"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sysbench-go/sysbench-go/internal/testenv"
	"github.com/sysbench-go/sysbench-go/report"
)

// adminExec runs a statement as the server's administrator (MariaDB's
// root over its socket, PostgreSQL's postgres over its socket
// directory), as the test servers of scripts/testdb.sh allow; the test
// skips when it cannot (fails under CI=true).
func adminExec(t *testing.T, srv testenv.Server, q string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if srv.Socket == "" {
		testenv.Unavailable(t, "no socket for the server's administrator (SBTEST_"+strings.ToUpper(srv.Kind)+"_SOCKET)")
	}
	switch srv.Kind {
	case "mysql":
		mc := gomysql.NewConfig()
		mc.User, mc.Net, mc.Addr = "root", "unix", srv.Socket
		c, err := gomysql.NewConnector(mc)
		if err != nil {
			t.Fatal(err)
		}
		db := sql.OpenDB(c)
		defer db.Close()
		if _, err := db.ExecContext(ctx, q); err != nil {
			testenv.Unavailable(t, "as root: "+q+": "+err.Error())
		}
	case "pgsql":
		c, err := pgconn.Connect(ctx, "host="+srv.Socket+" port="+srv.Port+" user=postgres dbname=postgres")
		if err != nil {
			testenv.Unavailable(t, "as postgres: "+err.Error())
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, q).ReadAll(); err != nil {
			t.Fatalf("as postgres: %s: %v", q, err)
		}
	}
}

func setting(s *report.ServerStats, name string) string {
	for _, st := range s.Settings {
		if st.Name == name {
			return st.Value
		}
	}
	return ""
}

// --server-stats on MariaDB and PostgreSQL: the settings are the
// server's (one changed for the test shows), WAL/redo bytes per
// transaction are well above zero for oltp_write_only and near zero for
// oltp_read_only, the test server's CPU and memory are read, and the
// run's sessions are sampled; the intervals carry the server's side.
//
// On a quiet server, held for the test alone (testenv.QuietServer): the
// setting it changes is the server's, and the WAL and redo bytes are the
// server's whole, which any other test's writes would add to (a read-only
// run measured 482 bytes a transaction beside the suite's other packages).
func TestServerStats(t *testing.T) {
	t.Parallel()
	for _, db := range []string{"mysql", "pgsql"} {
		t.Run(db, func(t *testing.T) {
			t.Parallel()
			srv := testenv.QuietServer(t, db)
			name, value, set, reset := "sync_binlog", "7", "SET GLOBAL sync_binlog = 7", "SET GLOBAL sync_binlog = 0"
			if db == "pgsql" {
				name, value = "checkpoint_timeout", "17min"
				set = "ALTER SYSTEM SET checkpoint_timeout = '17min'"
				reset = "ALTER SYSTEM RESET checkpoint_timeout"
			}
			adminExec(t, srv, set)
			if db == "pgsql" {
				adminExec(t, srv, "SELECT pg_reload_conf()")
			}
			t.Cleanup(func() {
				adminExec(t, srv, reset)
				if db == "pgsql" {
					adminExec(t, srv, "SELECT pg_reload_conf()")
				}
			})
			dir := t.TempDir()
			common := preparedOLTPWith(t, srv.OwnDatabase(t).Args())
			perTrx := map[string]float64{}
			for _, wl := range []string{"oltp_write_only", "oltp_read_only"} {
				path, csvPath := filepath.Join(dir, wl+".json"), filepath.Join(dir, wl+".csv")
				args := append([]string{wl}, common[1:]...)
				// Paced: bytes per transaction do not depend on the rate,
				// and a run at full speed took the two cores for its time.
				out, code := runCLI(t, append(args, "--time=3", "--rate=200", "--report-interval=1", "--server-stats",
					"--results="+path, "--intervals-csv="+csvPath, "run")...)
				if code != 0 {
					t.Fatalf("%s: exit %d\n%s", wl, code, out)
				}
				res := readResults(t, path)
				s := res.Server
				if s == nil {
					t.Fatalf("%s: no server statistics\n%s", wl, out)
				}
				if got := setting(s, name); got != value {
					t.Errorf("%s: %s = %q, want %q (set for the test)", wl, name, got, value)
				}
				if s.Transactions != res.Total.Counters.Events || s.Seconds <= 0 {
					t.Errorf("%s: %d transactions over %v s, the run %d", wl, s.Transactions, s.Seconds, res.Total.Counters.Events)
				}
				perTrx[wl] = s.PerTransaction["wal_bytes"]
				if s.CPU == nil || s.CPU.Samples == 0 || s.CPU.PeakBytes == 0 || s.CPU.AvgPct <= 0 {
					t.Errorf("%s: server CPU %+v, want the local test server's", wl, s.CPU)
				}
				if s.WaitSamples == 0 || len(s.Waits) == 0 {
					t.Errorf("%s: no session sampled", wl)
				}
				if !strings.Contains(out, "Server statistics (") || !strings.Contains(out, "bytes written per transaction") {
					t.Errorf("%s: no server block:\n%s", wl, out)
				}
				checkServerColumn(t, out)
				var walRates int
				for _, iv := range res.Intervals {
					if iv.Server != nil && iv.Server.WALBytesPerSec != nil {
						walRates++
					}
				}
				if walRates == 0 {
					t.Errorf("%s: no interval carries the WAL rate: %+v", wl, res.Intervals)
				}
			}
			if perTrx["oltp_write_only"] < 200 || perTrx["oltp_read_only"] > perTrx["oltp_write_only"]/10 {
				t.Errorf("WAL/redo bytes per transaction: write_only %.1f, read_only %.1f", perTrx["oltp_write_only"], perTrx["oltp_read_only"])
			}
		})
	}
}

// Where there is no server to watch, --server-stats says so in one line
// and the run goes on.
func TestServerStatsUnavailable(t *testing.T) {
	t.Parallel()
	out, code := runCLI(t, "oltp_point_select", "--mysql-dry-run", "--rate=200", "--time=1", "--server-stats", "run")
	if code != 0 || !strings.Contains(out, "WARNING: --server-stats: no server to watch in a dry run") || !strings.Contains(out, "transactions:") {
		t.Errorf("dry run: exit %d\n%s", code, out)
	}
	dir := t.TempDir()
	args := []string{"oltp_point_select", "--db-driver=sqlite", "--sqlite-db=" + filepath.Join(dir, "sb.db"), "--table-size=10"}
	if out, code := runCLI(t, append(args, "prepare")...); code != 0 {
		t.Fatalf("prepare: %d\n%s", code, out)
	}
	out, code = runCLI(t, append(args, "--rate=200", "--time=1", "--server-stats", "run")...)
	if code != 0 || !strings.Contains(out, "WARNING: --server-stats: the sqlite driver has no server to watch") {
		t.Errorf("sqlite: exit %d\n%s", code, out)
	}
}

// Issue 28, item 4: what --server-stats reports is the run's where the
// server can tell, and says so where it cannot. With a writer running
// beside a read-only run: the sessions sampled are the run's alone, the
// run's own work is counted by the client as the server counts it, the
// rest is other clients', and the figures it is in are marked; PostgreSQL
// before 16 has no pg_stat_io, which is said once as a fact of the server.
func TestServerStatsAttribution(t *testing.T) {
	// On a quiet server, held for the test alone (testenv.QuietServer):
	// the server's counters it attributes are its whole, which the other
	// tests' databases, created and dropped meanwhile, move (PostgreSQL's
	// sum over its databases falls when one goes). The writer beside the
	// run is the only other client there.
	t.Parallel()
	for _, db := range []string{"mysql", "pgsql"} {
		t.Run(db, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			common := preparedOLTPWith(t, testenv.QuietServer(t, db).OwnDatabase(t).Args())

			writer := exec.Command(testenv.Binary(t), append([]string{"oltp_write_only"}, append(common[1:], "--threads=1", "--rate=100", "--time=120", "--report-interval=1", "run")...)...)
			stdout, err := writer.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := writer.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { writer.Process.Kill(); writer.Wait() })
			running := make(chan bool, 1)
			go func() {
				sc := bufio.NewScanner(stdout)
				for sc.Scan() {
					if strings.HasPrefix(sc.Text(), "[ 1s ]") {
						running <- true
					}
				}
				close(running)
			}()
			if !<-running {
				t.Fatal("the writer did not start")
			}

			path := filepath.Join(dir, "ro.json")
			out, code := runCLI(t, append([]string{"oltp_read_only"}, append(common[1:], "--time=2", "--server-stats", "--results="+path, "run")...)...)
			writer.Process.Signal(os.Interrupt)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, out)
			}
			res := readResults(t, path)
			s := res.Server
			// Sampled: the run's 2 sessions, not the writer's. (A sample
			// taken before a session connected or after it left sees
			// fewer, and on a busy machine connecting takes much of a
			// 2 s run: an unloaded suite's averaged 0.80. The average is
			// at most 2, and above it only if the writer's count.)
			if got := s.Gauges[report.RunSessions]; got <= 0 || got > 2 {
				t.Errorf("%.2f sessions sampled on average, want some and at most the run's 2", got)
			}
			c := res.Total.Counters
			if len(s.Attribution) == 0 {
				t.Fatalf("no attribution: %+v", s)
			}
			for _, a := range s.Attribution {
				// The run's own count, by the client, is its statements
				// (MySQL's Questions) or its transactions (PostgreSQL's).
				want := float64(c.Reads + c.Writes + c.Other + c.Errors)
				if db == "pgsql" {
					want = float64(c.Events)
				}
				if math.Abs(a.Run-want) > 40 {
					t.Errorf("%s %s: the run's count %.0f, its report %.0f", a.Scope, a.What, a.Run, want)
				}
				// The writer is the only other client of the quiet
				// server: what it did is others', however little a
				// loaded machine let it do (12 of its transactions a
				// second were seen beside a suite with a load of 17).
				if !a.OthersActive || a.Others < 10 || a.Server != a.Run+a.Sampler+a.Others {
					t.Errorf("%s %s: %+v, want the writer's work as others'", a.Scope, a.What, a)
				}
			}
			for _, want := range []string{"other clients worked during the run: the figures marked * include their work", "WAL/redo log *:"} {
				if !strings.Contains(out, want) {
					t.Errorf("the block lacks %q:\n%s", want, out)
				}
			}
			if db == "pgsql" {
				major, _ := strconv.Atoi(strings.Split(setting(s, "server_version"), ".")[0])
				old := major < 16
				if n := strings.Count(out, "pg_stat_io"); old && (n != 1 || !strings.Contains(out, "    not on this server: pg_stat_io (PostgreSQL 16 and later)\n") || len(s.Absent) != 1) {
					t.Errorf("pg_stat_io named %d times (absent %q):\n%s", n, s.Absent, out)
				}
				if strings.Contains(out, "WARNING") {
					t.Errorf("a warning for a fact of the server:\n%s", out)
				}
			}
		})
	}
}

// checkServerColumn checks that the values of the printed server block
// stand in one column, a space after the longest name (issue 37 item 11).
func checkServerColumn(t *testing.T, out string) {
	t.Helper()
	i := strings.Index(out, "Server statistics (")
	if i < 0 {
		return
	}
	block, _, _ := strings.Cut(out[i:], "\n\n")
	column := -1
	for _, l := range strings.Split(block, "\n")[1:] {
		name, _, ok := strings.Cut(strings.TrimLeft(l, " "), ": ")
		if !ok || strings.HasSuffix(l, ":") || strings.Contains(l, "other client") || strings.Contains(name, "%") ||
			strings.HasPrefix(l, "    not ") {
			continue // a heading, a sentence, a wait event's share, a note
		}
		c := strings.Index(l, ":") + 1
		at := c + len(l[c:]) - len(strings.TrimLeft(l[c:], " "))
		if column < 0 {
			column = at
		}
		if at != column || l[at-1] != ' ' {
			t.Errorf("server block: value at column %d, the others at %d: %q\n%s", at, column, l, block)
		}
	}
}
