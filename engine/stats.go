package engine

import (
	"sync"
	"sync/atomic"

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
	CntMax
)

// Latencies are recorded in microseconds with 3 significant digits, from
// 1 µs to one hour; values outside are clamped into the range.
const (
	histMinUS = 1
	histMaxUS = 3600 * 1000 * 1000
	histSig   = 3
)

func newHist() *hdr.Histogram { return hdr.New(histMinUS, histMaxUS, histSig) }

// WorkerStats is one worker's statistics handle. Counters are atomics
// written only by their worker (no contention); latencies go into a
// histogram guarded by a lock that only the worker and the reporter's tick
// take. With more workers than histogram shards, workers share a shard.
type WorkerStats struct {
	tid      int
	counters [CntMax]atomic.Uint64
	shard    *histShard

	// Counts not yet added to counters. Only the worker touches them, so
	// counting a query is a plain increment: an atomic add is a locked
	// instruction, ~3% of a dry run's CPU at one per query. They are
	// published when an event ends, when pendingMax have piled up in a
	// long one, and when the worker finishes (Flush).
	pending  [CntMax]uint64
	npending int

	// Per-thread timer, as sysbench's: events and total execution time
	// since the last checkpoint, plus min/max in nanoseconds.
	timer   timerStats
	running int64 // 1 while an event runs (atomic), for forced shutdown

	_ [88]byte // to 256 bytes: see cacheLinePad
}

// pendingMax is the most counts a worker holds back from the reports.
const pendingMax = 16

type timerStats struct {
	mu     sync.Mutex
	events uint64
	sumNS  int64
	minNS  int64
	maxNS  int64
}

type histShard struct {
	mu   sync.Mutex
	hist *hdr.Histogram // since the last intermediate tick

	_ [cacheLinePad - 16]byte
}

// Inc adds one to a counter. Only the worker may call it.
func (w *WorkerStats) Inc(c Counter) { w.Add(c, 1) }

// Add adds n to a counter. Only the worker may call it.
func (w *WorkerStats) Add(c Counter, n uint64) {
	w.pending[c] += n
	w.npending++
	if w.npending >= pendingMax {
		w.Flush()
	}
}

// IncShared adds one to a counter from outside the worker's goroutine.
func (w *WorkerStats) IncShared(c Counter) { w.counters[c].Add(1) }

// Flush publishes the worker's pending counts to the reports.
func (w *WorkerStats) Flush() {
	for i, n := range w.pending {
		if n != 0 {
			w.counters[i].Add(n)
			w.pending[i] = 0
		}
	}
	w.npending = 0
}

// TID is the worker's thread id.
func (w *WorkerStats) TID() int { return w.tid }

// recordEvent counts one finished event of the given latency.
func (w *WorkerStats) recordEvent(ns int64) {
	us := (ns + 500) / 1000
	if us < histMinUS {
		us = histMinUS
	} else if us > histMaxUS {
		us = histMaxUS
	}
	w.shard.mu.Lock()
	_ = w.shard.hist.RecordValue(us)
	w.shard.mu.Unlock()

	t := &w.timer
	t.mu.Lock()
	if t.events == 0 || ns < t.minNS {
		t.minNS = ns
	}
	if ns > t.maxNS {
		t.maxNS = ns
	}
	t.events++
	t.sumNS += ns
	t.mu.Unlock()
	w.pending[CntEvent]++
	w.Flush()
}

// cacheLinePad is the size that WorkerStats and histShard are padded to.
// Go allocates objects of a size class at multiples of that size within a
// page, so a 128-byte object owns two whole cache lines: one worker's
// atomics and locks never share a line (or the adjacent line the CPU
// fetches with it) with another's.
const cacheLinePad = 128
