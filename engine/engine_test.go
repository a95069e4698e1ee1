package engine

import (
	"context"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sysbench-go/sysbench-go/logging"
	"github.com/sysbench-go/sysbench-go/metrics"
	"github.com/sysbench-go/sysbench-go/report"
)

// hookTest is the engine tests' Test: onNewWorker runs as each worker is
// created and onEvent on every event (both optional); it keeps the final
// report's figures.
type hookTest struct {
	onNewWorker func()
	onEvent     func()

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
func (h *hookTest) NewWorker(context.Context, int, *metrics.Handle) (Worker, error) {
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
