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
	gate    atomic.Pointer[chan struct{}] // nil: open
	waiting atomic.Int32                  // events held at the gate
	out     []report.Outage               // the final report's
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
		w.g.waiting.Add(1)
		defer w.g.waiting.Add(-1)
		select {
		case <-*ch:
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
	return false, nil
}

// Events held at a gate the test shuts for 0.6 s make one outage from the
// last event before it shut (when every worker waits at it) to the first
// after it opened, found by the engine's own sampler; a gate still shut
// when --time is up leaves the outage ongoing, ending with the run, which
// ends on time. The events take microseconds: the tolerance (200 ms) is
// for a worker descheduled on a loaded machine between its last event
// and the gate, or between the gate and its first event after.
func TestOutageOfARun(t *testing.T) {
	for _, ongoing := range []bool{false, true} {
		g := &gateTest{}
		cfg := Config{Threads: 2, Time: 1500 * time.Millisecond, ForcedShutdown: -1,
			OutageThreshold: 250 * time.Millisecond, Reporters: []report.Reporter{g}}
		var shut, opened time.Time
		ch, timed := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(timed)
			time.Sleep(300 * time.Millisecond) // into the run; the test times the stretch itself
			g.gate.Store(&ch)
			for g.waiting.Load() < int32(cfg.Threads) {
				time.Sleep(time.Millisecond)
			}
			shut = time.Now()
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
		<-timed
		const tol = 200 * time.Millisecond
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
		// Starting and ending the workers takes some of a second at most.
		if d := ended.Sub(began); d > cfg.Time+time.Second {
			t.Errorf("ongoing=%v: the run took %s for --time=%s", ongoing, d, cfg.Time)
		}
	}
}
