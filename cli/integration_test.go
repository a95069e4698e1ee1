package cli

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sysbench-go/sysbench-go/internal/testenv"

	_ "modernc.org/sqlite" // database/sql driver "sqlite", to read results back
)

// TestReferenceBundledScripts runs the scripts shipped with sysbench
// 1.0.20 (/usr/share/sysbench) unchanged on both servers: every OLTP
// script on one table that one of them prepared and another drops (their
// prepare and cleanup are the reference's oltp_common, one function for
// all), and bulk_insert, which makes tables of its own, from prepare to
// cleanup.
func TestReferenceBundledScripts(t *testing.T) {
	t.Parallel()
	scripts, _ := filepath.Glob("/usr/share/sysbench/*.lua")
	if len(scripts) == 0 {
		testenv.Unavailable(t, "sysbench is not installed (apt-get install sysbench; .ci/run installs it): no reference scripts to run")
	}
	for _, db := range []string{"mysql", "pgsql"} {
		t.Run(db, func(t *testing.T) {
			t.Parallel()
			conn := newFaultDB(t, db).args // a database of its own
			command := func(t *testing.T, script string, args ...string) string {
				t.Helper()
				args = append(append([]string{script, "--tables=1", "--table-size=200", "--threads=2"}, conn...), args...)
				out, code := runCLI(t, args...)
				if code != 0 {
					t.Fatalf("%s %s: exit %d\n%s", filepath.Base(script), args[len(args)-1], code, out)
				}
				return out
			}
			run := func(t *testing.T, script string) {
				out := command(t, script, "--events=20", "--time=0", "run")
				if !strings.Contains(out, "SQL statistics:") || !strings.Contains(out, "transactions:") {
					t.Errorf("run printed no SQL report:\n%s", out)
				}
			}
			var oltp []string
			for _, script := range scripts {
				if name := filepath.Base(script); name != "oltp_common.lua" && name != "bulk_insert.lua" {
					oltp = append(oltp, script)
				}
			}
			if len(oltp) < 2 {
				t.Fatalf("OLTP scripts in /usr/share/sysbench: %q", oltp)
			}
			runCLI(t, append([]string{oltp[0], "--tables=1"}, append(conn, "cleanup")...)...)
			command(t, oltp[0], "prepare")
			for _, script := range oltp {
				t.Run(filepath.Base(script), func(t *testing.T) { run(t, script) })
			}
			command(t, oltp[1], "cleanup")
			t.Run("bulk_insert.lua", func(t *testing.T) {
				script := "/usr/share/sysbench/bulk_insert.lua"
				runCLI(t, append([]string{script, "--threads=2"}, append(conn, "cleanup")...)...)
				command(t, script, "prepare")
				run(t, script)
				command(t, script, "cleanup")
			})
		})
	}
}

// TestBadConnections: wrong password, unreachable port, missing database,
// missing tables — each a clear FATAL and exit 1, never a Go panic.
func TestBadConnections(t *testing.T) {
	t.Parallel()
	for _, db := range []string{"mysql", "pgsql"} {
		conn := testenv.OwnDatabase(t, db).Args() // "tables": none there
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
				t.Parallel()
				args := append([]string{"oltp_point_select", "--time=1"}, c.args...)
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
	t.Parallel()
	dbs := map[string][]string{"sqlite": {"--db-driver=sqlite", "--sqlite-db=" + filepath.Join(t.TempDir(), "api.db")}}
	for _, db := range []string{"mysql", "pgsql"} {
		if s, ok := testenv.OptionalServer(t, db); ok {
			dbs[db] = s.OwnDatabase(t).Args()
		}
	}
	for db, conn := range dbs {
		t.Run(db, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"testdata/scripts/sql_api.lua", "--events=20", "--time=0", "--threads=2", "--mysql-ignore-errors=1062"}, conn...)
			out, code := runCLI(t, append(args, "run")...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, out)
			}
			if !strings.Contains(out, "sql api ok") {
				t.Errorf("API checks did not complete:\n%s", out)
			}
			// Each event raises one ignorable error (duplicate key), and
			// thread_init two more in each of the 2 threads (a bulk
			// insert, and a fatal error caught by pcall, which the
			// reference counts as well).
			if !strings.Contains(out, "ignored errors:                      24") {
				t.Errorf("want 24 ignored errors (20 events + a bulk insert and a caught fatal error in each thread_init)\n%s", out)
			}

			// The 0.5-era db_* API.
			out, code = runCLI(t, append([]string{"testdata/scripts/legacy_db.lua", "--events=50", "--time=0", "--threads=2", "run"}, conn...)...)
			if code != 0 || !strings.Contains(out, "legacy db ok 0") || !strings.Contains(out, "legacy db ok 1") {
				t.Errorf("legacy db API: exit %d\n%s", code, out)
			}
			if !strings.Contains(out, "total number of events:              50") {
				t.Errorf("legacy db API: want 50 events\n%s", out)
			}

			// stmt:execute_random draws and executes as the Lua loop does.
			var got [2]string
			for i, mode := range []string{"go", "lua"} {
				out, code := runCLI(t, append([]string{"testdata/scripts/execute_random.lua", "--mode=" + mode, "--rand-seed=7", "--events=4", "--time=0", "run"}, conn...)...)
				if code != 0 || !strings.Contains(out, "rows: ") {
					t.Fatalf("execute_random --mode=%s: exit %d\n%s", mode, code, out)
				}
				got[i] = out[strings.Index(out, "rows: "):]
				got[i] = got[i][:strings.Index(got[i], "\nSQL statistics")]
			}
			if got[0] != got[1] || strings.Count(got[0], "/") != 28 {
				t.Errorf("execute_random and the Lua loop differ (want 28 rows each):\n%s\n---\n%s", got[0], got[1])
			}
			// The list form's rows carry the picked statement's number.
			picks := map[string]int{}
			for _, row := range strings.Fields(strings.SplitN(got[0], "\n", 2)[0]) {
				if _, b, _ := strings.Cut(row, "/"); b == "1" || b == "2" || b == "3" {
					picks[b]++
				}
			}
			if n := picks["1"] + picks["2"] + picks["3"]; n != 8 || len(picks) < 2 {
				t.Errorf("execute_random over a list: want 8 rows from more than one statement, got %v:\n%s", picks, got[0])
			}

			// Several results from one query (SQLite runs one statement a query).
			if db != "sqlite" {
				out, code = runCLI(t, append([]string{"testdata/scripts/multi_result.lua", "--events=1", "--time=0", "run"}, conn...)...)
				if code != 0 || !strings.Contains(out, "multi ok") {
					t.Errorf("more_results/next_result: exit %d\n%s", code, out)
				}

				// Misuse of the API (its output: luaapi's TestSQLMisuse):
				// the reference counts the script's 6 failed queries, and
				// neither its failed prepares nor its calls on a closed
				// connection.
				out, code = runCLI(t, append([]string{"../luaapi/testdata/sql_misuse.lua", "--events=1", "--time=0", "run"}, conn...)...)
				if code != 0 || !strings.Contains(out, "ignored errors:                      6 ") ||
					!strings.Contains(out, "reconnects:                          0 ") {
					t.Errorf("sql_misuse.lua: exit %d, want 6 errors and no reconnect counted\n%s", code, out)
				}
			}
			// con:reconnect() counts once per thread, where the driver
			// reconnects; PostgreSQL's, as the reference's, cannot.
			out, code = runCLI(t, append([]string{"testdata/scripts/sql_api.lua", "--events=2", "--time=0", "--threads=2", "--mysql-ignore-errors=1062", "run"}, conn...)...)
			reconnects, alert := "2", false
			if db == "pgsql" {
				reconnects, alert = "0", true
			}
			if code != 0 || !strings.Contains(out, "reconnects:                          "+reconnects+" ") ||
				strings.Contains(out, "ALERT: reconnect is not supported by the current driver") != alert {
				t.Errorf("reconnect: exit %d, want %s reconnects counted (ALERT %v)\n%s", code, reconnects, alert, out)
			}
		})
	}
}

// TestBundledOLTPWritesAsReference: our OLTP scripts, with their API
// extensions on the hot path (execute_random, lists of statements,
// execute(values...)), leave a database exactly as sysbench 1.0.20's own
// scripts do from the same --rand-seed: the same tables picked, the same
// ids, the same random strings, in the same order. SQLite, so no server.
func TestBundledOLTPWritesAsReference(t *testing.T) {
	// The seeded runs are processes of their own, as TestOLTPPlanSameAsLua's.
	t.Parallel()
	if _, err := os.Stat("/usr/share/sysbench/oltp_common.lua"); err != nil {
		testenv.Unavailable(t, "sysbench is not installed (apt-get install sysbench; .ci/run installs it): no reference scripts to compare with")
	}
	// (Not oltp_insert: the reference's inserts id 0, which only MySQL
	// takes as "next auto-increment value".)
	for _, name := range []string{"oltp_read_write", "oltp_write_only", "oltp_update_index", "oltp_update_non_index", "oltp_delete"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			ours, ref := filepath.Join(dir, "ours.db"), filepath.Join(dir, "ref.db")
			common := []string{"--db-driver=sqlite", "--tables=3", "--table-size=300"}
			if out, code := runOwnProcess(t, append([]string{name, "--sqlite-db=" + ours, "prepare"}, common...)...); code != 0 {
				t.Fatalf("prepare: exit %d\n%s", code, out)
			}
			b, err := os.ReadFile(ours)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(ref, b, 0o644); err != nil {
				t.Fatal(err)
			}
			run := append([]string{"--rand-seed=5", "--events=150", "--time=0", "--threads=1", "run"}, common...)
			for _, c := range [][2]string{{name, ours}, {"/usr/share/sysbench/" + name + ".lua", ref}} {
				if out, code := runOwnProcess(t, append([]string{c[0], "--sqlite-db=" + c[1]}, run...)...); code != 0 {
					t.Fatalf("%s run: exit %d\n%s", c[0], code, out)
				}
			}
			a, r := dumpTables(t, ours, 3), dumpTables(t, ref, 3)
			if a != r {
				t.Errorf("%s: tables differ from the reference script's after the same run", name)
			}
			if strings.Count(a, "\n") < 800 {
				t.Fatalf("dump of %d rows, want ~900", strings.Count(a, "\n"))
			}
		})
	}
}

// dumpTables renders sbtest1..n of a SQLite database.
func dumpTables(t *testing.T, path string, n int) string {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		rows, err := db.Query(fmt.Sprintf("SELECT id, k, c, pad FROM sbtest%d ORDER BY id", i))
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id, k int64
			var c, pad string
			if err := rows.Scan(&id, &k, &c, &pad); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&sb, "%d %d %d %s %s\n", i, id, k, c, pad)
		}
		rows.Close()
	}
	return sb.String()
}

// A statement's parameter is what the reference's is: a table, with its
// type and max_len, printed as "<sql_param>"; its methods called without
// it, or a table that is not one bound, fail in Lua (the lines below are
// sysbench 1.0.20's for the same script). An event plan given a list of
// something else than statements fails in Lua too, not with Go's words.
func TestParamIsATable(t *testing.T) {
	t.Parallel()
	out, code := runCLI(t, "testdata/scripts/param_table.lua", "--mysql-dry-run", "--events=1", "--time=0", "run")
	want := "param\ttable\t<sql_param>\ttrue\t8\ttrue\t10\nwithout self\tfalse\nbind something else\tfalse\n"
	if code != 0 || !strings.Contains(out, want) {
		t.Errorf("exit %d, want the reference's lines %q in:\n%s", code, want, out)
	}
	out, code = runCLI(t, "testdata/scripts/plan_list.lua", "--mysql-dry-run", "--events=1", "--time=0", "run")
	// Called by pcall, the function has no name and no position, as in
	// LuaJIT.
	if code != 0 || !strings.Contains(out, "plan\tfalse\tbad argument #2 to '?' (statement list holds something else than statements)") {
		t.Errorf("exit %d, want plan:execute's Lua error:\n%s", code, out)
	}
	noPanic(t, out)
}
