package engine

import (
	"context"
	"io"
	"os"
	"runtime"
	"sync/atomic"
	"testing"
)

// procsTest records GOMAXPROCS as its events see it.
type procsTest struct{ seen atomic.Int64 }

func (p *procsTest) Name() string                             { return "procs" }
func (p *procsTest) PrintMode(io.Writer)                      {}
func (p *procsTest) Init(context.Context) error               { return nil }
func (p *procsTest) Done(context.Context) error               { return nil }
func (p *procsTest) ReportIntermediate(io.Writer, *Stat) bool { return false }
func (p *procsTest) ReportCumulative(io.Writer, *Stat) bool   { return false }
func (p *procsTest) NewWorker(context.Context, int, *WorkerStats) (Worker, error) {
	return procsWorker{p}, nil
}

type procsWorker struct{ p *procsTest }

func (w procsWorker) Init(context.Context) error { return nil }
func (w procsWorker) Done(context.Context) error { return nil }
func (w procsWorker) Close()                     {}
func (w procsWorker) Event(context.Context) (bool, error) {
	w.p.seen.Store(int64(runtime.GOMAXPROCS(0)))
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
		p := &procsTest{}
		cfg := Config{Threads: threads, Events: 100, BlockingWorkers: blocking, ForcedShutdown: -1}
		if err := Run(context.Background(), p, cfg, io.Discard); err != nil {
			t.Fatal(err)
		}
		want := int64(before)
		if blocking {
			want = int64(threads + 1)
		}
		if got := p.seen.Load(); got != want {
			t.Errorf("blocking=%v: GOMAXPROCS %d during the run, want %d", blocking, got, want)
		}
		if got := runtime.GOMAXPROCS(0); got != before {
			t.Errorf("blocking=%v: GOMAXPROCS %d after the run, want %d", blocking, got, before)
		}
	}
}
