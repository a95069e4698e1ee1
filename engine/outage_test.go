package engine

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sysbench-go/sysbench-go/logging"
	"github.com/sysbench-go/sysbench-go/metrics"
	"github.com/sysbench-go/sysbench-go/report"
)

// gateTest's events take a millisecond while its gate is open, and wait
// while it is shut, until it opens or their context ends (the run's time
// is up).
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
	time.Sleep(time.Millisecond)
	return false, nil
}

// Events held at a gate the test shuts for 0.6 s make one outage from the
// last event before it shut (when every worker waits at it) to the first
// after it opened, found by the engine's own sampler; a gate still shut
// when --time is up leaves the outage ongoing, ending with the run, which
// ends on time. The run is on the fake clock (testing/synctest): each
// event takes 1 ms of it, so the moments the test sees are exact whatever
// else the machine does, and the bounds below are the sampler's period
// and one event, not a scheduler's delay.
func TestOutageOfARun(t *testing.T) {
	for _, ongoing := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) { testOutageOfARun(t, ongoing) })
	}
}

func testOutageOfARun(t *testing.T, ongoing bool) {
	g := &gateTest{}
	cfg := Config{Threads: 2, Time: 1500 * time.Millisecond, ForcedShutdown: -1,
		OutageThreshold: 250 * time.Millisecond, Reporters: []report.Reporter{g}}
	var shut, opened time.Time
	ch, timed := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(timed)
		time.Sleep(300 * time.Millisecond) // into the run
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
	// The last event before the gate shut ended at most one event and
	// the test's 1 ms poll before shut; the first after it ends one event
	// after it opened; the sampler sees both within its period.
	tol := metrics.SamplePeriod(cfg.OutageThreshold) + 3*time.Millisecond
	near := func(a, b time.Time) bool { return a.Sub(b) <= tol && b.Sub(a) <= tol }
	if len(g.out) != 1 {
		t.Fatalf("ongoing=%v: outages %+v, want 1", ongoing, g.out)
	}
	o := g.out[0]
	if ongoing {
		opened = ended
	}
	if o.Ongoing != ongoing || !near(o.StartTime, shut) || !near(o.EndTime, opened) {
		t.Errorf("ongoing=%v: outage %+v, want from %s to %s (within %s)", ongoing, o, shut.Format(time.StampMicro), opened.Format(time.StampMicro), tol)
	}
	// On the fake clock the run lasts its --time, to the event.
	if d := ended.Sub(began); d < cfg.Time || d > cfg.Time+10*time.Millisecond {
		t.Errorf("ongoing=%v: the run took %s for --time=%s", ongoing, d, cfg.Time)
	}
}
