package main

import (
	"path/filepath"
	"strings"
	"testing"

	"sysbench-go/internal/testenv"
)

// TestReferenceBundledScripts runs the scripts shipped with sysbench
// 1.0.20 (/usr/share/sysbench) unchanged: prepare, run, cleanup on both
// servers.
func TestReferenceBundledScripts(t *testing.T) {
	scripts, _ := filepath.Glob("/usr/share/sysbench/*.lua")
	if len(scripts) == 0 {
		testenv.Unavailable(t, "sysbench is not installed (apt-get install sysbench; .ci/run installs it): no reference scripts to run")
	}
	for _, db := range []string{"mysql", "pgsql"} {
		conn := testenv.RequireServer(t, db).Args()
		for _, script := range scripts {
			name := filepath.Base(script)
			if name == "oltp_common.lua" {
				continue
			}
			t.Run(db+"/"+name, func(t *testing.T) {
				common := append([]string{script, "--tables=1", "--table-size=200", "--threads=2"}, conn...)
				runCLI(t, append(common, "cleanup")...)
				if out, code := runCLI(t, append(common, "prepare")...); code != 0 {
					t.Fatalf("prepare: exit %d\n%s", code, out)
				}
				out, code := runCLI(t, append(common, "--time=1", "run")...)
				if code != 0 {
					t.Fatalf("run: exit %d\n%s", code, out)
				}
				if !strings.Contains(out, "SQL statistics:") || !strings.Contains(out, "transactions:") {
					t.Errorf("run printed no SQL report:\n%s", out)
				}
				if out, code := runCLI(t, append(common, "cleanup")...); code != 0 {
					t.Fatalf("cleanup: exit %d\n%s", code, out)
				}
			})
		}
	}
}

// TestBadConnections: wrong password, unreachable port, missing database,
// missing tables — each a clear FATAL and exit 1, never a Go panic.
func TestBadConnections(t *testing.T) {
	for _, db := range []string{"mysql", "pgsql"} {
		conn := testenv.RequireServer(t, db).Args()
		p := "--" + db + "-"
		with := func(override string) []string {
			out := []string{}
			key := strings.SplitN(override, "=", 2)[0] + "="
			for _, a := range conn {
				if !strings.HasPrefix(a, key) {
					out = append(out, a)
				}
			}
			return append(out, override)
		}
		cases := []struct {
			name string
			args []string
			want string
		}{
			{"password", with(p + "password=wrong"), "connection creation failed"},
			{"port", with(p + "port=1"), "connection creation failed"},
			{"database", with(p + "db=no_such_db"), "connection creation failed"},
			{"tables", append(conn, "--tables=1", "--table-size=10"), "FATAL"},
		}
		for _, c := range cases {
			t.Run(db+"/"+c.name, func(t *testing.T) {
				args := append([]string{"oltp_point_select", "--time=1"}, c.args...)
				if c.name == "tables" {
					runCLI(t, append(args, "cleanup")...)
				}
				out, code := runCLI(t, append(args, "run")...)
				if code != 1 {
					t.Fatalf("exit %d, want 1\n%s", code, out)
				}
				if !strings.Contains(out, c.want) || !strings.Contains(out, "FATAL: ") {
					t.Errorf("output lacks %q:\n%s", c.want, out)
				}
				if strings.Contains(out, "goroutine ") || strings.Contains(out, "panic:") {
					t.Errorf("Go panic in output:\n%s", out)
				}
			})
		}
	}
}

// TestSQLAPI exercises the sysbench.sql API from Lua on every database.
func TestSQLAPI(t *testing.T) {
	dbs := map[string][]string{"sqlite": {"--db-driver=sqlite", "--sqlite-db=" + filepath.Join(t.TempDir(), "api.db")}}
	for _, db := range []string{"mysql", "pgsql"} {
		if s, ok := testenv.OptionalServer(t, db); ok {
			dbs[db] = s.Args()
		}
	}
	for db, conn := range dbs {
		t.Run(db, func(t *testing.T) {
			args := append([]string{"testdata/scripts/sql_api.lua", "--events=20", "--threads=2", "--mysql-ignore-errors=1062"}, conn...)
			out, code := runCLI(t, append(args, "run")...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, out)
			}
			if !strings.Contains(out, "sql api ok") {
				t.Errorf("API checks did not complete:\n%s", out)
			}
			// Each event raises one ignorable error (duplicate key), and
			// thread_init one more in each of the 2 threads (bulk insert).
			if !strings.Contains(out, "ignored errors:                      22") {
				t.Errorf("want 22 ignored errors (20 events + a bulk insert in each thread_init)\n%s", out)
			}

			// The 0.5-era db_* API.
			out, code = runCLI(t, append([]string{"testdata/scripts/legacy_db.lua", "--events=50", "--threads=2", "run"}, conn...)...)
			if code != 0 || !strings.Contains(out, "legacy db ok 0") || !strings.Contains(out, "legacy db ok 1") {
				t.Errorf("legacy db API: exit %d\n%s", code, out)
			}
			if !strings.Contains(out, "total number of events:              50") {
				t.Errorf("legacy db API: want 50 events\n%s", out)
			}

			// stmt:execute_random draws and executes as the Lua loop does.
			var got [2]string
			for i, mode := range []string{"go", "lua"} {
				out, code := runCLI(t, append([]string{"testdata/scripts/execute_random.lua", "--mode=" + mode, "--rand-seed=7", "--events=4", "run"}, conn...)...)
				if code != 0 || !strings.Contains(out, "rows: ") {
					t.Fatalf("execute_random --mode=%s: exit %d\n%s", mode, code, out)
				}
				got[i] = out[strings.Index(out, "rows: "):]
				got[i] = got[i][:strings.Index(got[i], "\nSQL statistics")]
			}
			if got[0] != got[1] || strings.Count(got[0], "/") != 20 {
				t.Errorf("execute_random and the Lua loop differ (want 20 rows each):\n%s\n---\n%s", got[0], got[1])
			}

			// Several results from one query (SQLite runs one statement a query).
			if db != "sqlite" {
				out, code = runCLI(t, append([]string{"testdata/scripts/multi_result.lua", "--events=1", "run"}, conn...)...)
				if code != 0 || !strings.Contains(out, "multi ok") {
					t.Errorf("more_results/next_result: exit %d\n%s", code, out)
				}
			}
		})
	}
}
