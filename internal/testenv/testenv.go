// Package testenv owns the set-up the integration tests share: the test
// servers named by the SBTEST_* environment (scripts/testdb.sh writes it),
// the skip-or-fail rule for what is missing, driver option values, opened
// drivers and connections, and database/sql handles for checking data.
//
// Locally a missing server or tool skips the test with a message saying how
// to get it; under CI=true it fails the test, since CI provides everything.
//
// It is imported by the drivers' tests, so like the drivers it imports
// neither the engine nor the Lua layer.
package testenv

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/logging"
	"github.com/sysbench-go/sysbench-go/options"
)

// Unavailable skips t because msg names something missing, or fails it
// under CI=true.
func Unavailable(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// Server is a test server's connection settings.
type Server struct {
	Kind                                   string // "mysql" or "pgsql": the driver and the option prefix
	Host, Port, Socket, User, Password, DB string
}

// serverNames are the servers' names in messages.
var serverNames = map[string]string{"mysql": "MySQL/MariaDB", "pgsql": "PostgreSQL"}

// Lookup reads the settings of the kind server from getenv by the names of
// the SBTEST_* variables without the prefix ("MYSQL_HOST"), with the
// drivers' defaults for an unset port, user and database. ok is false when
// the host is unset.
func Lookup(kind string, getenv func(key string) string) (s Server, ok bool) {
	get := func(k, def string) string {
		if v := getenv(strings.ToUpper(kind) + "_" + k); v != "" {
			return v
		}
		return def
	}
	port := map[string]string{"mysql": "3306", "pgsql": "5432"}[kind]
	s = Server{Kind: kind, Host: get("HOST", ""), Port: get("PORT", port), Socket: get("SOCKET", ""),
		User: get("USER", "sbtest"), Password: get("PASSWORD", ""), DB: get("DB", "sbtest")}
	return s, s.Host != ""
}

func getenv(key string) string { return os.Getenv("SBTEST_" + key) }

// RequireServer returns the kind server of the environment, or skips the
// test (fails it under CI=true) when there is none.
func RequireServer(t testing.TB, kind string) Server {
	t.Helper()
	s, ok := Lookup(kind, getenv)
	if !ok {
		Unavailable(t, fmt.Sprintf("no %s server: SBTEST_%s_HOST is not set "+
			"(make test starts one; or scripts/testdb.sh start DIR and . DIR/env)",
			serverNames[kind], strings.ToUpper(kind)))
	}
	return s
}

// OptionalServer returns the kind server of the environment if there is
// one, for tests that run on it as well as on SQLite. Under CI=true a
// missing server fails the test.
func OptionalServer(t testing.TB, kind string) (Server, bool) {
	t.Helper()
	if _, ok := Lookup(kind, getenv); !ok && os.Getenv("CI") != "true" {
		return Server{}, false
	}
	return RequireServer(t, kind), true
}

// Args returns the command-line options that point a run at the server.
func (s Server) Args() []string {
	p := "--" + s.Kind + "-"
	return []string{"--db-driver=" + s.Kind, p + "host=" + s.Host, p + "port=" + s.Port,
		p + "user=" + s.User, p + "password=" + s.Password, p + "db=" + s.DB}
}

// Values returns option values pointing the driver at the server, with
// the defaults of opts (nil for none) and the name/value pairs kv on top.
func (s Server) Values(opts []options.Option, kv ...string) *options.Values {
	p := s.Kind + "-"
	return Values(opts, append([]string{p + "host", s.Host, p + "port", s.Port, p + "user", s.User,
		p + "password", s.Password, p + "db", s.DB}, kv...)...)
}

// Values returns option values with the defaults of opts and the
// name/value pairs kv set.
func Values(opts []options.Option, kv ...string) *options.Values {
	v := options.NewValues()
	for _, o := range opts {
		v.SetDefault(o.Name, o.Default)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}

// MySQLConfig returns a go-sql-driver configuration for database db on the
// (mysql) server, over TCP.
func (s Server) MySQLConfig(db string) *gomysql.Config {
	mc := gomysql.NewConfig()
	mc.User, mc.Passwd, mc.DBName = s.User, s.Password, db
	mc.Net, mc.Addr = "tcp", net.JoinHostPort(s.Host, s.Port)
	return mc
}

// PgURL returns a connection URL for database db on the (pgsql) server.
func (s Server) PgURL(db string) string {
	u := url.URL{Scheme: "postgres", User: url.UserPassword(s.User, s.Password),
		Host: net.JoinHostPort(s.Host, s.Port), Path: "/" + db, RawQuery: "sslmode=disable"}
	return u.String()
}

// OpenDB opens a database/sql handle for checks and closes it when the test
// ends. driver must be registered (blank-import it). A database that does
// not answer skips the test (fails it under CI=true).
func OpenDB(t testing.TB, driver, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatalf("open %s: %v", driver, err)
	}
	if err := db.Ping(); err != nil {
		db.Close()
		Unavailable(t, fmt.Sprintf("%s server not reachable: %v", driver, err))
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Buffer is a bytes.Buffer that several goroutines may write while the
// test reads it: a driver's log, a background run's output.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// OpenDriver opens a driver with open, its log lines going to the returned
// buffer, and closes it when the test ends.
func OpenDriver(t testing.TB, open func(drivers.Config) (drivers.Driver, error), cfg drivers.Config) (drivers.Driver, *Buffer) {
	t.Helper()
	log := &Buffer{}
	// Every level, so tests see DEBUG lines when they ask for them.
	cfg.Log = logging.New(log, logging.Debug)
	d, err := open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, log
}

// Connect opens a connection and closes it when the test ends.
func Connect(t testing.TB, d drivers.Driver) drivers.Conn {
	t.Helper()
	c, err := d.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// MustQuery runs q and fails the test on an error.
func MustQuery(t testing.TB, c drivers.Conn, q string) drivers.Result {
	t.Helper()
	r, err := c.Query(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return r
}

// Rows reads the rest of r as strings, "NULL" for SQL NULL.
func Rows(r drivers.Result) [][]string { return drivers.ReadRows(r, "NULL") }

// Tool returns the path of a program the test compares with (luajit, the
// reference sysbench); without it the test is Unavailable (skipped, or
// failed under CI=true, where .ci/run installs them).
func Tool(t testing.TB, name, install string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Unavailable(t, fmt.Sprintf("%s is not installed (%s; .ci/run installs it): comparison skipped", name, install))
	}
	return p
}

// LineDiff shows the first line where got and want part, for a failure
// message comparing long outputs.
func LineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n  want: %q\n  got:  %q", i+1, wl, gl)
		}
	}
	return "(no difference)"
}

// ReferenceHelp returns sysbench 1.0.20's --help as recorded in the
// command line's testdata (root is the path to the repository root).
func ReferenceHelp(t testing.TB, root string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "cli", "testdata", "reference", "sysbench-1.0.20", "help.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
