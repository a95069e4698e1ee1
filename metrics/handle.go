// Package metrics measures a run: every worker records into a handle of
// its own, and a registry turns what the handles recorded into immutable
// snapshots that can be added (consecutive windows of one run) and merged
// (runs side by side). It prints nothing: the report package does.
package metrics

import (
	"math/bits"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Counter is a statistics counter, numbered as sysbench's SB_CNT_* (and as
// drivers.Counter, so the Lua layer converts by value).
type Counter int

// Counters in sysbench's order; CntEvent is SB_CNT_TRX in the Lua ffi view.
const (
	CntOther Counter = iota
	CntRead
	CntWrite
	CntEvent
	CntError
	CntReconnect
	CntMax // the end of sysbench's counters (SB_CNT_MAX)
)

// Counters beyond sysbench's, for --max-tries.
const (
	// CntRetry counts restarts of events after an ignored error.
	CntRetry Counter = CntMax + iota
	// CntRetriedEvent counts events restarted at least once.
	CntRetriedEvent
	// CntFailedEvent counts events given up after their last try.
	CntFailedEvent
	NumCounters
)

// Counts holds one value per counter.
type Counts [NumCounters]uint64

// Latencies are recorded in microseconds with 3 significant digits, from
// 1 µs to one hour; values outside are clamped into the range.
const (
	HistMinUS = 1
	HistMaxUS = 3600 * 1000 * 1000
	HistSig   = 3
)

// NewHistogram returns an empty latency histogram of the run's geometry.
func NewHistogram() *hdr.Histogram { return hdr.New(HistMinUS, HistMaxUS, HistSig) }

// Handle is one worker's statistics. Counters are atomics written only by
// their worker (no contention); latencies and the worker's own timer go
// into its shard under the shard's lock, which only the shard's workers
// and the registry's tick take. With more workers than shards, workers
// share a shard (one histogram is some 170 KiB).
type Handle struct {
	tid      int
	counters [NumCounters]atomic.Uint64
	shard    *shard

	// Counts not yet added to counters. Only the worker touches them, so
	// counting a query is a plain increment: an atomic add is a locked
	// instruction, ~3% of a dry run's CPU at one per query. They are
	// published when an event ends, when pendingMax have piled up in a
	// long one, and when the worker finishes (Flush).
	pending  Counts
	npending int32
	dirty    uint32 // a bit per counter with a pending count

	// Guarded by shard.mu: since the last tick.
	timer    Thread
	errors   map[string]uint64  // failed queries by code
	failures map[string]Failure // retries and failed events by code
	hosts    *hostLog           // the endpoints connected to (hosts.go)

	// running is when the running event started (the run's clock, ns),
	// 0 between events: for a forced shutdown and the outage detector.
	running atomic.Int64

	// For the outage detector (outage.go), on the run's clock (ns),
	// written by the worker only. lastFail is when its last query or try
	// failed. Guarded by shard.mu, which recording an event takes anyway
	// (no atomic instruction more per event): lastOK, when its last event
	// completed; recovered, when it completed the first after a gap (its
	// previous completion longer than the threshold ago, or a failure
	// since); failTotal, every failed try by code since the start.
	lastFail  atomic.Int64
	lastOK    int64
	recovered int64
	failTotal map[string]uint64
	av        *availability // shared by the registry's handles

	_ [112]byte // to 384 bytes: see cacheLinePad
}

// availability is what a registry's handles share for the outage
// detector: the threshold and the run's clock.
type availability struct {
	gap int64        // --outage-threshold in ns; 0: off
	now func() int64 // the run's clock, ns
}

// pendingMax is the most counts a worker holds back from the reports.
const pendingMax = 16

type shard struct {
	mu   sync.Mutex
	hist *hdr.Histogram // since the last tick

	_ [cacheLinePad - 16]byte
}

// cacheLinePad is the size that Handle and shard are padded to. Go
// allocates objects of a size class at multiples of that size within a
// page, so a 128-byte object owns two whole cache lines: one worker's
// atomics and locks never share a line (or the adjacent line the CPU
// fetches with it) with another's.
const cacheLinePad = 128

// NewHandle returns a handle outside a registry (for tests of tests).
func NewHandle(tid int) *Handle {
	return &Handle{tid: tid, shard: &shard{hist: NewHistogram()}, av: newAvailability(time.Now())}
}

func newAvailability(start time.Time) *availability {
	return &availability{now: func() int64 { return int64(time.Since(start)) + 1 }}
}

// TID is the worker's thread id.
func (h *Handle) TID() int { return h.tid }

// Inc adds one to a counter. Only the worker may call it.
func (h *Handle) Inc(c Counter) { h.Add(c, 1) }

// Add adds n to a counter. Only the worker may call it.
func (h *Handle) Add(c Counter, n uint64) {
	h.pending[c] += n
	h.dirty |= 1 << c
	h.npending++
	if h.npending >= pendingMax || rareCounters&(1<<c) != 0 {
		h.Flush()
	}
}

// rareCounters are published at once: errors, reconnects and retries are
// few, and an outage's are to be counted while it lasts, not when the
// worker's next event completes.
const rareCounters = 1<<CntError | 1<<CntReconnect | 1<<CntRetry | 1<<CntRetriedEvent | 1<<CntFailedEvent

// IncShared adds one to a counter from outside the worker's goroutine.
func (h *Handle) IncShared(c Counter) { h.counters[c].Add(1) }

// Flush publishes the worker's pending counts.
func (h *Handle) Flush() {
	for d := h.dirty; d != 0; d &= d - 1 {
		i := bits.TrailingZeros32(d)
		h.counters[i].Add(h.pending[i])
		h.pending[i] = 0
	}
	h.dirty, h.npending = 0, 0
}

// Load returns the published counters.
func (h *Handle) Load() (c Counts) {
	for i := range c {
		c[i] = h.counters[i].Load()
	}
	return c
}

// Error counts a failed query (an ignored error restarts the event)
// under its code: a driver error number or an SQLSTATE ("" when the error
// has none). Only the worker may call it.
func (h *Handle) Error(code string) {
	h.Inc(CntError)
	h.lastFail.Store(h.av.now())
	if code == "" {
		return
	}
	s := h.shard
	s.mu.Lock()
	if h.errors == nil {
		h.errors = make(map[string]uint64)
	}
	h.errors[code]++
	s.mu.Unlock()
}

// Retry counts a restart of the running event after an ignored error
// with code; first says it is the event's first restart. Only the worker
// may call it.
func (h *Handle) Retry(code string, first bool) {
	h.failure(code, Failure{Retries: 1}, func() {
		h.Inc(CntRetry)
		if first {
			h.Inc(CntRetriedEvent)
		}
	})
}

// Fail counts the running event as failed: its last try ended with an
// ignored error with code and no try is left. Only the worker may call it.
func (h *Handle) Fail(code string) {
	h.failure(code, Failure{Failed: 1}, func() { h.Inc(CntFailedEvent) })
}

// failure records a failed try by code, and publishes its counters (inc)
// under the same shard lock: the outage detector, which reads both under
// every shard's lock, sees the counters and the failures by code agree
// (it rebuilds its failures by code only when the counters moved).
func (h *Handle) failure(code string, f Failure, inc func()) {
	h.lastFail.Store(h.av.now())
	s := h.shard
	s.mu.Lock()
	if h.failures == nil {
		h.failures = make(map[string]Failure)
		h.failTotal = make(map[string]uint64)
	}
	h.failures[code] = h.failures[code].add(f)
	h.failTotal[code]++
	inc()
	s.mu.Unlock()
}

// SetRunning marks whether an event is running on the worker.
func (h *Handle) SetRunning(on bool) {
	var v int64
	if on {
		v = h.av.now()
	}
	h.running.Store(v)
}

// Started marks an event as running on the worker since at, on the run's
// clock (ns, never 0); Abandon or a recorded event ends it.
func (h *Handle) Started(at int64) { h.running.Store(at) }

// Running reports whether an event is running on the worker.
func (h *Handle) Running() bool { return h.running.Load() != 0 }

// RecordEvent counts one finished event of the given latency in
// nanoseconds and publishes the worker's counts.
func (h *Handle) RecordEvent(ns int64) {
	h.RecordEventAt(ns, h.av.now())
}

// RecordEventAt is RecordEvent for an event that completed at at, on the
// run's clock (the engine has read it already).
func (h *Handle) RecordEventAt(ns, at int64) {
	us := (ns + 500) / 1000
	if us < HistMinUS {
		us = HistMinUS
	} else if us > HistMaxUS {
		us = HistMaxUS
	}
	s := h.shard
	s.mu.Lock()
	_ = s.hist.RecordValue(us)
	h.timer.record(ns)
	if at-h.lastOK > h.av.gap || h.lastFail.Load() > h.lastOK {
		h.recovered = at
	}
	h.lastOK = at
	s.mu.Unlock()
	h.running.Store(0)
	h.pending[CntEvent]++
	h.dirty |= 1 << CntEvent
	h.Flush()
}
