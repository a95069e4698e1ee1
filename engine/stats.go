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

	// Per-thread timer, as sysbench's: events and total execution time
	// since the last checkpoint, plus min/max in nanoseconds.
	timer   timerStats
	running int64 // 1 while an event runs (atomic), for forced shutdown

	_ [16]byte // to 128 bytes: see cacheLinePad
}

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

// Inc adds one to a counter.
func (w *WorkerStats) Inc(c Counter) { w.counters[c].Add(1) }

// Add adds n to a counter.
func (w *WorkerStats) Add(c Counter, n uint64) { w.counters[c].Add(n) }

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
	w.counters[CntEvent].Add(1)
}

// cacheLinePad is the size that WorkerStats and histShard are padded to.
// Go allocates objects of a size class at multiples of that size within a
// page, so a 128-byte object owns two whole cache lines: one worker's
// atomics and locks never share a line (or the adjacent line the CPU
// fetches with it) with another's.
const cacheLinePad = 128
