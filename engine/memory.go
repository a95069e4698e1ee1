package engine

import (
	"os"
	"runtime/debug"
	rtmetrics "runtime/metrics"
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
// while the workers are created and during the run: a quarter of the
// live heap plus a few MiB, reached within the first minute of a soak and
// flat after it. What it costs in collections is measured in
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

// gcPolicy lowers the collector's headroom (GOGC) for a run unless GOGC
// or GOMEMLIMIT is set in the environment, which it then leaves alone.
type gcPolicy struct {
	active bool
	prev   int // GC percent before the run
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

// running sets the run's headroom from the live heap once the workers are
// ready.
func (p *gcPolicy) running() {
	if !p.active {
		return
	}
	s := []rtmetrics.Sample{{Name: "/gc/heap/live:bytes"}}
	rtmetrics.Read(s)
	var live uint64
	if s[0].Value.Kind() == rtmetrics.KindUint64 {
		live = s[0].Value.Uint64()
	}
	debug.SetGCPercent(runGCPercent(live, p.prev))
}

// restore puts back the setting from before the run.
func (p *gcPolicy) restore() {
	if p.active {
		debug.SetGCPercent(p.prev)
	}
}

// runGCPercent is the GC percent for a run whose live heap is live bytes:
// the heap may grow to live*(1+minGCPercent/100) + runGCSlack before the
// next collection (the percent then scales with the live heap, should it
// grow), but never more than prev (the setting before the run) allows.
// Below some 5 MiB live, that is the default GOGC=100.
func runGCPercent(live uint64, prev int) int {
	if live == 0 {
		return prev
	}
	pct := minGCPercent + int(runGCSlack*100/live)
	return min(pct, prev)
}
