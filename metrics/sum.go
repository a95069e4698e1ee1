package metrics

import "time"

// Sum is a window that grows as consecutive windows of one run are added
// to it in place: the engine's windows that span many ticks (since the
// last checkpoint, the whole run, what --metrics-addr reads). Adding a
// snapshot to a Snapshot copies its histogram (snapshots never change);
// a Sum merges into its own, so that a long run's every report tick costs
// no copy of the windows it adds to. Not safe for concurrent use.
type Sum struct {
	s Snapshot // its Histogram is the Sum's own, nil while empty
}

// NewSum is an empty window starting at at, for threads workers.
func NewSum(at time.Time, threads int) *Sum {
	return &Sum{s: Snapshot{Start: at, End: at, Threads: make([]Thread, threads)}}
}

// Add adds next, the window following the sum's, in place.
func (a *Sum) Add(next *Snapshot) {
	s := &a.s
	s.addCounts(next)
	if len(next.Threads) > len(s.Threads) {
		s.Threads = append(s.Threads, make([]Thread, len(next.Threads)-len(s.Threads))...)
	}
	for i, t := range next.Threads {
		s.Threads[i].add(t)
	}
	if h := next.Histogram; h != nil && h.TotalCount() > 0 {
		if s.Histogram == nil {
			s.Histogram = h.Clone()
		} else {
			s.Histogram.Merge(h)
		}
	}
	s.End = next.End
}

// End is when the window ends: the end of the last snapshot added.
func (a *Sum) End() time.Time { return a.s.End }

// Snapshot is the window so far, as a snapshot of its own.
func (a *Sum) Snapshot() *Snapshot {
	out := a.s.combine(nil)
	out.Threads = append([]Thread(nil), a.s.Threads...)
	if a.s.Histogram != nil {
		out.Histogram = a.s.Histogram.Clone()
	}
	return out
}
