package engine

import (
	"time"

	"github.com/sysbench-go/sysbench-go/metrics"
)

// LiveView is the running benchmark as an observer sees it between
// reports (--metrics-addr): safe to call from any goroutine.
type LiveView interface {
	// Totals is everything measured since the workers started, the
	// warm-up included: counters only grow. It is the caller's to keep.
	Totals() *metrics.Snapshot
	// ThreadsRunning is how many workers are still running.
	ThreadsRunning() int
	// Outages is what the run's outages were so far: how many ended,
	// their seconds with those of the one on now (which only grow), and
	// whether one is on now; zeros without --outage-threshold.
	Outages() (ended int, seconds float64, now bool)
	// Clock is where the run is in its time (a terminal's progress).
	Clock() Clock
}

// Clock is where a run is in its time: in its warm-up or its measured
// window, how long since that began, and what bounds the run.
type Clock struct {
	// Warmup is true during --warmup-time; Elapsed is then the warm-up's
	// and Length its length (its longest when automatic, WarmupAuto).
	Warmup     bool
	WarmupAuto bool
	// Elapsed is the time since the measured window (or the warm-up)
	// began; Length is --time, 0 for none.
	Elapsed time.Duration
	Length  time.Duration
	// Events is --events, 0 for no limit.
	Events uint64
}

type liveView struct{ r *runState }

func (v liveView) Totals() *metrics.Snapshot {
	r := v.r
	r.repMu.Lock()
	defer r.repMu.Unlock()
	r.tick(r.now())
	return r.lifetime.Snapshot()
}

func (v liveView) ThreadsRunning() int { return int(v.r.threadsRun.Load()) }

func (v liveView) Outages() (int, float64, bool) {
	if v.r.outages == nil {
		return 0, 0, false
	}
	n, ns := v.r.outages.Status(v.r.now())
	return n, float64(ns) / 1e9, v.r.outages.Open()
}

func (v liveView) Clock() Clock {
	r := v.r
	r.repMu.Lock()
	warming, start := r.warming, r.startNS
	r.repMu.Unlock()
	c := Clock{Warmup: warming, Elapsed: time.Duration(r.now() - start), Length: r.cfg.Time, Events: r.cfg.Events}
	if warming {
		c.WarmupAuto, c.Length = r.cfg.WarmupAuto, r.cfg.Warmup
	}
	return c
}

// addLifetime adds what the workers recorded since the last tick to the
// lifetime window, when an observer reads it. Caller holds repMu.
func (r *runState) addLifetime(d *metrics.Snapshot) {
	if r.lifetime != nil {
		r.lifetime.Add(d)
	}
}
