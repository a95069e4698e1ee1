// Package pgsql is the PostgreSQL driver (--db-driver=pgsql), built on pgx's
// wire-protocol layer (pgconn) rather than database/sql so that a query costs
// the client as little CPU as libpq does for sysbench.
//
// It owns the pgsql-* options, the '?' to '$n' rewriting, lazy server-side
// prepares, buffered results, and the conversion of server and connection
// errors into *drivers.Error, with the FATAL lines sysbench 1.0.20 prints.
package pgsql

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/drivers/dryrun"
	"github.com/sysbench-go/sysbench-go/drivers/sockio"
	"github.com/sysbench-go/sysbench-go/logging"
	"github.com/sysbench-go/sysbench-go/options"
)

// Factory registers the driver.
var Factory = drivers.Factory{
	Name:        "pgsql",
	Description: "PostgreSQL driver",
	Options: []options.Option{
		// The reference declares host and port as single values; ours are
		// lists spread over connections round-robin, with the same defaults.
		{Name: "pgsql-host", Desc: "PostgreSQL server host; several spread the connections round-robin", Kind: options.List, Default: "localhost",
			Ref: &options.Option{Name: "pgsql-host", Desc: "PostgreSQL server host", Kind: options.String, Default: "localhost"}},
		{Name: "pgsql-port", Desc: "PostgreSQL server port; several pair with the hosts", Kind: options.List, Default: "5432",
			Ref: &options.Option{Name: "pgsql-port", Desc: "PostgreSQL server port", Kind: options.Int, Default: "5432"}},
		{Name: "pgsql-user", Desc: "PostgreSQL user", Kind: options.String, Default: "sbtest"},
		{Name: "pgsql-password", Desc: "PostgreSQL password", Kind: options.String, Default: ""},
		{Name: "pgsql-db", Desc: "PostgreSQL database name", Kind: options.String, Default: "sbtest"},
		{Name: "pgsql-sslmode", Extension: true, Desc: "PostgreSQL SSL mode (disable, allow, prefer, require, verify-ca, verify-full)", Kind: options.String, Default: "prefer"},
		{Name: "pgsql-socket", Extension: true, Desc: "PostgreSQL unix socket directory, used instead of --pgsql-host", Kind: options.List, NoDefault: true},
		{Name: "pgsql-ignore-errors", Extension: true, Desc: "list of SQLSTATEs to ignore besides 40P01,40001,23505, or \"all\"", Kind: options.List, NoDefault: true},
		{Name: "pgsql-target-session-attrs", Extension: true, Desc: "which server of the --pgsql-host list a connection accepts, as libpq's target_session_attrs: any, read-write, read-only, primary, standby, prefer-standby; a connection tries its own host first, then the next ones in the list", Kind: options.String, Default: "any"},
		{Name: "pgsql-blocking-io", Extension: true, Desc: "talk to the server with blocking socket calls, one OS thread per worker as libpq does (lower latency and client CPU below saturation, more client CPU at saturation than Go's netpoller); default on below 64 threads, off from 64", Kind: options.Bool, NoDefault: true},
	},
	Open: Open,
	Wait: func(cfg drivers.Config) drivers.Wait { return drivers.WaitOf(cfg.DryRun, blockingIO(cfg)) },
}

// blockingIO reads --pgsql-blocking-io. Not given, it is on below
// drivers.ManyThreads threads, as for MySQL. A blocking read wakes its own
// thread with the reply, where the netpoller hands every reply from thread
// to thread: at 2000 events/s p95 and p99 about 30% lower, client CPU per
// event 40% less; with 2 workers on 2 CPUs, 15-40% more point selects per
// second at ~25% less client CPU per query; with 8 workers on 2 CPUs
// (4 tables of 100k rows) 47-55k point selects per second at 12-14 µs of
// client CPU per query, p99 0.44-0.55 ms, where the netpoller gave 39-48k
// at 13-16 µs and p99 0.76-0.94 ms (sysbench 27-36k at 19-26 µs, p99
// 0.57-0.83). The netpoller's more point selects once seemed a win: they
// came from workers that never parked running ahead of those that did,
// whose replies waited to be noticed (engine.Loop.More).
func blockingIO(cfg drivers.Config) bool {
	v := cfg.Values
	if v == nil {
		return false
	}
	if v.IsSet("pgsql-blocking-io") {
		return v.Bool("pgsql-blocking-io")
	}
	return cfg.Threads < drivers.ManyThreads
}

// defaultIgnorable are the SQLSTATEs sysbench 1.0.20 rolls back and ignores:
// deadlock_detected, serialization_failure and unique_violation.
var defaultIgnorable = []string{"40P01", "40001", "23505"}

// lostConnState is the SQLSTATE reported for a connection that went away
// without the server saying why (connection_failure).
const lostConnState = "08006"

type driver struct {
	hosts    []string // TCP hosts, or socket directories when sockets is set
	ports    []int
	sockets  bool
	user     string
	password string
	passSet  bool
	db       string
	sslmode  string // "" leaves it to PGSSLMODE / pgx's default
	// target is --pgsql-target-session-attrs: the kind of server a
	// connection accepts among the hosts it tries.
	target string

	ignoreAll bool
	ignore    map[string]bool
	timeout   time.Duration // --query-timeout

	psMode   drivers.PSMode
	debug    bool
	blocking bool // --pgsql-blocking-io
	log      *logging.Logger

	next atomic.Uint64 // connections opened so far, for round-robin

	// sessions are the run's connections, for --server-stats.
	sessions drivers.Sessions
}

// Open validates the pgsql-* options.
func Open(cfg drivers.Config) (drivers.Driver, error) {
	if cfg.DryRun {
		return dryrun.New(), nil
	}
	v := cfg.Values
	if v == nil {
		v = options.NewValues()
	}
	str := func(name, def string) string {
		if s, ok := v.Raw(name); ok {
			return s
		}
		return def
	}
	list := func(name, def string) []string {
		if _, ok := v.Raw(name); ok {
			return v.List(name)
		}
		return options.SplitList(def)
	}

	d := &driver{
		user:     str("pgsql-user", "sbtest"),
		db:       str("pgsql-db", "sbtest"),
		psMode:   cfg.PSMode,
		debug:    cfg.Debug,
		blocking: blockingIO(cfg),
		log:      logging.OrDiscard(cfg.Log),
		ignore:   map[string]bool{},
		timeout:  cfg.QueryTimeout,
	}
	d.password = str("pgsql-password", "")
	d.passSet = d.password != ""
	if !d.passSet {
		// libpq would read PGPASSWORD itself; pgconn does too when the
		// connection string has no password, but be explicit.
		if p, ok := os.LookupEnv("PGPASSWORD"); ok {
			d.password, d.passSet = p, true
		}
	}
	d.sslmode = str("pgsql-sslmode", "prefer")
	if !v.IsSet("pgsql-sslmode") && os.Getenv("PGSSLMODE") != "" {
		d.sslmode = ""
	}
	switch d.sslmode {
	case "", "disable", "allow", "prefer", "require", "verify-ca", "verify-full":
	default:
		return nil, fmt.Errorf("invalid value for --pgsql-sslmode: '%s'", d.sslmode)
	}

	d.target = str("pgsql-target-session-attrs", "any")
	switch d.target {
	case "any", "read-write", "read-only", "primary", "standby", "prefer-standby":
	default:
		return nil, fmt.Errorf("invalid value for --pgsql-target-session-attrs: '%s'", d.target)
	}

	for _, p := range list("pgsql-port", "5432") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n <= 0 || n > 65535 {
			return nil, fmt.Errorf("invalid value for --pgsql-port: '%s'", p)
		}
		d.ports = append(d.ports, n)
	}
	if socks := list("pgsql-socket", ""); len(socks) > 0 {
		d.sockets = true
		for _, s := range socks {
			// Accept the socket file itself as well as its directory.
			dir, port, ok := splitSocketPath(s)
			if ok && !v.IsSet("pgsql-port") {
				d.ports = []int{port}
			}
			d.hosts = append(d.hosts, dir)
		}
	} else {
		d.hosts = list("pgsql-host", "localhost")
	}
	if len(d.hosts) == 0 {
		d.hosts = []string{"localhost"}
	}
	if len(d.ports) == 0 {
		d.ports = []int{5432}
	}

	for _, s := range defaultIgnorable {
		d.ignore[s] = true
	}
	for _, s := range list("pgsql-ignore-errors", "") {
		s = strings.TrimSpace(s)
		if strings.EqualFold(s, "all") {
			d.ignoreAll = true
			continue
		}
		d.ignore[strings.ToUpper(s)] = true
	}

	// Parse one configuration now so that a malformed option fails before
	// any thread starts.
	if _, err := d.config(0, d.blocking, nil); err != nil {
		return nil, err
	}
	return d, nil
}

// splitSocketPath recognises ".../.s.PGSQL.5432" and returns its directory
// and port; any other path is taken as a directory.
func splitSocketPath(s string) (dir string, port int, ok bool) {
	i := strings.LastIndex(s, "/.s.PGSQL.")
	if i < 0 {
		return s, 0, false
	}
	p, err := strconv.Atoi(s[i+len("/.s.PGSQL."):])
	if err != nil {
		return s, 0, false
	}
	if i == 0 {
		return "/", p, true
	}
	return s[:i], p, true
}

// endpoint returns the host (or socket directory) and port of the n-th
// connection. Hosts and ports advance independently, as sysbench's MySQL
// driver does with its lists.
func (d *driver) endpoint(n uint64) (string, int) {
	return d.hosts[n%uint64(len(d.hosts))], d.ports[n%uint64(len(d.ports))]
}

// failoverList is the host and port lists connection n gives pgconn, in
// the order it tries them: its own endpoint first, then the endpoints of
// the connections after it, each once. pgconn moves to the next when a
// host refuses, times out or is not of --pgsql-target-session-attrs'
// kind, as libpq does with a host list.
func (d *driver) failoverList(n uint64) (hosts, ports string) {
	count := len(d.hosts) * len(d.ports) / gcd(len(d.hosts), len(d.ports))
	seen := make(map[string]bool, count)
	var hb, pb strings.Builder
	for _, i := range drivers.FailoverOrder(n, count) {
		h, p := d.endpoint(uint64(i))
		port := strconv.Itoa(p)
		if seen[h+"\x00"+port] {
			continue
		}
		seen[h+"\x00"+port] = true
		if hb.Len() > 0 {
			hb.WriteByte(',')
			pb.WriteByte(',')
		}
		hb.WriteString(h)
		pb.WriteString(port)
	}
	return hb.String(), pb.String()
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// config is connection n's configuration; blocking selects blocking
// socket calls (--pgsql-blocking-io); dialed, if set, learns each address
// a socket was tried (ok: opened) to.
func (d *driver) config(n uint64, blocking bool, dialed func(network, addr string, ok bool)) (*pgconn.Config, error) {
	hosts, ports := d.failoverList(n)
	var b strings.Builder
	kv := func(k, v string) {
		b.WriteString(k)
		b.WriteString("='")
		for _, r := range v {
			if r == '\'' || r == '\\' {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		b.WriteString("' ")
	}
	kv("host", hosts)
	kv("port", ports)
	kv("user", d.user)
	kv("dbname", d.db)
	if d.passSet {
		kv("password", d.password)
	}
	if d.sslmode != "" {
		kv("sslmode", d.sslmode)
	}
	kv("target_session_attrs", d.target)
	cfg, err := pgconn.ParseConfig(b.String())
	if err != nil {
		return nil, fmt.Errorf("pgsql: %w", err)
	}
	// Notices are dropped, as sysbench installs an empty notice processor.
	cfg.OnNotice = nil
	// Names are resolved by the dial, so that the address it is given is
	// the host as the user wrote it (the connection's Endpoint).
	cfg.LookupFunc = func(_ context.Context, host string) ([]string, error) { return []string{host}, nil }
	dial := cfg.DialFunc
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		dctx, cancel := drivers.DialAttempt(ctx)
		nc, err := dial(dctx, network, addr)
		cancel()
		if dialed != nil {
			dialed(network, addr, err == nil)
		}
		if err != nil {
			return nil, err
		}
		return sockio.Adopt(nc, blocking), nil
	}
	return cfg, nil
}

func (d *driver) Connect(ctx context.Context) (drivers.Conn, error) {
	n := d.next.Add(1) - 1
	c := &conn{d: d, n: n}
	c.qt = drivers.NewQueryTimer(d.timeout, c.expireCall)
	if err := c.open(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

func (d *driver) Close() error { return nil }

// ignorable reports whether an error with this SQLSTATE restarts the event.
func (d *driver) ignorable(state string) bool {
	return d.ignoreAll || d.ignore[state]
}

// lineWriter serialises whole lines from concurrent connections so that
// FATAL lines never interleave.

var _ drivers.Driver = (*driver)(nil)
