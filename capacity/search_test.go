package capacity

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sysbench-go/sysbench-go/engine"
	"github.com/sysbench-go/sysbench-go/metrics"
	"github.com/sysbench-go/sysbench-go/report"
)

// slotTest is a workload whose capacity is known exactly: each event
// holds one of its Threads workers (a connection) for d, so at most
// Threads/d events a second complete.
type slotTest struct{ d time.Duration }

func (s *slotTest) Name() string                                    { return "slots" }
func (s *slotTest) PrintMode(io.Writer)                             {}
func (s *slotTest) Init(context.Context) error                      { return nil }
func (s *slotTest) Done(context.Context) error                      { return nil }
func (s *slotTest) ReportIntermediate(io.Writer, *report.Stat) bool { return true }
func (s *slotTest) ReportCumulative(io.Writer, *report.Stat) bool   { return true }
func (s *slotTest) NewWorker(context.Context, int, *metrics.Handle) (engine.Worker, error) {
	return slotWorker{s.d}, nil
}

type slotWorker struct{ d time.Duration }

func (w slotWorker) Init(context.Context) error { return nil }
func (w slotWorker) Done(context.Context) error { return nil }
func (w slotWorker) Close()                     {}
func (w slotWorker) Event(ctx context.Context) (bool, error) {
	time.Sleep(w.d)
	return false, nil
}

func objective(t *testing.T, exprs ...string) []report.Threshold {
	t.Helper()
	var out []report.Threshold
	for _, e := range exprs {
		th, err := report.ParseThreshold(e)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, th)
	}
	return out
}

func fakeClockProber(d time.Duration) *Engine {
	return &Engine{Test: &slotTest{d: d}, Config: engine.Config{Percentiles: []float64{95}, RandSeed: 7, GoTimerWaits: true}}
}

// Ground truth on the fake clock: 50 connections, each event holding one
// for 50 ms, can serve exactly 1,000 events a second. With an objective
// that only queueing beyond that breaks, the search must answer within 2%
// of 1,000 tps, with an interval that holds it.
func TestSearchFindsKnownCapacity(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const truth = 1000.0
		var progress strings.Builder
		res, err := Search(t.Context(), fakeClockProber(50*time.Millisecond), Options{
			Objective: objective(t, "p99<=500ms", "errors<=0.1%"), Threads: 50, Budget: 8 * time.Minute, Progress: &progress})
		if err != nil {
			t.Fatalf("search: %v\n%s", err, progress.String())
		}
		a := res.Record.Answer
		t.Logf("%s\n%s", res.Line(), progress.String())
		if a.Rate < truth*0.98 || a.Rate > truth*1.02 {
			t.Errorf("answer %.1f tps, want within 2%% of %g", a.Rate, truth)
		}
		if !(a.Low <= truth && truth <= a.High) {
			t.Errorf("interval %.1f to %.1f does not hold %g", a.Low, a.High, truth)
		}
		if !strings.HasPrefix(res.Line(), "Capacity: ") || !strings.Contains(res.Line(), "95% CI") {
			t.Errorf("answer line %q", res.Line())
		}
		if len(a.Rounds) != DefaultRounds || res.Record.Outcome != OutcomeAnswer {
			t.Errorf("%d rounds, outcome %s", len(a.Rounds), res.Record.Outcome)
		}
		if took := res.Record.ElapsedSeconds; took > 8*60 {
			t.Errorf("the search took %.0f s of its 480 s budget", took)
		}
	})
}

// An objective no rate can keep (events of 50 ms, p99 within 10 ms) is
// said so, after halving the rate down from the start; a budget too small
// for the steps is refused before any runs.
func TestSearchSaysWhenNoAnswer(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		res, err := Search(t.Context(), fakeClockProber(50*time.Millisecond), Options{
			Objective: objective(t, "p99<=10ms"), Threads: 4, Budget: 4 * time.Minute})
		var f *Failure
		if !errors.As(err, &f) || f.Outcome != OutcomeNoRateHolds || !strings.Contains(f.Msg, "no rate holds the objective (p99<=10ms)") {
			t.Fatalf("search: %v", err)
		}
		if n := len(res.Steps); n != 2+maxDown {
			t.Errorf("%d steps, want the probe, the start and %d halvings", n, maxDown)
		}
		_, err = Search(t.Context(), fakeClockProber(time.Millisecond), Options{
			Objective: objective(t, "p99<=10ms"), Threads: 4, Budget: 10 * time.Second})
		if !errors.As(err, &f) || f.Outcome != OutcomeBudget || !strings.Contains(f.Msg, "too small to say") {
			t.Fatalf("search with 10 s: %v", err)
		}
	})
}

// cutTest is a workload that works under its init()'s context, as a Lua
// script's queries do: an event whose context has ended fails, as a
// query would. Its first event hangs until that context ends, so that
// the first step's run is cut off after its time (the engine cancels the
// test's context of that run).
type cutTest struct {
	slotTest
	mu   sync.Mutex
	ctx  context.Context
	hung atomic.Bool
}

func (c *cutTest) Init(ctx context.Context) error { c.Rerun(ctx); return nil }
func (c *cutTest) Rerun(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ctx = ctx
}

func (c *cutTest) NewWorker(context.Context, int, *metrics.Handle) (engine.Worker, error) {
	return cutWorker{c}, nil
}

type cutWorker struct{ t *cutTest }

func (w cutWorker) Init(context.Context) error { return nil }
func (w cutWorker) Done(context.Context) error { return nil }
func (w cutWorker) Close()                     {}
func (w cutWorker) Event(context.Context) (bool, error) {
	w.t.mu.Lock()
	ctx := w.t.ctx
	w.t.mu.Unlock()
	if w.t.hung.CompareAndSwap(false, true) {
		<-ctx.Done()
		return false, nil
	}
	select {
	case <-ctx.Done():
		return false, fmt.Errorf("query cancelled: %w", context.Cause(ctx))
	case <-time.After(w.t.d):
		return false, nil
	}
}

// A step cut off when its time ran out (an event still running past
// --time and its grace) ends that step's context only: the next steps
// run under their own, and the search finds the capacity (100 tps of 10
// connections held 100 ms each; fewer events than
// TestSearchFindsKnownCapacity's, so a looser bound).
func TestSearchCutStepDoesNotReachNext(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ct := &cutTest{slotTest: slotTest{d: 100 * time.Millisecond}}
		p := &Engine{Test: ct, Config: engine.Config{Percentiles: []float64{95}, RandSeed: 7, GoTimerWaits: true}}
		var progress strings.Builder
		res, err := Search(t.Context(), p, Options{Objective: objective(t, "p99<=500ms", "errors<=0.1%"), Threads: 10,
			Budget: 8 * time.Minute, Progress: &progress})
		if err != nil {
			t.Fatalf("search after a cut step: %v\n%s", err, progress.String())
		}
		if !ct.hung.Load() {
			t.Fatal("no event hung: the first step was not cut off")
		}
		if a := res.Record.Answer; a.Rate < 95 || a.Rate > 105 {
			t.Errorf("answer %.1f tps, want within 5%% of 100\n%s", a.Rate, progress.String())
		}
	})
}

// slowProbeTest serves its first run (the closed-model probe) four times
// slower than the rest, as a client starved for a moment does: the probe
// measures a quarter of the capacity.
type slowProbeTest struct {
	slotTest
	mu   sync.Mutex
	slow bool
}

func (s *slowProbeTest) Init(context.Context) error { s.set(true); return nil }
func (s *slowProbeTest) Rerun(context.Context)      { s.set(false) }
func (s *slowProbeTest) set(slow bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.slow = slow
}

func (s *slowProbeTest) NewWorker(context.Context, int, *metrics.Handle) (engine.Worker, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.slow {
		return slotWorker{4 * s.d}, nil
	}
	return slotWorker{s.d}, nil
}

// A probe that fell far short of the capacity (a quarter of it) does not
// end the search after the steps up its budget plans for (to 1.4 × the
// probe): it steps on while the time left holds the confirmation, and
// answers with an interval that holds the capacity (10 connections held
// 100 ms each: 100 tps).
func TestSearchStepsPastAShortProbe(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		p := &Engine{Test: &slowProbeTest{slotTest: slotTest{d: 100 * time.Millisecond}},
			Config: engine.Config{Percentiles: []float64{95}, RandSeed: 7, GoTimerWaits: true}}
		var progress strings.Builder
		res, err := Search(t.Context(), p, Options{Objective: objective(t, "p99<=1s"), Threads: 10,
			Budget: 10 * time.Minute, Progress: &progress})
		if err != nil {
			t.Fatalf("search after a short probe: %v\n%s", err, progress.String())
		}
		t.Log(progress.String())
		if res.ProbeRate > 30 {
			t.Fatalf("the probe measured %.1f tps: not short of the 100", res.ProbeRate)
		}
		up := 0
		for _, st := range res.Steps {
			if st.Phase == phaseUp {
				up++
			}
		}
		a := res.Record.Answer
		if up <= maxUp || !(a.Low <= 100 && 100 <= a.High) || a.Rate < 75 {
			t.Errorf("%d steps up, answer %.1f tps in %.1f-%.1f; want more than %d steps up and an interval holding 100\n%s",
				up, a.Rate, a.Low, a.High, maxUp, progress.String())
		}
	})
}
