package metrics

import (
	"maps"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Thread is one worker's timer, as sysbench's per-thread timer: events and
// their total execution time, the shortest and the longest, in ns.
type Thread struct {
	Events uint64
	SumNS  int64
	MinNS  int64
	MaxNS  int64
}

func (t *Thread) record(ns int64) {
	if t.Events == 0 || ns < t.MinNS {
		t.MinNS = ns
	}
	if ns > t.MaxNS {
		t.MaxNS = ns
	}
	t.Events++
	t.SumNS += ns
}

// add folds o (a later or a parallel window) into t.
func (t *Thread) add(o Thread) {
	if o.Events == 0 {
		return
	}
	if t.Events == 0 || o.MinNS < t.MinNS {
		t.MinNS = o.MinNS
	}
	if o.MaxNS > t.MaxNS {
		t.MaxNS = o.MaxNS
	}
	t.Events += o.Events
	t.SumNS += o.SumNS
}

// Failure is what ignored errors of one code did to events: restarts
// (Retries) and events given up (Failed).
type Failure struct {
	Retries uint64
	Failed  uint64
}

func (f Failure) add(o Failure) Failure {
	return Failure{Retries: f.Retries + o.Retries, Failed: f.Failed + o.Failed}
}

// Snapshot is what a run measured over a window of time. It is never
// changed once made: Add and Merge return new snapshots.
type Snapshot struct {
	Start, End time.Time
	// Measured is the time measured when it is not End - Start: the sum
	// of the windows of rounds run one after the other (report's merge).
	Measured time.Duration
	// Counters are the sysbench counters over the window.
	Counters Counts
	// Errors are the ignored errors by code (their total is
	// Counters[CntError] less those counted without a code).
	Errors map[string]uint64
	// Failures are the retries and failed events by the code of the error
	// that caused them ("" for an error without one).
	Failures map[string]Failure
	// Threads are the per-worker timers; Latency is their sum: the one
	// source of min, avg, max and sum.
	Threads []Thread
	Latency Thread
	// Histogram holds the same events' latencies in µs, for percentiles.
	// It is shared between snapshots and must not be changed.
	Histogram *hdr.Histogram
	// Hosts are the endpoints the workers were connected to and what
	// each served (nil when no driver said).
	Hosts Hosts
}

// Duration is the time measured: Measured when set, else the window's
// length.
func (s *Snapshot) Duration() time.Duration {
	if s.Measured > 0 {
		return s.Measured
	}
	return s.End.Sub(s.Start)
}

// Avg is the mean event latency in ns.
func (s *Snapshot) Avg() float64 {
	if s.Latency.Events == 0 {
		return 0
	}
	return float64(s.Latency.SumNS) / float64(s.Latency.Events)
}

// Percentile is the latency at percentile p (0-100) in ns, within the
// histogram's precision and never outside the observed min and max (a
// bucket's edge can lie beyond them); 0 without events.
func (s *Snapshot) Percentile(p float64) int64 {
	if s.Histogram == nil || s.Histogram.TotalCount() == 0 {
		return 0
	}
	v := s.Histogram.ValueAtPercentile(p) * 1000
	return min(max(v, s.Latency.MinNS), s.Latency.MaxNS)
}

// Add returns the window made of s followed by next, a later window of the
// same run (the same threads).
func (s *Snapshot) Add(next *Snapshot) *Snapshot {
	out := s.combine(next)
	out.Start, out.End = s.Start, next.End
	n := max(len(s.Threads), len(next.Threads))
	out.Threads = make([]Thread, n)
	copy(out.Threads, s.Threads)
	for i, t := range next.Threads {
		out.Threads[i].add(t)
	}
	return out
}

// Merge returns the snapshots of separate runs or client machines as one:
// counters summed, histograms merged, the threads of all, and the window
// from the first start to the last end.
func Merge(snaps ...*Snapshot) *Snapshot {
	if len(snaps) == 0 {
		return Empty(time.Time{}, 0)
	}
	out := snaps[0].combine(nil)
	out.Threads = append([]Thread(nil), snaps[0].Threads...)
	for _, o := range snaps[1:] {
		next := out.combine(o)
		next.Start, next.End = out.Start, out.End
		if o.Start.Before(next.Start) {
			next.Start = o.Start
		}
		if o.End.After(next.End) {
			next.End = o.End
		}
		next.Threads = append(out.Threads, o.Threads...)
		out = next
	}
	return out
}

// Empty is a window with nothing in it, for threads workers.
func Empty(at time.Time, threads int) *Snapshot {
	return &Snapshot{Start: at, End: at, Threads: make([]Thread, threads), Histogram: emptyHistogram}
}

// emptyHistogram is every empty snapshot's: snapshots' histograms are
// never changed.
var emptyHistogram = NewHistogram()

// combine sums what s and o (which may be nil) have in common into a new
// snapshot with s's window and no threads. Histograms are never changed
// once in a snapshot, so an empty side's partner is shared, not copied.
func (s *Snapshot) combine(o *Snapshot) *Snapshot {
	out := &Snapshot{Start: s.Start, End: s.End, Counters: s.Counters, Latency: s.Latency,
		Errors: maps.Clone(s.Errors), Failures: maps.Clone(s.Failures), Histogram: s.Histogram,
		Hosts: maps.Clone(s.Hosts)}
	if out.Histogram == nil {
		out.Histogram = emptyHistogram
	}
	if o == nil {
		return out
	}
	out.addCounts(o)
	switch {
	case o.Histogram == nil || o.Histogram.TotalCount() == 0:
	case out.Histogram.TotalCount() == 0:
		out.Histogram = o.Histogram
	default:
		out.Histogram = out.Histogram.Clone()
		out.Histogram.Merge(o.Histogram)
	}
	return out
}

// addCounts adds o's counters, errors, failures and latency figures to s,
// in place: for snapshots being made (combine's, a Sum's).
func (s *Snapshot) addCounts(o *Snapshot) {
	for i, v := range o.Counters {
		s.Counters[i] += v
	}
	for k, v := range o.Errors {
		if s.Errors == nil {
			s.Errors = make(map[string]uint64)
		}
		s.Errors[k] += v
	}
	for k, v := range o.Failures {
		if s.Failures == nil {
			s.Failures = make(map[string]Failure)
		}
		s.Failures[k] = s.Failures[k].add(v)
	}
	s.Latency.add(o.Latency)
	s.Hosts = s.Hosts.add(o.Hosts)
}
