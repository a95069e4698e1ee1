package engine

import (
	"context"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"sysbench-go/logging"
)

// hookTest is the engine tests' Test: onNewWorker runs as each worker is
// created and onEvent on every event (both optional); it keeps the final
// report's figures.
type hookTest struct {
	onNewWorker func()
	onEvent     func()

	mu    sync.Mutex
	final *Stat
}

func (h *hookTest) Name() string                             { return "hook" }
func (h *hookTest) PrintMode(io.Writer)                      {}
func (h *hookTest) Init(context.Context) error               { return nil }
func (h *hookTest) Done(context.Context) error               { return nil }
func (h *hookTest) ReportIntermediate(io.Writer, *Stat) bool { return false }
func (h *hookTest) ReportCumulative(_ io.Writer, s *Stat) bool {
	h.mu.Lock()
	c := *s
	h.final = &c
	h.mu.Unlock()
	return false
}
func (h *hookTest) NewWorker(context.Context, int, *WorkerStats) (Worker, error) {
	if h.onNewWorker != nil {
		h.onNewWorker()
	}
	return hookWorker{h}, nil
}

type hookWorker struct{ h *hookTest }

func (w hookWorker) Init(context.Context) error { return nil }
func (w hookWorker) Done(context.Context) error { return nil }
func (w hookWorker) Close()                     {}
func (w hookWorker) Event(context.Context) (bool, error) {
	if w.h.onEvent != nil {
		w.h.onEvent()
	}
	return false, nil
}

// Workers of a blocking driver get a processor each for the run, and the
// setting is restored after it.
func TestBlockingWorkersProcs(t *testing.T) {
	if os.Getenv("GOMAXPROCS") != "" {
		t.Skip("GOMAXPROCS is set in the environment, which the engine leaves alone")
	}
	before := runtime.GOMAXPROCS(0)
	threads := before + 3
	for _, blocking := range []bool{false, true} {
		var seen atomic.Int64 // GOMAXPROCS as the events see it
		p := &hookTest{onEvent: func() { seen.Store(int64(runtime.GOMAXPROCS(0))) }}
		cfg := Config{Threads: threads, Events: 100, BlockingWorkers: blocking, ForcedShutdown: -1}
		if err := Run(context.Background(), p, cfg, logging.Discard()); err != nil {
			t.Fatal(err)
		}
		want := int64(before)
		if blocking {
			want = int64(threads + 1)
		}
		if got := seen.Load(); got != want {
			t.Errorf("blocking=%v: GOMAXPROCS %d during the run, want %d", blocking, got, want)
		}
		if got := runtime.GOMAXPROCS(0); got != before {
			t.Errorf("blocking=%v: GOMAXPROCS %d after the run, want %d", blocking, got, before)
		}
	}
}

// Per-worker statistics, written on every event and query, never share a
// cache line with another worker's (see cacheLinePad).
func TestWorkerStatsOwnCacheLines(t *testing.T) {
	for name, n := range map[string]uintptr{
		"WorkerStats": unsafe.Sizeof(WorkerStats{}),
		"histShard":   unsafe.Sizeof(histShard{}),
	} {
		if n%cacheLinePad != 0 {
			t.Errorf("%s is %d bytes, not a multiple of %d", name, n, cacheLinePad)
		}
	}
}

// A worker's counts reach the reports at the end of each event, after
// pendingMax of them in a long event, and on Flush, never later.
func TestWorkerStatsPublish(t *testing.T) {
	w := NewWorkerStats(0)
	for i := 1; i < pendingMax; i++ {
		w.Inc(CntRead)
	}
	if c := w.load(); c[CntRead] != 0 {
		t.Fatalf("published %d reads before %d were pending", c[CntRead], pendingMax)
	}
	w.Add(CntWrite, 3)
	if c := w.load(); c[CntRead] != pendingMax-1 || c[CntWrite] != 3 {
		t.Fatalf("after %d counts: %v", pendingMax, c)
	}
	w.Inc(CntOther)
	w.recordEvent(1000)
	if c := w.load(); c[CntOther] != 1 || c[CntEvent] != 1 || c[CntRead] != pendingMax-1 {
		t.Fatalf("after an event: %v", c)
	}
	w.Inc(CntError)
	w.Flush()
	if c := w.load(); c[CntError] != 1 {
		t.Fatalf("after Flush: %v", c)
	}
}
