package cli

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	_ "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	_ "modernc.org/sqlite"

	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

// The bundled workloads end to end: prepare, run and cleanup of every
// shop_*, tpcb_* and OLTP script through the in-process CLI, on MariaDB or
// MySQL and PostgreSQL (from the SBTEST_* environment) and on SQLite (a
// temporary file), with the data checked through database/sql. The three
// databases run in parallel; every run is 1-2 s at a tiny scale.

// workloadDB is one database the workloads run on.
type workloadDB struct {
	driver string   // mysql, pgsql, sqlite
	args   []string // the CLI's driver options
	db     *sql.DB  // the same database, for checks (MySQL, SQLite)
	pg     *pgx.Conn
	srv    testenv.Server // the server and our database on it (MySQL, PostgreSQL)
}

func TestBundledWorkloads(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: skipped with -short")
	}
	// Its databases are its own: it runs beside the other tests. Its runs
	// are bound by --events: what it checks is what the events left in
	// the tables, not how many fit in a second.
	t.Parallel()
	// The databases, and the workloads of each in databases of their own,
	// run side by side. Not with t.Parallel: -parallel may be GOMAXPROCS,
	// which would serialise them on a small machine. A group's steps run in
	// order: cleanup-keeps-foreign's users table stands in shop's way, and
	// pgbench-init makes tpcb's tables.
	groups := []struct {
		name  string
		steps func(w *workloadDB) []step
	}{
		{"shop", func(w *workloadDB) []step {
			return []step{{"cleanup-keeps-foreign", w.testCleanupKeepsForeign}, {"shop", w.testShop}}
		}},
		{"tpcb", func(w *workloadDB) []step {
			steps := []step{{"tpcb", w.testTPCB}}
			if w.driver == "pgsql" {
				steps = append(steps, step{"pgbench-init", w.testPgbenchInit})
			}
			return steps
		}},
		{"oltp", func(w *workloadDB) []step { return []step{{"oltp", w.testOLTP}} }},
	}
	var wg sync.WaitGroup
	for _, driver := range []string{"mysql", "pgsql", "sqlite"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(driver, func(t *testing.T) {
				var inner sync.WaitGroup
				for _, g := range groups {
					inner.Add(1)
					go func() {
						defer inner.Done()
						t.Run(g.name, func(t *testing.T) {
							w := openWorkloadDB(t, driver, g.name)
							for _, s := range g.steps(w) {
								t.Run(s.name, s.test)
							}
						})
					}()
				}
				inner.Wait()
			})
		}()
	}
	wg.Wait()
}

// step is one subtest of a group of TestBundledWorkloads.
type step struct {
	name string
	test func(t *testing.T)
}

func openWorkloadDB(t *testing.T, driver, name string) *workloadDB {
	t.Helper()
	w := &workloadDB{driver: driver}
	switch driver {
	case "mysql":
		// A database of our own, so that the other tests keep theirs.
		s := testenv.OwnDatabase(t, "mysql")
		w.db = testenv.OpenDB(t, "mysql", s.MySQLConfig(s.DB).FormatDSN())
		w.srv, w.args = s, s.Args()
	case "pgsql":
		s := testenv.OwnDatabase(t, "pgsql")
		// pgx natively: its database/sql adapter needs a module go.sum
		// does not list (pgxpool's puddle).
		ctx := context.Background()
		pg, err := pgx.Connect(ctx, s.PgURL(s.DB))
		if err != nil {
			t.Fatalf("connect to %s: %v", s.DB, err)
		}
		t.Cleanup(func() { pg.Close(context.Background()) })
		w.pg = pg
		w.srv, w.args = s, s.Args()
	case "sqlite":
		compiled := false
		for _, f := range compiledDrivers() {
			compiled = compiled || f.Name == "sqlite"
		}
		if !compiled {
			t.Skip("the sqlite driver is not compiled in")
		}
		path := filepath.Join(t.TempDir(), name+".db")
		w.db = testenv.OpenDB(t, "sqlite", path)
		w.args = []string{"--db-driver=sqlite", "--sqlite-db=" + path}
	}
	return w
}

var transactionsRE = regexp.MustCompile(`transactions:\s+(\d+)`)

// cli runs sysbench-go with the database's options appended and fails the
// test on a non-zero exit or a FATAL line. It returns the output.
func (w *workloadDB) cli(t *testing.T, args ...string) string {
	t.Helper()
	full := append(append([]string{}, args...), w.args...)
	out, code := runCLI(t, full...)
	if code != 0 || strings.Contains(out, "FATAL") {
		t.Fatalf("sysbench-go %s (%s): exit %d\n%s", strings.Join(args, " "), w.driver, code, out)
	}
	return out
}

// runEvents runs a script and returns the number of transactions it
// reported, failing when there were none.
func (w *workloadDB) runEvents(t *testing.T, args ...string) int64 {
	t.Helper()
	out := w.cli(t, append(args, "run")...)
	m := transactionsRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("%s: no transactions line in the report:\n%s", strings.Join(args, " "), out)
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	if n == 0 {
		t.Fatalf("%s: no transaction completed:\n%s", strings.Join(args, " "), out)
	}
	return n
}

func (w *workloadDB) int64(t *testing.T, query string) int64 {
	t.Helper()
	v, err := w.queryText(query)
	if err != nil {
		t.Fatalf("%s: %s: %v", w.driver, query, err)
	}
	if !v.Valid {
		return 0
	}
	// SUM() comes back as DECIMAL text on MySQL
	f, err := strconv.ParseFloat(v.String, 64)
	if err != nil {
		t.Fatalf("%s: %s: %q is not a number", w.driver, query, v.String)
	}
	n := int64(math.Round(f))
	return n
}

// queryText returns the first column of the first row as text.
func (w *workloadDB) queryText(query string) (sql.NullString, error) {
	var v sql.NullString
	if w.pg == nil {
		err := w.db.QueryRow(query).Scan(&v)
		return v, err
	}
	var x any
	if err := w.pg.QueryRow(context.Background(), query).Scan(&x); err != nil {
		return v, err
	}
	switch x := x.(type) {
	case nil:
		return v, nil
	case pgtype.Numeric:
		f, err := x.Float64Value()
		if err != nil || !f.Valid {
			return v, err
		}
		x2 := strconv.FormatFloat(f.Float64, 'f', -1, 64)
		return sql.NullString{String: x2, Valid: true}, nil
	default:
		return sql.NullString{String: fmt.Sprint(x), Valid: true}, nil
	}
}

func (w *workloadDB) count(t *testing.T, table string) int64 {
	t.Helper()
	return w.int64(t, "SELECT COUNT(*) FROM "+table)
}

func (w *workloadDB) tableExists(t *testing.T, table string) bool {
	t.Helper()
	var q string
	switch w.driver {
	case "mysql":
		q = "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = '" + table + "'"
	case "pgsql":
		q = "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = '" + table + "'"
	default:
		q = "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = '" + table + "'"
	}
	return w.int64(t, q) > 0
}

func (w *workloadDB) wantCounts(t *testing.T, want map[string]int64) {
	t.Helper()
	for table, n := range want {
		if got := w.count(t, table); got != n {
			t.Errorf("%s: %d rows in %s, want %d", w.driver, got, table, n)
		}
	}
}

func (w *workloadDB) wantDropped(t *testing.T, tables ...string) {
	t.Helper()
	for _, table := range tables {
		if w.tableExists(t, table) {
			t.Errorf("%s: table %s still exists after cleanup", w.driver, table)
		}
	}
}

// checkShop verifies the shop invariants: every order's total is the sum
// of its items (0 without items), and every reference resolves.
func (w *workloadDB) checkShop(t *testing.T, after string) {
	t.Helper()
	checks := []struct{ what, query string }{
		{"orders whose total is not the sum of their items",
			"SELECT COUNT(*) FROM orders o LEFT JOIN (SELECT order_id, SUM(quantity * unit_price) AS s " +
				"FROM order_items GROUP BY order_id) i ON i.order_id = o.id WHERE ABS(o.total - COALESCE(i.s, 0)) > 0.005"},
		{"items of missing orders",
			"SELECT COUNT(*) FROM order_items oi LEFT JOIN orders o ON o.id = oi.order_id WHERE o.id IS NULL"},
		{"items of missing products",
			"SELECT COUNT(*) FROM order_items oi LEFT JOIN products p ON p.id = oi.product_id WHERE p.id IS NULL"},
		{"orders of missing users",
			"SELECT COUNT(*) FROM orders o LEFT JOIN users u ON u.id = o.user_id WHERE u.id IS NULL"},
		{"orders with more than 8 items among the loaded ones",
			"SELECT COUNT(*) FROM (SELECT order_id FROM order_items WHERE order_id <= 2500 " +
				"GROUP BY order_id HAVING COUNT(*) > 8) x"},
	}
	for _, c := range checks {
		if n := w.int64(t, c.query); n != 0 {
			t.Errorf("%s after %s: %d %s", w.driver, after, n, c.what)
		}
	}
}

func (w *workloadDB) testShop(t *testing.T) {
	w.cli(t, "shop_mixed", "cleanup")
	w.cli(t, "shop_mixed", "--scale=0.01", "--threads=2", "--rand-seed=1", "prepare")
	w.wantCounts(t, map[string]int64{"users": 1000, "products": 500, "orders": 2500, "order_items": 10000})
	w.checkShop(t, "prepare")
	if n := w.int64(t, "SELECT COUNT(DISTINCT category_id) FROM products"); n < 50 || n > 100 {
		t.Errorf("%s: products in %d categories, want most of the 100", w.driver, n)
	}
	if n := w.int64(t, "SELECT COUNT(*) FROM order_items WHERE order_id <= 2500"); n != 10000 {
		t.Errorf("%s: %d items in the loaded orders, want 10000", w.driver, n)
	}

	runs := [][]string{
		{"shop_point_select"},
		{"shop_point_select", "--point-select-table=both"},
		{"shop_category_filter", "--category-limit=5"},
		{"shop_join_aggregate"},
		{"shop_insert"},
		{"shop_insert", "--insert-target=orders"},
		{"shop_update_index"},
		{"shop_update_index", "--update-target=status"},
		{"shop_order_trx"},
		{"shop_mixed"},
	}
	for _, r := range runs {
		t.Run(strings.Join(r, " "), func(t *testing.T) {
			orders := w.count(t, "orders")
			w.runEvents(t, append(r, "--threads=2", "--events=40", "--time=0")...)
			w.checkShop(t, strings.Join(r, " "))
			if r[0] == "shop_order_trx" || strings.Contains(strings.Join(r, " "), "orders") {
				if got := w.count(t, "orders"); got <= orders {
					t.Errorf("%s: %s added no order (%d before, %d after)", w.driver, r[0], orders, got)
				}
			}
		})
	}
	w.cli(t, "shop_mixed", "check")
	w.cli(t, "shop_mixed", "cleanup")
	w.wantDropped(t, "users", "products", "orders", "order_items", "shop_meta")
}

type tpcbSums struct{ history, accounts, tellers, branches, rows int64 }

func (w *workloadDB) tpcbSums(t *testing.T) tpcbSums {
	t.Helper()
	return tpcbSums{
		history:  w.int64(t, "SELECT COALESCE(SUM(delta), 0) FROM pgbench_history"),
		accounts: w.int64(t, "SELECT COALESCE(SUM(abalance), 0) FROM pgbench_accounts"),
		tellers:  w.int64(t, "SELECT COALESCE(SUM(tbalance), 0) FROM pgbench_tellers"),
		branches: w.int64(t, "SELECT COALESCE(SUM(bbalance), 0) FROM pgbench_branches"),
		rows:     w.count(t, "pgbench_history"),
	}
}

// checkTPCBLike runs tpcb_like on tables with zero balances and checks
// that accounts, tellers and branches all add up to the history, which
// holds one row per committed transaction.
func (w *workloadDB) checkTPCBLike(t *testing.T, args ...string) {
	t.Helper()
	n := w.runEvents(t, append([]string{"tpcb_like", "--threads=2", "--events=40", "--time=0"}, args...)...)
	s := w.tpcbSums(t)
	if s.accounts != s.history || s.tellers != s.history || s.branches != s.history {
		t.Errorf("%s after tpcb_like: sum(delta)=%d but sum(abalance)=%d sum(tbalance)=%d sum(bbalance)=%d",
			w.driver, s.history, s.accounts, s.tellers, s.branches)
	}
	if s.rows != n {
		t.Errorf("%s after tpcb_like: %d history rows for %d transactions", w.driver, s.rows, n)
	}
}

func (w *workloadDB) testTPCB(t *testing.T) {
	w.cli(t, "tpcb_like", "cleanup")
	w.cli(t, "tpcb_like", "--scale=0.1", "--threads=2", "prepare")
	w.wantCounts(t, map[string]int64{"pgbench_branches": 1, "pgbench_tellers": 1,
		"pgbench_accounts": 10000, "pgbench_history": 0})
	if !w.tableExists(t, "tpcb_meta") {
		t.Errorf("%s: prepare left no tpcb_meta, the marker cleanup reads", w.driver)
	}

	// no --scale: the sizes come from the tables
	w.checkTPCBLike(t)

	before := w.tpcbSums(t)
	w.runEvents(t, "tpcb_simple_update", "--threads=2", "--events=40", "--time=0")
	s := w.tpcbSums(t)
	if s.accounts != s.history {
		t.Errorf("%s after tpcb_simple_update: sum(delta)=%d but sum(abalance)=%d", w.driver, s.history, s.accounts)
	}
	if s.tellers != before.tellers || s.branches != before.branches {
		t.Errorf("%s: tpcb_simple_update changed tellers or branches", w.driver)
	}
	if s.rows <= before.rows {
		t.Errorf("%s: tpcb_simple_update added no history", w.driver)
	}

	w.runEvents(t, "tpcb_select_only", "--threads=2", "--events=40", "--time=0")
	if after := w.tpcbSums(t); after != s {
		t.Errorf("%s: tpcb_select_only changed the data: %+v -> %+v", w.driver, s, after)
	}
	w.cli(t, "tpcb_like", "check")
	w.cli(t, "tpcb_like", "cleanup")
	w.wantDropped(t, "pgbench_branches", "pgbench_tellers", "pgbench_accounts", "pgbench_history", "tpcb_meta")
}

// testPgbenchInit: tpcb_like runs as is on a database made by pgbench -i.
func (w *workloadDB) testPgbenchInit(t *testing.T) {
	pgbench, err := exec.LookPath("pgbench")
	if err != nil {
		pgbench = "/usr/lib/postgresql/15/bin/pgbench"
		if _, err := os.Stat(pgbench); err != nil {
			testenv.Unavailable(t, "pgbench not found in PATH or /usr/lib/postgresql/15/bin")
		}
	}
	cmd := exec.Command(pgbench, "-i", "-s", "1", "-q", "-h", w.srv.Host, "-p", w.srv.Port, "-U", w.srv.User, w.srv.DB)
	cmd.Env = append(os.Environ(), "PGPASSWORD="+w.srv.Password)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pgbench -i -s 1: %v\n%s", err, out)
	}
	w.checkTPCBLike(t)
	if max := w.int64(t, "SELECT MAX(aid) FROM pgbench_history"); max > 100000 {
		t.Errorf("tpcb_like drew aid %d on a scale-1 database", max)
	}
	w.cli(t, "tpcb_like", "check")
	// pgbench -i wrote no marker: cleanup refuses its tables until told.
	w.refused(t, "cleanup refused: tables 'pgbench_history', 'pgbench_tellers', 'pgbench_accounts', 'pgbench_branches' exist but no tpcb_meta table says",
		"tpcb_like", "cleanup")
	if w.count(t, "pgbench_accounts") != 100000 {
		t.Errorf("pgbench_accounts lost rows to a refused cleanup")
	}
	w.cli(t, "tpcb_like", "--force-cleanup", "cleanup")
	w.wantDropped(t, "pgbench_branches", "pgbench_tellers", "pgbench_accounts", "pgbench_history")
}

// refused runs sysbench-go with the database's options and wants exit 1
// with one FATAL line holding msg and nothing dropped or created.
func (w *workloadDB) refused(t *testing.T, msg string, args ...string) {
	t.Helper()
	out, code := runCLI(t, append(append([]string{}, args...), w.args...)...)
	if code != 1 || len(fatalLines(out)) != 1 || !strings.Contains(fatalLines(out)[0], msg) ||
		strings.Contains(out, "Dropping") || strings.Contains(out, "Creating") {
		t.Errorf("sysbench-go %s (%s): exit %d, want 1 and one FATAL line with %q and nothing dropped or created:\n%s",
			strings.Join(args, " "), w.driver, code, msg, out)
	}
}

// testCleanupKeepsForeign: the shop tables have common names. An
// application's users table survives shop_mixed's cleanup (it was dropped)
// and stops its prepare before anything is created; --force-cleanup drops
// it when asked.
func (w *workloadDB) testCleanupKeepsForeign(t *testing.T) {
	for _, q := range []string{"CREATE TABLE users (name VARCHAR(20))", "INSERT INTO users VALUES ('alice')"} {
		if err := w.exec(q); err != nil {
			t.Fatalf("%s: %s: %v", w.driver, q, err)
		}
	}
	w.refused(t, "cleanup refused: table 'users' exists but no shop_meta table says it was created by the shop workloads' prepare: nothing dropped (--force-cleanup=on drops it)",
		"shop_mixed", "cleanup")
	w.refused(t, "prepare refused: table 'users' already exists: nothing created", "shop_mixed", "--scale=0.001", "--threads=2", "prepare")
	w.wantCounts(t, map[string]int64{"users": 1})
	w.wantDropped(t, "shop_meta")
	w.cli(t, "shop_mixed", "--force-cleanup", "cleanup")
	w.wantDropped(t, "users")
}

// exec runs a statement on the test's database.
func (w *workloadDB) exec(q string) error {
	if w.pg != nil {
		_, err := w.pg.Exec(context.Background(), q)
		return err
	}
	_, err := w.db.Exec(q)
	return err
}

// testOLTP runs every OLTP script on one table of 1000 rows, prepared
// by one of them and dropped by another: their prepare and cleanup are
// oltp_common's, one function for all (a prepare and a cleanup per script
// cost the suite 20 runs a driver and tested nothing more). bulk_insert,
// which makes tables of its own, has its own.
func (w *workloadDB) testOLTP(t *testing.T) {
	scripts := []string{"oltp_read_only", "oltp_read_write", "oltp_write_only", "oltp_point_select",
		"oltp_insert", "oltp_delete", "oltp_update_index", "oltp_update_non_index",
		"select_random_points", "select_random_ranges"}
	opts := []string{"--table-size=1000", "--threads=2"}
	w.cli(t, append([]string{"oltp_read_write", "cleanup"}, opts...)...)
	w.cli(t, append([]string{"oltp_read_write", "prepare"}, opts...)...)
	w.wantCounts(t, map[string]int64{"sbtest1": 1000})
	for _, script := range scripts {
		t.Run(script, func(t *testing.T) {
			w.runEvents(t, append([]string{script, "--events=100", "--time=0"}, opts...)...)
		})
	}
	w.cli(t, append([]string{"oltp_point_select", "cleanup"}, opts...)...)
	w.wantDropped(t, "sbtest1")

	t.Run("bulk_insert", func(t *testing.T) {
		w.cli(t, "bulk_insert", "--threads=2", "cleanup")
		w.cli(t, "bulk_insert", "--threads=2", "prepare")
		w.wantCounts(t, map[string]int64{"sbtest1": 0})
		w.runEvents(t, "bulk_insert", "--threads=2", "--events=100", "--time=0")
		// A table per thread, a row per event: either thread may have run
		// all 100 events.
		if n := w.count(t, "sbtest1") + w.count(t, "sbtest2"); n != 100 {
			t.Errorf("%s: bulk_insert inserted %d rows for 100 events", w.driver, n)
		}
		w.cli(t, "bulk_insert", "--threads=2", "cleanup")
		w.wantDropped(t, "sbtest1")
	})
}
