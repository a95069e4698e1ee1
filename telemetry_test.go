package main

import (
	"context"
	"database/sql"
	"path/filepath"
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
func TestServerStats(t *testing.T) {
	for _, db := range []string{"mysql", "pgsql"} {
		t.Run(db, func(t *testing.T) {
			srv := testenv.RequireServer(t, db)
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
			common := preparedOLTP(t, db, dir)
			perTrx := map[string]float64{}
			for _, wl := range []string{"oltp_write_only", "oltp_read_only"} {
				path, csvPath := filepath.Join(dir, wl+".json"), filepath.Join(dir, wl+".csv")
				args := append([]string{wl}, common[1:]...)
				out, code := runCLI(t, append(args, "--time=3", "--report-interval=1", "--server-stats",
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
	out, code := runCLI(t, "oltp_point_select", "--mysql-dry-run", "--time=1", "--server-stats", "run")
	if code != 0 || !strings.Contains(out, "WARNING: --server-stats: no server to watch in a dry run") || !strings.Contains(out, "transactions:") {
		t.Errorf("dry run: exit %d\n%s", code, out)
	}
	dir := t.TempDir()
	args := []string{"oltp_point_select", "--db-driver=sqlite", "--sqlite-db=" + filepath.Join(dir, "sb.db"), "--table-size=10"}
	if out, code := runCLI(t, append(args, "prepare")...); code != 0 {
		t.Fatalf("prepare: %d\n%s", code, out)
	}
	out, code = runCLI(t, append(args, "--time=1", "--server-stats", "run")...)
	if code != 0 || !strings.Contains(out, "WARNING: --server-stats: the sqlite driver has no server to watch") {
		t.Errorf("sqlite: exit %d\n%s", code, out)
	}
}
