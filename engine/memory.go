package engine

import (
	"os"
	"runtime/debug"
	rtmetrics "runtime/metrics"
	"time"
)

// Memory: every worker holds a Lua state of a few hundred KiB, so with
// tens of workers the live heap is tens of MiB and with hundreds over
// 100 MiB, and the Go collector's default headroom (GOGC=100: as much
// garbage as live data) doubles it. A run makes little garbage next to
// that (a 64-thread oltp_read_write on PostgreSQL about 0.2 MB/s), so
// with the default the heap creeps up to twice the live data over the
// first minutes and the process's RSS with it (+20% between minute 1 and
// 10 of a soak). The engine therefore keeps fewer histogram shards than
// workers (metrics.Shards) and runs the collector with less headroom
// while the workers are created and during the run: a heap goal of a
// quarter of the live heap plus a few MiB over it, set in bytes when the
// workers are ready and kept (below), reached within the first minute of
// a soak and flat after it. What it costs in collections is measured in
// docs/performance.md (make bench, section gc).

// GC headroom: while the workers are created (most of the garbage of a
// run start: every worker compiles and runs its script), and the minimum
// for the run.
const (
	initGCPercent = 25
	minGCPercent  = 25
	// runGCSlack is garbage allowed beyond minGCPercent of the live heap
	// during the run; with small heaps (a few threads) it leaves the
	// default setting, whose collections of a few MiB cost nothing.
	runGCSlack = 4 << 20
)

// The run's heap goal is set in bytes when the workers are ready, from
// the live heap then, and kept: the live heap still grows by some 15%
// over a run's first minutes (a 64-thread oltp_read_write on PostgreSQL:
// 19 to 22 MiB as statements and Lua tables warm up), and a goal that
// followed it would raise RSS after the first minute, where a soak
// expects it flat. A watcher re-sets GOGC every second to keep that goal
// as the live heap moves, and raises the goal only when the live heap
// leaves less than goalFloorPercent of it + goalFloorSlack of headroom, so
// that a heap that keeps growing is never collected over and over.
const (
	goalFloorPercent = 20
	goalFloorSlack   = 2 << 20
	goalEvery        = time.Second
)

// gcPolicy lowers the collector's headroom (GOGC) for a run unless GOGC
// or GOMEMLIMIT is set in the environment, which it then leaves alone.
type gcPolicy struct {
	active bool
	prev   int // GC percent before the run

	goal uint64 // the run's heap goal in bytes, from running on
	pct  int    // the GC percent set for it
	stop chan struct{}
	done chan struct{}
}

// startGCPolicy applies the worker-initialisation setting.
func startGCPolicy() *gcPolicy {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return &gcPolicy{}
	}
	prev := debug.SetGCPercent(initGCPercent)
	if prev <= initGCPercent {
		// Off, or already as low: leave it.
		debug.SetGCPercent(prev)
		return &gcPolicy{}
	}
	return &gcPolicy{active: true, prev: prev}
}

// liveHeap is the live heap as of the last collection.
func liveHeap() uint64 {
	s := []rtmetrics.Sample{{Name: "/gc/heap/live:bytes"}}
	rtmetrics.Read(s)
	if s[0].Value.Kind() == rtmetrics.KindUint64 {
		return s[0].Value.Uint64()
	}
	return 0
}

// running sets the run's heap goal from the live heap once the workers
// are ready, and starts the watcher that keeps it.
func (p *gcPolicy) running() {
	if !p.active {
		return
	}
	live := liveHeap()
	pct := runGCPercent(live, p.prev)
	p.goal = live + live*uint64(pct)/100
	p.pct = pct
	debug.SetGCPercent(pct)
	if live == 0 {
		return
	}
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	go p.keepGoal()
}

// keepGoal re-sets the GC percent every goalEvery for the run's goal.
func (p *gcPolicy) keepGoal() {
	defer close(p.done)
	t := time.NewTicker(goalEvery)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
		var pct int
		p.goal, pct = keptGCPercent(liveHeap(), p.goal, p.prev)
		if pct != p.pct {
			p.pct = pct
			debug.SetGCPercent(pct)
		}
	}
}

// restore stops the watcher and puts back the setting from before the run.
func (p *gcPolicy) restore() {
	if !p.active {
		return
	}
	if p.stop != nil {
		close(p.stop)
		<-p.done
	}
	debug.SetGCPercent(p.prev)
}

// runGCPercent is the GC percent for a run whose live heap is live bytes:
// the heap may grow to live*(1+minGCPercent/100) + runGCSlack before the
// next collection, but never more than prev (the setting before the run)
// allows. Below some 5 MiB live, that is the default GOGC=100.
func runGCPercent(live uint64, prev int) int {
	if live == 0 {
		return prev
	}
	pct := minGCPercent + int(runGCSlack*100/live)
	return min(pct, prev)
}

// keptGCPercent is the goal and the GC percent that keeps the heap goal
// goal for a live heap of live bytes: the goal is raised to the floor
// (goalFloorPercent + goalFloorSlack of headroom) when live has grown into
// it, and the percent is never more than prev.
func keptGCPercent(live, goal uint64, prev int) (newGoal uint64, pct int) {
	if live == 0 {
		return goal, prev
	}
	floor := live + live*goalFloorPercent/100 + goalFloorSlack
	goal = max(goal, floor)
	pct = int((goal - live + live/200) * 100 / live) // rounded
	return goal, max(min(pct, prev), 1)
}
