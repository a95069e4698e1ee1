// Package mysql is the sysbench "mysql" driver for MySQL, MariaDB and
// MySQL-wire servers, built on the driver level of go-sql-driver/mysql
// (not database/sql, whose pooling and per-call allocations would dominate
// a benchmark's client cost).
//
// It owns the --mysql-* options, spreads connections over host/port or
// socket lists the way the reference does, classifies results into
// read/write/other like drv_mysql.c, and converts every MySQL and
// connection error into *drivers.Error once, printing the reference's
// FATAL lines.
package mysql

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/drivers/dryrun"
	"github.com/sysbench-go/sysbench-go/logging"
	"github.com/sysbench-go/sysbench-go/options"
)

// Factory registers the driver.
var Factory = drivers.Factory{
	Name:        "mysql",
	Description: "MySQL driver",
	Options:     driverOptions,
	Open:        Open,
	Wait: func(cfg drivers.Config) drivers.Wait {
		return drivers.WaitOf(cfg.DryRun || withDefaults(cfg.Values).Bool("mysql-dry-run"), blockingIO(cfg))
	},
}

// driverOptions are the reference's --mysql-* options, in its order, then
// ours.
var driverOptions = []options.Option{
	{Name: "mysql-host", Desc: "MySQL server host", Kind: options.List, Default: "localhost"},
	{Name: "mysql-port", Desc: "MySQL server port", Kind: options.List, Default: "3306"},
	{Name: "mysql-socket", Desc: "MySQL socket", Kind: options.List, NoDefault: true},
	{Name: "mysql-user", Desc: "MySQL user", Kind: options.String, Default: "sbtest"},
	{Name: "mysql-password", Desc: "MySQL password", Kind: options.String, Default: ""},
	{Name: "mysql-db", Desc: "MySQL database name", Kind: options.String, Default: "sbtest"},
	{Name: "mysql-ssl", Desc: "use SSL/TLS: on (as sysbench 1.0.20: TLS when the server offers it, plain text otherwise; the certificate is not verified; client-cert.pem and client-key.pem from the current directory when there), off, or one of sysbench 1.1's modes DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY",
		Kind: options.Bool, Default: "off", Words: true, Placeholder: "[=on|off|MODE]",
		Choices: []string{"DISABLED", "PREFERRED", "REQUIRED", "VERIFY_CA", "VERIFY_IDENTITY"},
		Ref:     &options.Option{Name: "mysql-ssl", Desc: "use SSL connections, if available in the client library", Kind: options.Bool, Default: "off"}},
	{Name: "mysql-ssl-cipher", Desc: "use specific cipher for SSL connections", Kind: options.String, Default: ""},
	{Name: "mysql-compression", Desc: "use compression, if available in the client library", Kind: options.Bool, Default: "off"},
	{Name: "mysql-debug", Desc: "trace all client library calls", Kind: options.Bool, Default: "off"},
	{Name: "mysql-ignore-errors", Desc: "list of errors to ignore, or \"all\"", Kind: options.List, Default: "1213,1020,1205"},
	{Name: "mysql-dry-run", Desc: "Dry run, pretend that all MySQL client API calls are successful without executing them", Kind: options.Bool, Default: "off"},
	// Beyond the reference.
	{Name: "mysql-ssl-ca", Extension: true, Desc: "CA certificate file for --mysql-ssl=VERIFY_CA/VERIFY_IDENTITY", Kind: options.File, NoDefault: true},
	{Name: "mysql-ssl-cert", Extension: true, Desc: "client certificate file for SSL connections", Kind: options.File, NoDefault: true},
	{Name: "mysql-ssl-key", Extension: true, Desc: "client private key file for SSL connections", Kind: options.File, NoDefault: true},
	{Name: "mysql-target", Extension: true, Desc: "which server of the --mysql-host list a connection accepts: any, or read-write (not read-only: @@read_only is 0); a connection tries its own host first, then the next ones in the list", Kind: options.String, Default: "any"},
	{Name: "mysql-blocking-io", Extension: true, Desc: "talk to the server with blocking socket calls, one OS thread per worker as C clients do (less client CPU and latency than Go's netpoller up to some tens of threads); default on below 64 threads, off from 64", Kind: options.Bool, Default: "on"},
}

// target is one place a connection can go: a TCP host:port or a socket.
type target struct {
	network string // "tcp" or "unix"
	addr    string
	host    string // for messages
	port    int
	socket  string // set for --mysql-socket targets
}

// endpoint is where t listens, in the user's words.
func (t target) endpoint() drivers.Endpoint {
	if t.socket != "" {
		return drivers.Endpoint{Socket: t.socket}
	}
	return drivers.Endpoint{Host: t.host, Port: t.port}
}

// settings are the parsed options shared by all connections.
type settings struct {
	targets   []target
	user      string
	password  string
	db        string
	tls       *tls.Config
	tlsPrefer bool // PREFERRED: fall back to plain text
	compress  bool
	blocking  bool // --mysql-blocking-io
	debug     bool
	ignoreAll bool
	ignore    []int
	psMode    drivers.PSMode
	// readWrite is --mysql-target=read-write: a connection skips servers
	// with @@read_only set.
	readWrite bool
	// timeout is --query-timeout; ignoreTimeout says HYT00 (its state)
	// is in --mysql-ignore-errors.
	timeout       time.Duration
	ignoreTimeout bool
}

// Open validates the options and returns a driver ready to connect. A dry
// run returns the driver-neutral dry-run driver.
func Open(cfg drivers.Config) (drivers.Driver, error) {
	v := withDefaults(cfg.Values)
	// The reference checks the lists before anything else, dry run or
	// not, sockets or not.
	if len(v.List("mysql-host")) == 0 {
		return nil, fmt.Errorf("No MySQL hosts specified, aborting")
	}
	if len(v.List("mysql-port")) == 0 {
		return nil, fmt.Errorf("No MySQL ports specified, aborting")
	}
	log := logging.OrDiscard(cfg.Log)
	if v.Bool("mysql-debug") {
		// As the reference, dry run or not: --mysql-debug raises the
		// verbosity to DEBUG as the driver starts, and traces its calls.
		log.SetLevel(logging.Debug)
		log.Debugf("mysql_library_init(0, (nil), (nil))")
	}
	if cfg.DryRun || v.Bool("mysql-dry-run") {
		return dryrun.New(), nil
	}
	s, err := parseSettings(v, cfg)
	if err != nil {
		return nil, err
	}
	if s.debug {
		log.SetLevel(logging.Debug)
	}
	return &drv{s: s, log: log}, nil
}

// withDefaults fills in the defaults of the options not given.
func withDefaults(v *options.Values) *options.Values {
	if v == nil {
		v = options.NewValues()
	}
	for _, o := range driverOptions {
		if !o.NoDefault {
			v.SetDefault(o.Name, o.Default)
		}
	}
	return v
}

// blockingIO reports whether connections will use blocking socket calls:
// --mysql-blocking-io with a real server, in plain text or under TLS (which
// go-sql-driver layers over the socket it is given).
func blockingIO(cfg drivers.Config) bool {
	v := withDefaults(cfg.Values)
	return !cfg.DryRun && !v.Bool("mysql-dry-run") && blockingOption(v, cfg.Threads)
}

// blockingOption is --mysql-blocking-io: as given, else on below
// drivers.ManyThreads threads.
func blockingOption(v *options.Values, threads int) bool {
	if v.IsSet("mysql-blocking-io") {
		return v.Bool("mysql-blocking-io")
	}
	return threads < drivers.ManyThreads
}

func parseSettings(v *options.Values, cfg drivers.Config) (settings, error) {
	s := settings{
		user:     v.String("mysql-user"),
		password: v.String("mysql-password"),
		db:       v.String("mysql-db"),
		compress: v.Bool("mysql-compression"),
		blocking: blockingOption(v, cfg.Threads),
		debug:    cfg.Debug || v.Bool("mysql-debug"),
		psMode:   cfg.PSMode,
		timeout:  cfg.QueryTimeout,
	}
	if !v.IsSet("mysql-password") && s.password == "" {
		// libmysqlclient falls back to MYSQL_PWD as well.
		s.password = os.Getenv("MYSQL_PWD")
	}

	if sockets := v.List("mysql-socket"); len(sockets) > 0 {
		for _, p := range sockets {
			s.targets = append(s.targets, target{network: "unix", addr: p, host: "localhost", socket: p})
		}
	} else {
		hosts := v.List("mysql-host")
		if len(hosts) == 0 {
			return s, fmt.Errorf("No MySQL hosts specified, aborting")
		}
		ports := v.List("mysql-port")
		if len(ports) == 0 {
			return s, fmt.Errorf("No MySQL ports specified, aborting")
		}
		// The reference walks the ports of one host before moving to the
		// next host: connection n gets pair n of hosts x ports.
		for _, h := range hosts {
			for _, p := range ports {
				port, err := strconv.Atoi(strings.TrimSpace(p))
				if err != nil || port < 0 || port > 65535 {
					return s, fmt.Errorf("invalid --mysql-port value '%s'", p)
				}
				s.targets = append(s.targets, hostTarget(h, port))
			}
		}
	}

	switch tg := v.String("mysql-target"); tg {
	case "any":
	case "read-write":
		s.readWrite = true
	default:
		return s, fmt.Errorf("invalid value for --mysql-target: '%s'", tg)
	}

	for _, e := range v.List("mysql-ignore-errors") {
		e = strings.TrimSpace(e)
		if e == "all" {
			s.ignoreAll = true
			continue
		}
		if strings.EqualFold(e, drivers.QueryTimeoutState) {
			s.ignoreTimeout = true
			continue
		}
		// The reference uses atoi: junk becomes 0.
		n, _ := strconv.Atoi(e)
		s.ignore = append(s.ignore, n)
	}

	var err error
	s.tls, s.tlsPrefer, err = tlsConfig(v)
	if err != nil {
		return s, err
	}
	return s, nil
}

// hostTarget maps host "localhost" to the default unix socket, as
// libmysqlclient does; any other name is a TCP address.
func hostTarget(host string, port int) target {
	if host == "localhost" {
		return target{network: "unix", addr: defaultSocket(), host: host, port: port}
	}
	return target{network: "tcp", addr: net.JoinHostPort(host, strconv.Itoa(port)), host: host, port: port}
}

func defaultSocket() string {
	if p := os.Getenv("MYSQL_UNIX_PORT"); p != "" {
		return p
	}
	for _, p := range []string{"/run/mysqld/mysqld.sock", "/var/run/mysqld/mysqld.sock", "/tmp/mysql.sock"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return "/run/mysqld/mysqld.sock"
}

// drv is the driver, shared by all workers.
type drv struct {
	s      settings
	log    *logging.Logger
	noWire bool // tests: every statement through go-sql-driver

	mu   sync.Mutex
	next int // round-robin position in s.targets

	// sessions are the run's connections, for --server-stats.
	sessions drivers.Sessions
}

var _ drivers.Driver = (*drv)(nil)

// Connect opens a connection to the next target in round-robin order.
func (d *drv) Connect(ctx context.Context) (drivers.Conn, error) {
	d.mu.Lock()
	n := d.next % len(d.s.targets)
	d.next++
	d.mu.Unlock()
	t := d.s.targets[n]

	c := &conn{d: d, t: t, n: n}
	c.qt = drivers.NewQueryTimer(d.s.timeout, c.abort)
	if err := c.connect(ctx); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("connect: %w", ctx.Err())
		}
		var te *targetError
		if errors.As(err, &te) {
			t = te.t
		}
		e := connectError(err, t)
		if t.socket != "" {
			d.log.Fatalf("unable to connect to MySQL server on socket '%s', aborting...", t.socket)
		} else {
			d.log.Fatalf("unable to connect to MySQL server on host '%s', port %d, aborting...", t.host, t.port)
		}
		d.log.Fatalf("error %d: %s", e.Code, e.Msg)
		return nil, e
	}
	return c, nil
}

// Close has nothing to release: connections are closed by their owners.
func (d *drv) Close() error { return nil }

func (d *drv) debugf(format string, args ...any) {
	if d.s.debug {
		d.log.Debugf(format, args...)
	}
}

// ignorableTimeout reports whether --mysql-ignore-errors covers a
// --query-timeout: its state HYT00, "all", or a lost connection (2013),
// which is what a timeout leaves the connection as.
func (d *drv) ignorableTimeout() bool {
	return d.s.ignoreTimeout || d.ignorable(crServerLost)
}

// ignorable reports whether --mysql-ignore-errors covers code.
func (d *drv) ignorable(code int) bool {
	if d.s.ignoreAll {
		return true
	}
	for _, c := range d.s.ignore {
		if c == code {
			return true
		}
	}
	return false
}

// mysqlConfig builds the go-sql-driver configuration for one connection.
// dial is the connection's own dialer, which remembers the socket so a
// cancelled context can close it.
func (d *drv) mysqlConfig(t target, dial func(ctx context.Context, network, addr string) (net.Conn, error)) (*gomysql.Config, error) {
	mc := gomysql.NewConfig()
	mc.User = d.s.user
	mc.Passwd = d.s.password
	mc.Net = t.network
	mc.Addr = t.addr
	mc.DBName = d.s.db
	mc.MultiStatements = true // CLIENT_MULTI_STATEMENTS, as the reference
	mc.InterpolateParams = false
	mc.CheckConnLiveness = false
	mc.AllowNativePasswords = true
	mc.AllowCleartextPasswords = d.s.tls != nil
	mc.Timeout = 30 * time.Second
	mc.Logger = &gomysql.NopLogger{}
	mc.DialFunc = dial
	if d.s.tls != nil {
		mc.TLS = d.s.tls.Clone()
		if mc.TLS.ServerName == "" && t.network == "tcp" {
			mc.TLS.ServerName = t.host
		}
		mc.AllowFallbackToPlaintext = d.s.tlsPrefer
	}
	if d.s.compress {
		if err := mc.Apply(gomysql.EnableCompression(true)); err != nil {
			return nil, err
		}
	}
	return mc, nil
}
