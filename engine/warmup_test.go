package engine

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sysbench-go/sysbench-go/logging"
	"github.com/sysbench-go/sysbench-go/report"
)

// The automatic warm-up ends at the first sample after which MSER-5 finds
// the series steady: never before 60 samples, and after a slow start of
// 30 samples (3 s), once the fast part is at least as long; at its
// maximum it says why it was not steady.
func TestAutoWarmupEnds(t *testing.T) {
	a := newAutoWarmup(DefaultAutoWarmupMax, 0)
	var end report.WarmupEnd
	n := 0
	for ; n < 600; n++ {
		ev := uint64(50)
		if n < 30 {
			ev = 5
		}
		if n%2 == 0 {
			ev++ // some noise
		}
		if a.add(ev, &end) {
			break
		}
	}
	n++ // samples seen
	if n < 60 || n > 80 || !end.Steady || end.Reason != "throughput steady" {
		t.Errorf("ended after %d samples (%+v), want steady after 60 to 80", n, end)
	}

	// Too few samples for a verdict at the maximum.
	a = newAutoWarmup(DefaultAutoWarmupMax, 0)
	for range 10 {
		if a.add(50, &end) {
			t.Fatal("steady after 10 samples")
		}
	}
	if e := a.end(true); e.Steady || !e.Auto || e.Reason != "not steady (too short to tell: steady-state detection needs 6 s of samples)" {
		t.Errorf("at the maximum: %+v", e)
	}

	// Still rising at the maximum.
	a = newAutoWarmup(DefaultAutoWarmupMax, 0)
	for i := range 100 {
		if a.add(uint64(10+i), &end) {
			t.Fatalf("a rising throughput found steady after %d samples", i+1)
		}
	}
	if e := a.end(true); e.Steady || e.Reason != "not steady (the throughput was still changing)" {
		t.Errorf("at the maximum: %+v", e)
	}
}

// slowReporter takes d of the clock over its first intermediate report,
// as a reporter goroutine starved on a busy machine would.
type slowReporter struct {
	d     time.Duration
	slept bool
	final *report.Report
}

func (s *slowReporter) Report(r *report.Report) {
	switch {
	case r.Kind == report.Intermediate && !s.slept:
		s.slept = true
		time.Sleep(s.d)
	case r.Kind == report.Final:
		s.final = r
	}
}

// The warm-up's end handled late — after the --time that would follow it
// had it been on time — still begins the measured window, which then lasts
// its --time: the run does not end with a window that begins after it
// (seen as a negative duration on a loaded machine). On the fake clock.
func TestWarmupEndHandledLate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &hookTest{onEvent: func() { time.Sleep(time.Millisecond) }}
		slow := &slowReporter{d: 1500 * time.Millisecond}
		cfg := Config{Threads: 1, Warmup: time.Second, Time: time.Second, ReportInterval: time.Second,
			ForcedShutdown: -1, Reporters: []report.Reporter{slow}}
		began := time.Now()
		if err := runToEnd(context.Background(), p, cfg, logging.Discard()); err != nil {
			t.Fatal(err)
		}
		took := time.Since(began)
		if p.final == nil || slow.final == nil {
			t.Fatal("no final report")
		}
		// The warm-up ends at 2.5 s, when its last interval's report is
		// done; the window lasts 1 s from there.
		if got := p.final.TimeTotal; got < 0.99 || got > 1.01 {
			t.Errorf("measured window %.3f s, want the 1 s of --time", got)
		}
		if took < 3500*time.Millisecond || took > 3600*time.Millisecond {
			t.Errorf("the run took %s, want 3.5 s (the warm-up handled at 2.5 s, then --time)", took)
		}
		if n := p.final.Events; n < 999 || n > 1001 {
			t.Errorf("%d events of 1 ms in the measured second", n)
		}
	})
}
