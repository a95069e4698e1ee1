package luaapi

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/metrics"
	"github.com/sysbench-go/sysbench-go/sbrand"
)

// ConnectionModel is how a thread renews the connections its script
// opened while the run goes on: every Every events (--reconnect, as
// sysbench 1.1's OLTP scripts), or each after a lifetime drawn uniformly
// between LifetimeMin and LifetimeMax (--conn-lifetime), in events or,
// with Timed, in nanoseconds. The zero value renews nothing.
type ConnectionModel struct {
	Every                    int64
	LifetimeMin, LifetimeMax int64
	Timed                    bool
}

// On reports whether the model renews connections.
func (m ConnectionModel) On() bool { return m.Every > 0 || m.LifetimeMax > 0 }

// renewal is one thread's side of the ConnectionModel.
type renewal struct {
	m      ConnectionModel
	rt     *runtime
	events int64
	// rand draws lifetimes: a stream forked from the thread's own, so
	// that --rand-seed repeats them and the script's draws stay as
	// they are without the option.
	rand  *sbrand.Rand
	start time.Time
}

// lifetimeStream is mixed into the thread's generator state to fork the
// lifetimes' stream from it.
const lifetimeStream = 0x9e3779b97f4a7c15

func newRenewal(m ConnectionModel, rt *runtime) *renewal {
	r := &renewal{m: m, rt: rt, start: time.Now()}
	if m.LifetimeMax > 0 {
		s0, s1 := rt.rand.State()
		r.rand = sbrand.FromState(s0^lifetimeStream, s1+lifetimeStream)
	}
	return r
}

// now is the thread's clock for lifetimes: events done, or nanoseconds.
func (r *renewal) now() int64 {
	if r.m.Timed {
		return int64(time.Since(r.start))
	}
	return r.events
}

// lifetime draws a connection's lifetime.
func (r *renewal) lifetime() int64 {
	lo, hi := r.m.LifetimeMin, r.m.LifetimeMax
	if hi <= lo {
		return lo
	}
	return lo + int64(r.rand.Uint64()%uint64(hi-lo+1))
}

// afterEvent renews the connections that are due once an event ended:
// every open one each Every events, or those whose lifetime is over. A
// connection's lifetime counts from the end of the first event it saw
// (its opening, for those opened in thread_init).
func (r *renewal) afterEvent() error {
	r.events++
	if r.m.Every > 0 {
		if r.events%r.m.Every != 0 {
			return nil
		}
		for _, c := range r.rt.conns {
			if !c.closed {
				if err := c.renew(); err != nil {
					return err
				}
			}
		}
		return nil
	}
	now := r.now()
	for _, c := range r.rt.conns {
		switch {
		case c.closed:
		case c.renewAt == 0:
			base := now
			if !r.m.Timed {
				base = r.events - 1
			}
			c.renewAt = base + r.lifetime()
		case now >= c.renewAt:
			if err := c.renew(); err != nil {
				return err
			}
			c.renewAt = now + r.lifetime()
		}
	}
	return nil
}

// renew closes the connection and opens a new one with the same
// settings, counted as a reconnect; its statements stay usable (the
// driver prepares them again). It works under the queries' context: the
// end of --time does not cut it short, leaving the connection closed for
// thread_done.
func (c *sqlConn) renew() error {
	ctx := c.ctx()
	c.dropResult()
	if err := drivers.Reopen(ctx, c.conn); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		c.rt.count(metrics.CntError)
		return &ScriptError{Msg: fmt.Sprintf("cannot open a new connection: %v", err)}
	}
	c.rt.count(metrics.CntReconnect)
	c.connected() // a renewal may land on another host of the list
	return nil
}

// Reopen passes the renewal on to the timed connection's driver.
func (c *timedConn) Reopen(ctx context.Context) error { return drivers.Reopen(ctx, c.Conn) }

var _ drivers.Reopener = (*timedConn)(nil)

// eventEnded runs what follows each event of the thread: the renewal of
// its connections, when on.
func (rt *runtime) eventEnded() error {
	if rt.renew == nil {
		return nil
	}
	return rt.renew.afterEvent()
}

// heldConnections counts the connections the run's threads hold, and the
// most they held at once. Connections open and close rarely (not per
// event), so one counter for the run costs nothing.
type heldConnections struct {
	open, peak atomic.Int64
}

// held counts a thread's connection opened (+1) or closed (-1).
func (rt *runtime) held(n int64) {
	if rt.stats == nil {
		return
	}
	h := &rt.env.held
	now := h.open.Add(n)
	for {
		p := h.peak.Load()
		if now <= p || h.peak.CompareAndSwap(p, now) {
			return
		}
	}
}

// PeakConnections is the most connections the run's threads held at once.
func (env *Env) PeakConnections() int { return int(env.held.peak.Load()) }
