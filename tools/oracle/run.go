package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	_ "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

// program is one of the two programs compared.
type program struct {
	name string // "ref" or "ours"
	path string // run with argv[0] "sysbench"
}

// result is what one program did for one case.
type result struct {
	stdout, stderr string
	// status is the exit status as a shell sees it: the code, or 128 +
	// the signal that killed the program.
	status   int
	signaled string // the signal that killed it, "" when it exited
	timedOut bool
	elapsed  time.Duration
	err      error // the case could not be run (not a difference)
}

// servers are the test servers cases may use, by kind.
type servers map[string]testenv.Server

// serversFromEnv reads the SBTEST_* environment (scripts/testdb.sh).
func serversFromEnv() servers {
	out := servers{}
	for _, kind := range []string{"mysql", "pgsql"} {
		if s, ok := testenv.Lookup(kind, func(k string) string { return os.Getenv("SBTEST_" + k) }); ok {
			out[kind] = s
		}
	}
	return out
}

// dbName is the database of a case's run on a server: one per case and
// program, so that both run at once (named sbtest_*, which the test
// servers' account may create).
func dbName(c *Case, p program) string {
	h := sha256.Sum256([]byte(c.Name))
	return "sbtest_oracle_" + hex.EncodeToString(h[:5]) + "_" + p.name
}

// connArgs are the options that point a run at the server, in db.
func connArgs(s testenv.Server, db string) []string {
	p := "--" + s.Kind + "-"
	host := s.Host
	if host == "localhost" {
		host = "127.0.0.1" // TCP for both: the reference's localhost means its socket
	}
	return []string{p + "host=" + host, p + "port=" + s.Port, p + "user=" + s.User, p + "password=" + s.Password, p + "db=" + db}
}

// expand replaces the server placeholders of argv.
func expand(argv []string, srv servers, db string) []string {
	var out []string
	for _, a := range argv {
		switch a {
		case "{mysql}":
			out = append(out, connArgs(srv["mysql"], db)...)
		case "{pgsql}":
			out = append(out, "--db-driver=pgsql")
			out = append(out, connArgs(srv["pgsql"], db)...)
		default:
			out = append(out, a)
		}
	}
	return out
}

// admin creates and drops the cases' databases on a server.
type admin interface {
	exec(ctx context.Context, query string) error
	close()
}

type mysqlAdmin struct{ db *sql.DB }

func (a mysqlAdmin) exec(ctx context.Context, q string) error {
	_, err := a.db.ExecContext(ctx, q)
	return err
}

func (a mysqlAdmin) close() { a.db.Close() }

// pgsqlAdmin is one connection, one statement at a time.
type pgsqlAdmin struct {
	mu   sync.Mutex
	conn *pgx.Conn
}

func (a *pgsqlAdmin) exec(ctx context.Context, q string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, err := a.conn.Exec(ctx, q)
	return err
}

func (a *pgsqlAdmin) close() { a.conn.Close(context.Background()) }

// openAdmin connects to the kind server.
func openAdmin(ctx context.Context, s testenv.Server) (admin, error) {
	switch s.Kind {
	case "mysql":
		db, err := sql.Open("mysql", s.MySQLConfig("").FormatDSN())
		if err != nil {
			return nil, err
		}
		return mysqlAdmin{db}, nil
	case "pgsql":
		u := url.URL{Scheme: "postgres", User: url.UserPassword(s.User, s.Password),
			Host: net.JoinHostPort(s.Host, s.Port), Path: "/" + s.DB, RawQuery: "sslmode=disable"}
		conn, err := pgx.Connect(ctx, u.String())
		if err != nil {
			return nil, err
		}
		return &pgsqlAdmin{conn: conn}, nil
	}
	return nil, fmt.Errorf("no server kind %q", s.Kind)
}

// runner runs cases, at most parallel programs at a time.
type runner struct {
	ref, ours program
	srv       servers
	admin     map[string]admin
	slots     chan struct{}
	keep      bool // keep the work directories (-keep)
	tmp       string
	mu        sync.Mutex
}

func newRunner(ctx context.Context, ref, ours program, srv servers, parallel int) (*runner, error) {
	tmp, err := os.MkdirTemp("", "sysbench-oracle-")
	if err != nil {
		return nil, err
	}
	r := &runner{ref: ref, ours: ours, srv: srv, admin: map[string]admin{}, slots: make(chan struct{}, parallel), tmp: tmp}
	for kind, s := range srv {
		a, err := openAdmin(ctx, s)
		if err != nil {
			r.close()
			return nil, fmt.Errorf("the %s test server: %w", kind, err)
		}
		r.admin[kind] = a
	}
	return r, nil
}

func (r *runner) close() {
	for _, a := range r.admin {
		a.close()
	}
	if !r.keep {
		os.RemoveAll(r.tmp)
	}
}

// run runs c under p in a directory and database of its own.
func (r *runner) run(ctx context.Context, c *Case, p program) result {
	r.slots <- struct{}{}
	defer func() { <-r.slots }()
	dir, err := os.MkdirTemp(r.tmp, p.name+"-")
	if err != nil {
		return result{err: err}
	}
	if !r.keep {
		defer os.RemoveAll(dir)
	}
	for name, src := range c.Files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return result{err: err}
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			return result{err: err}
		}
	}
	db := ""
	if kind := c.server(); kind != "" {
		db = dbName(c, p)
		if err := r.createDB(ctx, kind, db); err != nil {
			return result{err: err}
		}
		defer r.dropDB(kind, db)
	}
	for _, b := range c.Before {
		res := r.exec(ctx, p, dir, expand(b, r.srv, db), "", c, false)
		if res.err != nil {
			return res
		}
	}
	res := r.exec(ctx, p, dir, expand(c.Args, r.srv, db), c.Stdin, c, true)
	// What the run's paths and database are named: the same for both.
	for _, s := range []*string{&res.stdout, &res.stderr} {
		*s = strings.ReplaceAll(*s, dir, "$DIR")
		if db != "" {
			*s = strings.ReplaceAll(*s, db, "$DB")
		}
	}
	return res
}

func (r *runner) createDB(ctx context.Context, kind, db string) error {
	a := r.admin[kind]
	if a == nil {
		return fmt.Errorf("no %s server", kind)
	}
	_ = a.exec(ctx, "DROP DATABASE IF EXISTS "+db)
	return a.exec(ctx, "CREATE DATABASE "+db)
}

func (r *runner) dropDB(kind, db string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	q := "DROP DATABASE IF EXISTS " + db
	if kind == "pgsql" {
		q += " WITH (FORCE)"
	}
	_ = r.admin[kind].exec(ctx, q)
}

// markerWriter keeps what the program writes and sends the case's signal
// once its marker has appeared.
type markerWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	marker string
	fire   func()
	fired  bool
}

func (w *markerWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(b)
	if w.marker != "" && !w.fired && strings.Contains(w.buf.String(), w.marker) {
		w.fired = true
		w.fire()
	}
	return len(b), nil
}

func (w *markerWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// exec runs one command line of p in dir.
func (r *runner) exec(ctx context.Context, p program, dir string, argv []string, stdin string, c *Case, main bool) result {
	timeout := c.Timeout
	if timeout == 0 {
		timeout = defaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.path, argv...)
	cmd.Args[0] = "sysbench"
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + dir, "LANG=C", "LC_ALL=C", "TZ=UTC"}
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr markerWriter
	if main && c.Signal != 0 {
		stdout.marker = c.Marker
		stdout.fire = func() { _ = cmd.Process.Signal(c.Signal) }
	}
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	res := result{stdout: stdout.String(), stderr: stderr.String(), elapsed: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		res.timedOut = true
		res.status = -1
	case errors.As(err, &ee):
		ws := ee.Sys().(syscall.WaitStatus)
		if ws.Signaled() {
			res.signaled = ws.Signal().String()
			res.status = 128 + int(ws.Signal())
		} else {
			res.status = ws.ExitStatus()
		}
	case err != nil:
		res.err = err
	}
	return res
}
