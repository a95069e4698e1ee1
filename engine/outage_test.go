package engine

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sysbench-go/sysbench-go/logging"
	"github.com/sysbench-go/sysbench-go/metrics"
	"github.com/sysbench-go/sysbench-go/report"
)

// gateTest's events pass at once while its gate is open, and wait while
// it is shut, until it opens or their context ends (the run's time is up).
type gateTest struct {
	hookTest
	gate atomic.Pointer[chan struct{}] // nil: open
	out  []report.Outage               // the final report's
}

func (g *gateTest) NewWorker(context.Context, int, *metrics.Handle) (Worker, error) {
	return gateWorker{g}, nil
}

func (g *gateTest) Report(r *report.Report) {
	if r.Kind == report.Final {
		g.out = r.Outages
	}
}

type gateWorker struct{ g *gateTest }

func (w gateWorker) Init(context.Context) error { return nil }
func (w gateWorker) Done(context.Context) error { return nil }
func (w gateWorker) Close()                     {}
func (w gateWorker) Event(ctx context.Context) (bool, error) {
	if ch := w.g.gate.Load(); ch != nil {
		select {
		case <-*ch:
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
	return false, nil
}

// Events held at a gate the test shuts for 0.6 s make one outage from the
// last event before it shut to the first after it opened, found by the
// engine's own sampler; a gate still shut when --time is up leaves the
// outage ongoing, ending with the run, which ends on time. The tolerance
// (100 ms) is for scheduling on a loaded machine: the events take
// microseconds.
func TestOutageOfARun(t *testing.T) {
	for _, ongoing := range []bool{false, true} {
		g := &gateTest{}
		cfg := Config{Threads: 2, Time: 1500 * time.Millisecond, ForcedShutdown: -1,
			OutageThreshold: 250 * time.Millisecond, Reporters: []report.Reporter{g}}
		var shut, opened time.Time
		ch := make(chan struct{})
		go func() {
			time.Sleep(300 * time.Millisecond) // into the run; the test times the stretch itself
			shut = time.Now()
			g.gate.Store(&ch)
			if ongoing {
				return
			}
			time.Sleep(600 * time.Millisecond)
			opened = time.Now()
			close(ch)
		}()
		began := time.Now()
		if err := runToEnd(context.Background(), g, cfg, logging.Discard()); err != nil {
			t.Fatal(err)
		}
		ended := time.Now()
		const tol = 100 * time.Millisecond
		near := func(a, b time.Time) bool { return a.Sub(b) < tol && b.Sub(a) < tol }
		if len(g.out) != 1 {
			t.Fatalf("ongoing=%v: outages %+v, want 1", ongoing, g.out)
		}
		o := g.out[0]
		if ongoing {
			opened = ended
		}
		if o.Ongoing != ongoing || !near(o.StartTime, shut) || !near(o.EndTime, opened) {
			t.Errorf("ongoing=%v: outage %+v, want from %s to %s", ongoing, o, shut.Format(time.StampMicro), opened.Format(time.StampMicro))
		}
		if d := ended.Sub(began); d > cfg.Time+tol {
			t.Errorf("ongoing=%v: the run took %s for --time=%s", ongoing, d, cfg.Time)
		}
	}
}
