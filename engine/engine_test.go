package engine

import (
	"context"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sysbench-go/sysbench-go/logging"
	"github.com/sysbench-go/sysbench-go/metrics"
	"github.com/sysbench-go/sysbench-go/report"
)

// hookTest is the engine tests' Test: onNewWorker runs as each worker is
// created and onEvent (or onWorkerEvent, given the worker's number) on
// every event (all optional); it keeps the final report's figures.
type hookTest struct {
	onNewWorker   func()
	onEvent       func()
	onWorkerEvent func(tid int)

	mu    sync.Mutex
	final *report.Stat
}

func (h *hookTest) Name() string                                    { return "hook" }
func (h *hookTest) PrintMode(io.Writer)                             {}
func (h *hookTest) Init(context.Context) error                      { return nil }
func (h *hookTest) Done(context.Context) error                      { return nil }
func (h *hookTest) ReportIntermediate(io.Writer, *report.Stat) bool { return false }
func (h *hookTest) ReportCumulative(_ io.Writer, s *report.Stat) bool {
	h.mu.Lock()
	c := *s
	h.final = &c
	h.mu.Unlock()
	return false
}
func (h *hookTest) NewWorker(_ context.Context, tid int, _ *metrics.Handle) (Worker, error) {
	if h.onNewWorker != nil {
		h.onNewWorker()
	}
	return hookWorker{h, tid}, nil
}

type hookWorker struct {
	h   *hookTest
	tid int
}

func (w hookWorker) Init(context.Context) error { return nil }
func (w hookWorker) Done(context.Context) error { return nil }
func (w hookWorker) Close()                     {}
func (w hookWorker) Event(context.Context) (bool, error) {
	if w.h.onEvent != nil {
		w.h.onEvent()
	}
	if w.h.onWorkerEvent != nil {
		w.h.onWorkerEvent(w.tid)
	}
	return false, nil
}

// Workers that wait on the netpoller take turns per event when they
// outnumber the processors; others run until the scheduler preempts them.
// Each event here is 20 µs of CPU that never blocks, like a query whose
// reply is in the socket when it is read.
func TestPolledWorkersTakeTurns(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for _, polled := range []bool{false, true} {
		var mu sync.Mutex
		var order []int
		p := &hookTest{onWorkerEvent: func(tid int) {
			for start := time.Now(); time.Since(start) < 20*time.Microsecond; {
			}
			mu.Lock()
			order = append(order, tid)
			mu.Unlock()
		}}
		cfg := Config{Threads: 3, Events: 1500, PolledWorkers: polled, ForcedShutdown: -1}
		if err := runToEnd(context.Background(), p, cfg, logging.Discard()); err != nil {
			t.Fatal(err)
		}
		longest, run := 0, 0
		for i, tid := range order {
			if i > 0 && tid == order[i-1] {
				run++
			} else {
				run = 1
			}
			longest = max(longest, run)
		}
		// Unyielding, a worker keeps its processor for up to 10 ms (some
		// 500 events) until sysmon preempts it.
		if polled && longest > 3 {
			t.Errorf("polled workers: %d events in a row from one worker, want turns", longest)
		}
		if !polled && longest < 20 {
			t.Errorf("other workers: at most %d events in a row from one worker; the test no longer shows what turns change", longest)
		}
	}
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
		if err := runToEnd(context.Background(), p, cfg, logging.Discard()); err != nil {
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

// runToEnd runs t as main does: Run, then the final report and done().
func runToEnd(ctx context.Context, t Test, cfg Config, log *logging.Logger) error {
	fin, err := Run(ctx, t, cfg, log)
	if fin != nil {
		if rerr := fin.Report(); err == nil {
			err = rerr
		}
	}
	return err
}
