package metrics

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"
	"unsafe"
)

func TestShards(t *testing.T) {
	tests := []struct{ threads, ncpu, want int }{
		{1, 2, 1},
		{2, 2, 2},
		{8, 2, 8},
		{512, 2, 8},
		{512, 6, 12},
		{20, 16, 20},
		{512, 16, 32},
		{512, 64, maxShards},
		{0, 2, 1},
	}
	for _, tt := range tests {
		if got := Shards(tt.threads, tt.ncpu); got != tt.want {
			t.Errorf("Shards(%d, %d) = %d, want %d", tt.threads, tt.ncpu, got, tt.want)
		}
	}
}

// Per-worker statistics, written on every event and query, never share a
// cache line with another worker's (see cacheLinePad).
func TestHandleOwnCacheLines(t *testing.T) {
	for name, n := range map[string]uintptr{
		"Handle": unsafe.Sizeof(Handle{}),
		"shard":  unsafe.Sizeof(shard{}),
	} {
		if n%cacheLinePad != 0 {
			t.Errorf("%s is %d bytes, not a multiple of %d", name, n, cacheLinePad)
		}
	}
}

// A worker's counts reach the registry at the end of each event, after
// pendingMax of them in a long event, and on Flush, never later.
func TestHandlePublish(t *testing.T) {
	h := NewHandle(0)
	for i := 1; i < pendingMax; i++ {
		h.Inc(CntRead)
	}
	if c := h.Load(); c[CntRead] != 0 {
		t.Fatalf("published %d reads before %d were pending", c[CntRead], pendingMax)
	}
	h.Add(CntWrite, 3)
	if c := h.Load(); c[CntRead] != pendingMax-1 || c[CntWrite] != 3 {
		t.Fatalf("after %d counts: %v", pendingMax, c)
	}
	h.Inc(CntOther)
	h.RecordEvent(1000)
	if c := h.Load(); c[CntOther] != 1 || c[CntEvent] != 1 || c[CntRead] != pendingMax-1 {
		t.Fatalf("after an event: %v", c)
	}
	h.Error("1213")
	h.Flush()
	if c := h.Load(); c[CntError] != 1 {
		t.Fatalf("after Flush: %v", c)
	}
}

var t0 = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

// Ticks cut what the workers record into windows that add up to the
// whole: counters, per-thread timers, errors by code, the histogram.
func TestTicksAddUp(t *testing.T) {
	r := NewRegistry(3, 2, t0)
	var want []int64
	var whole *Snapshot = Empty(t0, 3)
	for tick := 1; tick <= 4; tick++ {
		for tid := range 3 {
			h := r.Handle(tid)
			for i := range tick * (tid + 1) {
				ns := int64(1000 * (1 + i + 10*tid + 100*tick))
				h.Inc(CntRead)
				h.RecordEvent(ns)
				want = append(want, ns)
			}
			if tid == 1 {
				h.Error("40001")
				h.Flush()
			}
		}
		d := r.Tick(t0.Add(time.Duration(tick) * time.Second))
		if got, want := d.Duration(), time.Second; got != want {
			t.Fatalf("tick %d: window of %v, want %v", tick, got, want)
		}
		if n := d.Counters[CntEvent]; n != uint64(6*tick) {
			t.Fatalf("tick %d: %d events, want %d", tick, n, 6*tick)
		}
		whole = whole.Add(d)
	}
	slices.Sort(want)
	if whole.Counters[CntEvent] != uint64(len(want)) || whole.Counters[CntRead] != uint64(len(want)) {
		t.Errorf("counters %v, want %d events and reads", whole.Counters, len(want))
	}
	if whole.Latency.Events != uint64(len(want)) || whole.Histogram.TotalCount() != int64(len(want)) {
		t.Errorf("latency of %d events, histogram of %d, want %d", whole.Latency.Events, whole.Histogram.TotalCount(), len(want))
	}
	if whole.Latency.MinNS != want[0] || whole.Latency.MaxNS != want[len(want)-1] {
		t.Errorf("min/max %d/%d, want %d/%d", whole.Latency.MinNS, whole.Latency.MaxNS, want[0], want[len(want)-1])
	}
	var sum int64
	for _, v := range want {
		sum += v
	}
	if whole.Latency.SumNS != sum {
		t.Errorf("sum %d, want %d", whole.Latency.SumNS, sum)
	}
	if got := whole.Errors["40001"]; got != 4 || whole.Counters[CntError] != 4 {
		t.Errorf("errors by code %v (counter %d), want 4 of 40001", whole.Errors, whole.Counters[CntError])
	}
	for tid, th := range whole.Threads {
		if want := uint64(10 * (tid + 1)); th.Events != want {
			t.Errorf("thread %d: %d events, want %d", tid, th.Events, want)
		}
	}
	if !whole.Start.Equal(t0) || !whole.End.Equal(t0.Add(4*time.Second)) {
		t.Errorf("window %v..%v", whole.Start, whole.End)
	}
}

// Percentiles stay within the observed min and max, though the HDR
// bucket of a value reaches past it.
func TestPercentileWithinObserved(t *testing.T) {
	r := NewRegistry(1, 1, t0)
	r.Handle(0).RecordEvent(1_234_567)
	s := r.Tick(t0.Add(time.Second))
	for _, p := range []float64{1, 50, 99.9, 100} {
		if v := s.Percentile(p); v != 1_234_567 {
			t.Errorf("p%v = %d, want the one value 1234567", p, v)
		}
	}
	if v := Empty(t0, 1).Percentile(95); v != 0 {
		t.Errorf("p95 of nothing = %d", v)
	}
}

// Merging two runs gives the counters' sums, every thread, the union of
// the windows, and percentiles equal (within the histogram's precision)
// to those of all the values recorded.
func TestMergeIsTheUnion(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var all []int64
	run := func(start time.Time, threads int, scale float64) *Snapshot {
		r := NewRegistry(threads, threads, start)
		for tid := range threads {
			for range 5000 {
				ns := int64(rng.ExpFloat64() * scale)
				ns = max(ns, 1000)
				r.Handle(tid).RecordEvent(ns)
				all = append(all, ns)
			}
		}
		return r.Tick(start.Add(10 * time.Second))
	}
	a := run(t0, 2, 2e6)
	b := run(t0.Add(3*time.Second), 3, 5e6)
	m := Merge(a, b)
	if m.Counters[CntEvent] != a.Counters[CntEvent]+b.Counters[CntEvent] || m.Counters[CntEvent] != 25000 {
		t.Errorf("merged %d events", m.Counters[CntEvent])
	}
	if len(m.Threads) != 5 {
		t.Errorf("merged %d threads, want 5", len(m.Threads))
	}
	if !m.Start.Equal(t0) || !m.End.Equal(t0.Add(13*time.Second)) {
		t.Errorf("merged window %v..%v", m.Start, m.End)
	}
	slices.Sort(all)
	for _, p := range []float64{50, 90, 95, 99, 99.9} {
		exact := all[int(float64(len(all))*p/100+0.5)-1]
		got := m.Percentile(p)
		if d := float64(got-exact) / float64(exact); d < -0.002 || d > 0.002 {
			t.Errorf("p%v = %d, the recorded values' is %d (%.3f%% off)", p, got, exact, d*100)
		}
	}
	// Merging leaves its inputs as they were.
	if a.Counters[CntEvent] != 10000 || a.Histogram.TotalCount() != 10000 || len(a.Threads) != 2 {
		t.Errorf("merge changed its input: %v", a.Counters)
	}
}

// Workers record while the reporter ticks: nothing is lost or counted
// twice (run with -race).
func TestTickWhileRecording(t *testing.T) {
	const threads, events = 4, 20000
	r := NewRegistry(threads, 2, t0)
	var wg sync.WaitGroup
	for tid := range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := r.Handle(tid)
			for i := range events {
				h.Inc(CntWrite)
				if i%100 == 0 {
					h.Error("1213")
				}
				h.RecordEvent(int64(1000 + i))
			}
			h.Flush()
		}()
	}
	whole := Empty(t0, threads)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	at := t0
	for ticking := true; ticking; {
		select {
		case <-done:
			ticking = false
		default:
		}
		at = at.Add(time.Millisecond)
		whole = whole.Add(r.Tick(at))
	}
	c := whole.Counters
	if c[CntEvent] != threads*events || c[CntWrite] != threads*events || whole.Latency.Events != threads*events ||
		whole.Histogram.TotalCount() != threads*events || c[CntError] != threads*events/100 ||
		whole.Errors["1213"] != threads*events/100 {
		t.Errorf("counters %v, timed %d, histogram %d, errors %v", c, whole.Latency.Events, whole.Histogram.TotalCount(), whole.Errors)
	}
}
