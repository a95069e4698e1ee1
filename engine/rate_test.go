package engine

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sysbench-go/sysbench-go/logging"
	"github.com/sysbench-go/sysbench-go/report"
)

// Asking for the backlog draws arrivals ahead of the workers; they must
// still be handed out once each, in the order of the seeded process.
func TestRateScheduleBacklogKeepsOrder(t *testing.T) {
	const n = 2000
	ref := newRateSchedule(1000, 7, 0)
	want := make([]int64, n+100) // the looks below reach up to ~8 ahead
	for i := range want {
		want[i] = ref.take()
	}
	s := newRateSchedule(1000, 7, 0)
	for i := 0; i < n; i++ {
		if i%7 == 3 {
			// A look at a moment somewhere ahead of the next arrival.
			now := want[i] + int64(i%5)*1_500_000
			got := s.backlog(now)
			exp := 0
			for _, a := range want[i:] {
				if a <= now {
					exp++
				}
			}
			if got != exp {
				t.Fatalf("arrival %d: backlog at %d is %d, want %d", i, now, got, exp)
			}
		}
		if got := s.take(); got != want[i] {
			t.Fatalf("arrival %d: took %d, want %d", i, got, want[i])
		}
	}
	if want[n-1] <= want[0] || want[n-1] < int64(n)*1e6/2 {
		t.Fatalf("arrivals do not advance at about the rate: first %d, last %d", want[0], want[n-1])
	}
}

// slowTest's events take d each.
func slowTest(d time.Duration) *hookTest {
	return &hookTest{onEvent: func() { time.Sleep(d) }}
}

// Under --rate an event's latency includes the time it waited for a free
// worker: at four times the rate one worker can serve, events queue.
func TestRateCountsQueueTime(t *testing.T) {
	p := slowTest(2 * time.Millisecond)
	cfg := Config{Threads: 1, Time: time.Second, Rate: 2000, ForcedShutdown: -1, RandSeed: 1}
	if err := runToEnd(context.Background(), p, cfg, logging.Discard()); err != nil {
		t.Fatal(err)
	}
	s := p.final
	if s.Events == 0 || s.Events > 600 {
		t.Fatalf("%d events in 1 s of 2 ms events", s.Events)
	}
	// Half a second in, the backlog is ~750 arrivals, 1.5 s of work.
	if s.LatencyMax < 0.2 {
		t.Errorf("max latency %.3f s: queueing not counted", s.LatencyMax)
	}
}

// However far behind the workers are, a look at the backlog draws at most
// one arrival more than the queue holds: the look that finds an overflow
// costs the same on a stalled or busy machine as on an idle one.
func TestRateBacklogBounded(t *testing.T) {
	s := newRateSchedule(1e7, 5, 0)
	if n := s.backlog(int64(time.Hour)); n != maxQueue+1 || len(s.pending) != maxQueue+1 {
		t.Fatalf("an hour behind at 1e7/s: backlog %d with %d drawn, want %d of each", n, len(s.pending), maxQueue+1)
	}
	first := s.pending[0]
	if got := s.take(); got != first {
		t.Fatalf("took %d, want the oldest arrival %d", got, first)
	}
	if n := s.backlog(int64(time.Hour)); n != maxQueue+1 {
		t.Fatalf("after one taken: backlog %d, want %d", n, maxQueue+1)
	}
}

// When arrivals pile up beyond the reference's queue, the run fails with
// its message, within a bound the code must meet on a loaded machine: a
// look at the queue every watchInterval, each drawing at most the queue's
// size.
func TestRateQueueOverflow(t *testing.T) {
	p := slowTest(20 * time.Millisecond)
	cfg := Config{Threads: 1, Time: 10 * time.Second, Rate: 1e7, ForcedShutdown: -1}
	var out bytes.Buffer
	start := time.Now()
	err := runToEnd(context.Background(), p, cfg, logging.New(&out, logging.Notice))
	if !errors.Is(err, ErrQueueFull) || ExitCode(err) != 1 {
		t.Fatalf("Run: %v, want the queue-full error with exit code 1", err)
	}
	if el := time.Since(start); el > 8*time.Second {
		t.Errorf("overflow ended the run only after %v", el)
	}
}

// A run under a low --rate lasts its --time: workers whose next arrival
// falls after the end wait for the end instead of leaving early.
func TestRateRunLastsItsTime(t *testing.T) {
	p := &hookTest{}
	cfg := Config{Threads: 4, Time: 800 * time.Millisecond, Rate: 2, ForcedShutdown: -1, RandSeed: 3}
	start := time.Now()
	if err := runToEnd(context.Background(), p, cfg, logging.Discard()); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < 800*time.Millisecond {
		t.Errorf("run of --time=0.8s ended after %v", el)
	}
	if p.final.TimeTotal < 0.79 {
		t.Errorf("total time %.3f s, want the 0.8 s of --time", p.final.TimeTotal)
	}
}

// The workers run the arrivals of the rate and no more: 300/s for 1 s is
// 300 ± Poisson noise. On the fake clock (testing/synctest), with Go's
// timers for the precise sleeps, so that the count is the seeded arrival
// process's whatever the machine's load; how the kernel's sleeps keep time
// is the benchmarks' to measure.
func TestRateHonoursRate(t *testing.T) {
	defer func(k bool) { kernelSleeps = k }(kernelSleeps)
	kernelSleeps = false
	for _, threads := range []int{1, 4} {
		synctest.Test(t, func(t *testing.T) {
			p := &hookTest{}
			cfg := Config{Threads: threads, Time: time.Second, Rate: 300, ForcedShutdown: -1, RandSeed: 11}
			if err := runToEnd(context.Background(), p, cfg, logging.Discard()); err != nil {
				t.Fatal(err)
			}
			if n := p.final.Events; n < 250 || n > 350 {
				t.Errorf("%d threads: %d events in 1 s at --rate=300", threads, n)
			}
		})
	}
}

// With GoTimerWaits a --rate run paces on Go's timers, so it runs on the
// fake clock (the kernel's sleeps take real time, which does not move it):
// 8 workers of 100 ms events offered 60/s for 30 s serve every arrival,
// and an automatic warm-up sampling every 20 ms ends after its 60 samples.
func TestRateOnFakeClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := slowTest(100 * time.Millisecond)
		var w warmupEnds
		cfg := Config{Threads: 8, Time: 30 * time.Second, Rate: 60, ForcedShutdown: -1, RandSeed: 1, GoTimerWaits: true,
			Warmup: 10 * time.Second, WarmupAuto: true, WarmupSample: 20 * time.Millisecond, Reporters: []report.Reporter{&w}}
		start := time.Now()
		if err := runToEnd(context.Background(), p, cfg, logging.Discard()); err != nil {
			t.Fatal(err)
		}
		if n := p.final.Events; n < 1600 || n > 2000 {
			t.Errorf("%d events in 30 s at 60/s", n)
		}
		if w.end == nil || !w.end.Steady || w.end.EndedSeconds < 1.2 || w.end.EndedSeconds > 3 {
			t.Errorf("warm-up end %+v: want steady after its 60 samples of 20 ms (1.2 s) or a little more", w.end)
		}
		if took := time.Since(start); took < 30*time.Second || took > 34*time.Second {
			t.Errorf("the run took %s of the fake clock", took)
		}
	})
}

type warmupEnds struct{ end *report.WarmupEnd }

func (w *warmupEnds) Report(r *report.Report) {
	if r.Kind == report.Final {
		w.end = r.Warmup
	}
}
