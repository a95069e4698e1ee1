package metrics

import (
	"math"
	"testing"
	"time"
)

// sim drives a registry's handles and a detector on a fake clock: each
// worker runs back-to-back events of a fixed latency unless it is stalled
// (its event hangs) or failing (each try fails with a code at once).
type sim struct {
	t       *testing.T
	now     int64
	reg     *Registry
	det     *Detector
	lat     int64   // an event's latency
	next    []int64 // when each worker's running event completes
	stalled func(w int, at int64) bool
	failing func(w int, at int64) string
	period  int64
}

const ms = int64(time.Millisecond)

func newSim(t *testing.T, workers int, threshold time.Duration) *sim {
	s := &sim{t: t, now: ms, lat: 10 * ms, period: int64(SamplePeriod(threshold))}
	s.reg = NewRegistry(workers, workers, time.Unix(0, 0))
	s.reg.SetClock(func() int64 { return s.now })
	s.det = NewDetector(s.reg, threshold, 5*time.Second)
	s.stalled = func(int, int64) bool { return false }
	s.failing = func(int, int64) string { return "" }
	s.det.Begin(s.now)
	s.next = make([]int64, workers)
	for w := range s.next {
		s.reg.Handle(w).Started(s.now)
		s.next[w] = s.now + s.lat
	}
	return s
}

// run advances the clock to until, 1 ms at a time, sampling every period.
func (s *sim) run(until int64) {
	for s.now < until {
		s.now += ms
		for w, due := range s.next {
			h := s.reg.Handle(w)
			if s.now < due {
				continue
			}
			if s.stalled(w, s.now) {
				continue // the event waits on
			}
			if code := s.failing(w, s.now); code != "" {
				h.Error(code)
				h.Retry(code, true)
				s.next[w] = s.now + s.lat
				continue
			}
			h.RecordEventAt(s.lat, s.now)
			h.Started(s.now)
			s.next[w] = s.now + s.lat
		}
		if s.now%s.period == 0 {
			s.det.Sample(s.now)
		}
	}
}

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

// A stall of every worker from 3 s to 5.5 s is one outage from the last
// completion before it to the first after it, to the millisecond, with
// the throughput before and after it.
func TestDetectorStall(t *testing.T) {
	s := newSim(t, 4, time.Second)
	s.stalled = func(w int, at int64) bool { return at >= 3000*ms && at < 5500*ms+int64(w)*ms }
	s.run(12000 * ms)
	got := s.det.Finish(s.now)
	if len(got) != 1 {
		t.Fatalf("outages %+v, want 1", got)
	}
	o := got[0]
	// The last completion is at 2.999 s at the latest (events of 10 ms).
	if o.Start < 2990*ms || o.Start >= 3000*ms || o.End != 5500*ms || o.Ongoing {
		t.Errorf("outage %d..%d ns ongoing %v, want [2.99 s, 3 s) .. 5.5 s", o.Start, o.End, o.Ongoing)
	}
	// 4 workers, an event each per 10 ms: 400 events per second.
	if !near(o.TPSBefore, 400, 5) || !near(o.TPSAfter, 400, 5) {
		t.Errorf("tps before/after %.1f/%.1f, want 400/400", o.TPSBefore, o.TPSAfter)
	}
	if len(o.Failures) != 0 || o.Errors != 0 {
		t.Errorf("failures %v errors %d in a stall without failures", o.Failures, o.Errors)
	}
}

// Events that take longer than the threshold at their normal pace (a
// long query, a script that sleeps) are no outage, nor is the wait for
// the first of them; the same stretch with failures is one.
func TestDetectorSlowEvents(t *testing.T) {
	s := newSim(t, 2, time.Second)
	s.lat = 1500 * ms
	for w := range s.next {
		s.next[w] = s.now + s.lat
	}
	s.run(10000 * ms)
	if got := s.det.Finish(s.now); len(got) != 0 {
		t.Fatalf("outages %+v in a run of 1.5 s events, want none", got)
	}

	s = newSim(t, 2, time.Second)
	s.lat = 400 * ms // 5 events a second: 5 expected within the threshold
	s.failing = func(w int, at int64) string {
		if at >= 4000*ms && at < 6000*ms {
			return "2013"
		}
		return ""
	}
	s.run(9000 * ms)
	if got := s.det.Finish(s.now); len(got) != 1 {
		t.Fatalf("outages %+v in a slow run failing for 2 s, want 1", got)
	}
}

// Workers whose every try fails make an outage with the failures counted
// by code; a stall shorter than the threshold is none.
func TestDetectorFailures(t *testing.T) {
	s := newSim(t, 2, time.Second)
	s.stalled = func(w int, at int64) bool { return at >= 1000*ms && at < 1900*ms } // 0.9 s: no outage
	s.failing = func(w int, at int64) string {
		if at >= 4000*ms && at < 6000*ms {
			return "2013"
		}
		return ""
	}
	s.run(9000 * ms)
	got := s.det.Finish(s.now)
	if len(got) != 1 {
		t.Fatalf("outages %+v, want 1", got)
	}
	o := got[0]
	if o.Start < 3990*ms || o.Start >= 4000*ms || o.End != 6000*ms {
		t.Errorf("outage %d..%d ns, want [3.99 s, 4 s) .. 6 s", o.Start, o.End)
	}
	// 2 workers, a failed try each per 10 ms for 2 s: 400 failures; those
	// of the sampling period around the edges may fall outside.
	n := o.Failures["2013"]
	if n < 400-2*uint64(s.period/s.lat) || n > 400 || len(o.Failures) != 1 || o.Errors != n {
		t.Errorf("failures %v errors %d, want about 400 of 2013", o.Failures, o.Errors)
	}
}

// Workers idle between --rate arrivals are no outage, however long they
// wait; an event that then hangs is one from its start, not from the last
// completion long before.
func TestDetectorIdleWorkers(t *testing.T) {
	s := newSim(t, 1, time.Second)
	h := s.reg.Handle(0)
	s.now = 100 * ms
	h.RecordEventAt(s.lat, s.now)
	for ; s.now < 5000*ms; s.now += ms { // idle: no event running
		if s.now%s.period == 0 {
			s.det.Sample(s.now)
		}
	}
	h.Started(s.now) // 5 s: an event that hangs for 2 s
	for ; s.now < 7000*ms; s.now += ms {
		if s.now%s.period == 0 {
			s.det.Sample(s.now)
		}
	}
	h.RecordEventAt(2000*ms, s.now)
	got := s.det.Finish(s.now + 100*ms)
	if len(got) != 1 || got[0].Start != 5000*ms || got[0].End != 7000*ms {
		t.Fatalf("outages %+v, want one from 5 s to 7 s", got)
	}
}

// A stall still on when the run ends is reported as ongoing, to the end.
func TestDetectorOngoing(t *testing.T) {
	s := newSim(t, 3, time.Second)
	s.stalled = func(w int, at int64) bool { return at >= 2000*ms }
	s.run(4000 * ms)
	got := s.det.Finish(4200 * ms)
	if len(got) != 1 || !got[0].Ongoing || got[0].End != 4200*ms || got[0].Start < 1990*ms || got[0].Start >= 2000*ms {
		t.Fatalf("outages %+v, want one ongoing from 2 s to the end at 4.2 s", got)
	}
	if n, ns := s.det.Status(4200 * ms); n != 0 || !s.det.Open() || ns != 4200*ms-got[0].Start {
		t.Errorf("status: %d ended, %d ns, open %v; want 0 ended, one open since %d", n, ns, s.det.Open(), got[0].Start)
	}
}

// A stall that ends between two samples, just past the threshold, is
// found all the same.
func TestDetectorBetweenSamples(t *testing.T) {
	s := newSim(t, 1, time.Second)
	// Events of 5 ms from 1 ms on: the last completion before is at
	// 1.996 s, the next at 2.998 s, after the sample at 2.98 s (0.984 s
	// after it) and before the one at 3 s.
	s.lat = 5 * ms
	s.stalled = func(w int, at int64) bool { return at > 2000*ms && at < 2998*ms }
	s.run(5000 * ms)
	got := s.det.Finish(s.now)
	if len(got) != 1 || got[0].Start != 1996*ms || got[0].End != 2998*ms {
		t.Fatalf("outages %+v, want one from 1.996 s to 2.998 s", got)
	}
}

// With a threshold longer than the samples kept reach back (maxLookback),
// an outage still counts its failures and throughput from just before it
// began, and the samples kept stay bounded.
func TestDetectorLongThreshold(t *testing.T) {
	s := newSim(t, 2, 90*time.Second)
	s.failing = func(w int, at int64) string {
		if at >= 100_000*ms && at < 300_000*ms {
			return "2013"
		}
		return ""
	}
	longest := 0
	for s.now < 310_000*ms {
		s.run(s.now + 1000*ms)
		longest = max(longest, len(s.det.samples))
	}
	got := s.det.Finish(s.now)
	if len(got) != 1 || got[0].Start < 99_990*ms || got[0].Start >= 100_000*ms || got[0].End < 300_000*ms || got[0].End > 300_010*ms {
		t.Fatalf("outages %+v, want one from 100 s to 300 s", got)
	}
	// 2 workers, a failed try each per 10 ms for 200 s.
	if n := got[0].Failures["2013"]; n < 40000-2*uint64(s.period/s.lat) || n > 40000 {
		t.Errorf("%d failures of 2013, want about 40000", n)
	}
	if !near(got[0].TPSBefore, 200, 5) {
		t.Errorf("tps before %.1f, want 200", got[0].TPSBefore)
	}
	if max := int((maxLookback+int64(5*time.Second))/s.period) + 3; longest > max {
		t.Errorf("%d samples kept, want at most %d", longest, max)
	}
}

// A failure recorded while the detector samples is counted by code in
// the samples after it, however the two interleave: the detector reuses
// its failures by code while the failure counters stand still, so the
// counters and the codes must move together (an outage on a real server
// once counted one of its two timeouts).
func TestDetectorFailureBesideSample(t *testing.T) {
	reg := NewRegistry(1, 1, time.Now())
	d := NewDetector(reg, time.Second, 5*time.Second)
	d.Begin(1)
	h := reg.Handle(0)
	for i := range 3000 {
		done := make(chan struct{})
		go func() {
			h.Retry("HYT00", true)
			close(done)
		}()
		d.Sample(int64(i+2) * ms)
		<-done
		d.Sample(int64(i+2)*ms + 1)
		last := d.samples[len(d.samples)-1]
		if got, want := last.fail["HYT00"], last.c[CntRetry]; got != want {
			t.Fatalf("after %d retries: %d failures by code, %d retries counted", i+1, got, want)
		}
	}
}
