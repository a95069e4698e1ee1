package metrics

import (
	"sync"
	"time"
)

// Registry holds a run's handles, one per worker, and cuts what they
// record into snapshots.
type Registry struct {
	handles []*Handle
	shards  []*shard

	av *availability

	mu       sync.Mutex // one Tick at a time
	last     []Counts   // per handle: counters at the last tick
	lastTick time.Time
}

// maxShards bounds the latency histogram shards (one HDR histogram, about
// 170 KiB, each).
const maxShards = 64

// Shards is the number of latency histogram shards for threads workers:
// one per worker up to twice the CPUs (at least 8). Workers only contend
// for a shard's lock when they record an event's latency at the same
// instant; beyond the number of CPUs that can run them, more shards buy
// nothing but memory.
func Shards(threads, ncpu int) int {
	n := max(2*ncpu, 8)
	return max(min(threads, n, maxShards), 1)
}

// NewRegistry returns a registry of threads handles sharing nshards
// histograms; start begins the first window.
func NewRegistry(threads, nshards int, start time.Time) *Registry {
	r := &Registry{
		handles:  make([]*Handle, threads),
		shards:   make([]*shard, max(nshards, 1)),
		last:     make([]Counts, threads),
		lastTick: start,
	}
	for i := range r.shards {
		r.shards[i] = &shard{hist: NewHistogram()}
	}
	r.av = newAvailability(start)
	for i := range r.handles {
		r.handles[i] = &Handle{tid: i, shard: r.shards[i%len(r.shards)], av: r.av}
	}
	return r
}

// SetClock sets the run's clock the handles stamp completions and
// failures with (ns; the engine's, a test's fake one). Call it before the
// workers start.
func (r *Registry) SetClock(now func() int64) { r.av.now = now }

// Now is the run's clock.
func (r *Registry) Now() int64 { return r.av.now() }

// Handle is worker tid's handle.
func (r *Registry) Handle(tid int) *Handle { return r.handles[tid] }

// Handles are all the workers' handles.
func (r *Registry) Handles() []*Handle { return r.handles }

// Count is the workers' counter k so far, read off their published
// counters alone: no histogram is merged and no window starts, so it
// costs little next to a tick (the automatic warm-up reads the events
// ten times a second).
func (r *Registry) Count(k Counter) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var n uint64
	for _, h := range r.handles {
		n += h.counters[k].Load()
	}
	return n
}

// Tick returns what the workers recorded since the previous tick (or the
// registry's start) up to now, and starts the next window at now.
func (r *Registry) Tick(now time.Time) *Snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := &Snapshot{Start: r.lastTick, End: now, Threads: make([]Thread, len(r.handles)), Histogram: emptyHistogram}
	r.lastTick = now
	for i, h := range r.handles {
		c := h.Load()
		for k := range c {
			s.Counters[k] += c[k] - r.last[i][k]
		}
		r.last[i] = c
	}
	// A shard's histogram and its workers' timers are read under one lock,
	// so the percentiles and min/avg/max/sum cover the same events.
	for si, sh := range r.shards {
		sh.mu.Lock()
		if sh.hist.TotalCount() > 0 {
			// A window with no event (an idle run's) shares the empty
			// histogram rather than making one of its own.
			if s.Histogram == emptyHistogram {
				// The first shard's histogram is the window's: the shard
				// starts a new one, and no bucket is walked.
				s.Histogram, sh.hist = sh.hist, NewHistogram()
			} else {
				s.Histogram.Merge(sh.hist)
				sh.hist.Reset()
			}
		}
		for i := si; i < len(r.handles); i += len(r.shards) {
			h := r.handles[i]
			s.Hosts = h.tickHosts(s.Hosts, s.Start, now, r.last[i][CntEvent])
			s.Threads[i] = h.timer
			s.Latency.add(h.timer)
			h.timer = Thread{}
			for k, v := range h.errors {
				if s.Errors == nil {
					s.Errors = make(map[string]uint64)
				}
				s.Errors[k] += v
			}
			clear(h.errors)
			for k, v := range h.failures {
				if s.Failures == nil {
					s.Failures = make(map[string]Failure)
				}
				s.Failures[k] = s.Failures[k].add(v)
			}
			clear(h.failures)
		}
		sh.mu.Unlock()
	}
	return s
}
