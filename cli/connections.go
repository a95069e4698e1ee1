package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/luaapi"
	"github.com/sysbench-go/sysbench-go/options"
	"github.com/sysbench-go/sysbench-go/report"
)

// connectionOptions are the connection models (docs/availability.md,
// "Connection models") and the checks a run passes before it starts
// ("Refused up front").
var connectionOptions = []options.Option{
	{Name: "reconnect", Extension: true, Desc: "open a new connection every N events, per thread: each connection the thread's script opened is closed and opened again (its prepared statements are prepared again), counted as a reconnect; 0 keeps them, as sysbench 1.1's --reconnect", Kind: options.Int, Default: "0"},
	{Name: "conn-lifetime", Extension: true, Desc: "give each connection a lifetime drawn uniformly between MIN and MAX (again for each new connection) and open a new one when it is over: events (100:1000) or seconds (5s:30s)", Kind: options.String, Placeholder: "=MIN:MAX", NoDefault: true},
	{Name: "idle-connections", Extension: true, Desc: "open N connections more before the run, spread over the hosts as the threads' are, and hold them idle until it ends (a keepalive ping every 30 seconds, or a third of the server's idle timeout when shorter), as an application's pool holds connections; the report counts them", Kind: options.Int, Default: "0"},
	{Name: "skip-checks", Extension: true, Desc: "run even when the settings say the run cannot succeed (threads and idle connections above the server's max_connections, an account's, role's or database's connection limit or the open files limit; statements above max_prepared_stmt_count)", Kind: options.Bool, Default: "off"},
}

// keepaliveEvery is how often an idle connection is pinged: well below
// the idle timeouts servers and proxies are set to (MySQL's wait_timeout
// is 8 hours by default, often lowered to minutes; PostgreSQL's
// idle_session_timeout is off by default), or a third of the server's
// own when it is shorter (keepaliveFor).
const keepaliveEvery = 30 * time.Second

// keepaliveFor is the ping interval for a server that closes connections
// idle for idle (0: never).
func keepaliveFor(idle time.Duration) time.Duration {
	if idle <= 0 {
		return keepaliveEvery
	}
	return max(min(keepaliveEvery, idle/3), 10*time.Millisecond)
}

// connectionsSpec is the connection settings of a run.
type connectionsSpec struct {
	model      luaapi.ConnectionModel
	idle       int
	skipChecks bool
	// keepalive is the idle connections' ping interval (keepaliveFor the
	// server's idle timeout, read with its limits).
	keepalive time.Duration
}

// parseConnections reads --reconnect, --conn-lifetime, --idle-connections
// and --skip-checks.
func parseConnections(v *options.Values) (connectionsSpec, error) {
	var c connectionsSpec
	every, err := v.Int("reconnect")
	if err != nil || every < 0 {
		return c, fmt.Errorf("Invalid value for --reconnect: '%s' (events, 0 or more)", v.String("reconnect"))
	}
	c.model.Every = every
	if s, ok := v.Raw("conn-lifetime"); ok && strings.TrimSpace(s) != "" {
		if every > 0 {
			return c, errors.New("--reconnect and --conn-lifetime cannot be combined: choose one")
		}
		if c.model, err = parseLifetime(s); err != nil {
			return c, err
		}
	}
	idle, err := v.Int("idle-connections")
	if err != nil || idle < 0 || idle > 1<<20 {
		return c, fmt.Errorf("Invalid value for --idle-connections: '%s' (a count, 0 or more)", v.String("idle-connections"))
	}
	c.idle = int(idle)
	c.skipChecks = v.Bool("skip-checks")
	c.keepalive = keepaliveEvery
	return c, nil
}

// parseLifetime reads MIN:MAX, both events or both seconds ("5s:30s",
// fractions allowed); a single value is a fixed lifetime.
func parseLifetime(s string) (luaapi.ConnectionModel, error) {
	var m luaapi.ConnectionModel
	bad := fmt.Errorf("Invalid value for --conn-lifetime: '%s' (MIN:MAX in events, e.g. 100:1000, or in seconds, e.g. 5s:30s)", s)
	lo, hi, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok {
		hi = lo
	}
	lo, hi = strings.TrimSpace(lo), strings.TrimSpace(hi)
	loS, hiS := strings.HasSuffix(lo, "s"), strings.HasSuffix(hi, "s")
	if loS != hiS {
		return m, bad
	}
	m.Timed = loS
	for i, part := range []string{lo, hi} {
		var n int64
		if m.Timed {
			f, err := strconv.ParseFloat(strings.TrimSuffix(part, "s"), 64)
			if err != nil || !(f > 0) || f > 1e9 {
				return m, bad
			}
			n = int64(f * float64(time.Second))
		} else {
			var err error
			if n, err = strconv.ParseInt(part, 10, 64); err != nil || n <= 0 {
				return m, bad
			}
		}
		if i == 0 {
			m.LifetimeMin = n
		} else {
			m.LifetimeMax = n
		}
	}
	if m.LifetimeMax < m.LifetimeMin {
		return m, bad
	}
	return m, nil
}

// applyConnectionModel hands the run's connection model to the script,
// unless the script declares its own --reconnect (sysbench 1.1's OLTP
// scripts): it then reconnects itself, and does so once.
func applyConnectionModel(spec *runSpec, s *luaapi.Script, env *luaapi.Env) {
	m := spec.conns.model
	if m.Every > 0 {
		for _, o := range s.Options() {
			if options.Canonical(o.Name) == "reconnect" {
				return
			}
		}
	}
	env.Connections = m
}

// idlePool is --idle-connections: connections held open and unused
// beside the threads', pinged now and then so that the server's or a
// proxy's idle timeout keeps them.
type idlePool struct {
	drv    drivers.Driver
	conns  []drivers.Conn
	cancel context.CancelFunc
	done   chan struct{}
}

// openIdle opens n idle connections with their own driver (its
// round-robin spreads them over the hosts as the threads' are) and starts
// their keepalive.
func openIdle(ctx context.Context, f *drivers.Factory, cfg drivers.Config, n int, every time.Duration) (*idlePool, error) {
	cfg.Log = nil // the pool's failures are said once, here
	d, err := f.Open(cfg)
	if err != nil {
		return nil, fmt.Errorf("--idle-connections: %v", err)
	}
	p := &idlePool{drv: d, conns: make([]drivers.Conn, n), done: make(chan struct{})}
	// A few at a time: a remote server's round trips add up over
	// hundreds.
	var wg sync.WaitGroup
	errs := make([]error, n)
	sem := make(chan struct{}, 16)
	for i := range p.conns {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			p.conns[i], errs[i] = d.Connect(ctx)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			p.closeConns()
			return nil, fmt.Errorf("--idle-connections: cannot open connection %d of %d: %v", i+1, n, connectMessage(err))
		}
	}
	kctx, cancel := context.WithCancel(ctx)
	p.cancel = cancel
	go p.keepalive(kctx, every)
	return p, nil
}

// connectMessage is a driver's connect error without its code.
func connectMessage(err error) string {
	if de := drivers.AsError(err); de != nil {
		return de.Msg
	}
	return err.Error()
}

// keepalive pings every connection each every; one that was lost is
// opened again.
func (p *idlePool) keepalive(ctx context.Context, every time.Duration) {
	defer close(p.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for _, c := range p.conns {
			if ctx.Err() != nil {
				return
			}
			if res, err := c.Query(ctx, "SELECT 1"); err == nil {
				res.Close()
			} else if ctx.Err() == nil {
				_ = drivers.Reopen(ctx, c)
			}
		}
	}
}

// close stops the keepalive and closes the connections.
func (p *idlePool) close() {
	if p == nil {
		return
	}
	p.cancel()
	<-p.done
	p.closeConns()
}

func (p *idlePool) closeConns() {
	for _, c := range p.conns {
		if c != nil {
			_ = c.Close()
		}
	}
	_ = p.drv.Close()
}

// connectionsReport is the report's count of open connections, nil when
// the run held no idle ones.
func connectionsReport(spec *runSpec, env *luaapi.Env) *report.Connections {
	if spec.conns.idle == 0 || env == nil {
		return nil
	}
	active := spec.cfg.Threads
	if env != nil && env.PeakConnections() > 0 {
		active = env.PeakConnections()
	}
	return &report.Connections{Active: active, Idle: spec.conns.idle, KeepaliveSeconds: spec.conns.keepalive.Seconds()}
}

// openIdle opens --idle-connections' pool for a script's run; nil
// without.
func (p *program) openIdle(spec *runSpec, env *luaapi.Env) (*idlePool, error) {
	n := spec.conns.idle
	if n == 0 || env == nil {
		return nil, nil
	}
	f := p.driverFactory(env.DriverName)
	if f == nil {
		return nil, fmt.Errorf("invalid database driver name: '%s'", env.DriverName)
	}
	return openIdle(p.ctx, f, env.DriverConfig, n, spec.conns.keepalive)
}

// givenConnectionOptions are the connection options the run was given
// (for a test that opens no connection to say so).
func givenConnectionOptions(v *options.Values) []string {
	var out []string
	for _, o := range connectionOptions {
		if o.Name != "skip-checks" && v.IsSet(o.Name) {
			out = append(out, o.Name)
		}
	}
	return out
}
