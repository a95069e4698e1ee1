package metrics

import (
	"reflect"
	"testing"
	"time"
)

// A Sum adds ticks up as Snapshot.Add does, without changing the
// snapshots added to it or those it handed out before.
func TestSumIsTheAddedWindows(t *testing.T) {
	r := NewRegistry(3, 2, t0)
	sum := NewSum(t0, 3)
	added := Empty(t0, 3)
	var early *Snapshot
	var earlyCount int64
	var ticks []*Snapshot
	for tick := 1; tick <= 5; tick++ {
		for tid := range 3 {
			h := r.Handle(tid)
			for i := range tick + tid {
				h.Inc(CntWrite)
				h.RecordEvent(int64(1000 * (1 + i + 50*tid + 7*tick)))
			}
			if tick == 3 {
				h.Error("1213")
				h.Retry("1213", true)
				h.Flush()
			}
		}
		d := r.Tick(t0.Add(time.Duration(tick) * time.Second))
		if tick == 2 {
			d = Empty(d.End, 3) // an empty window in between
		}
		ticks = append(ticks, d)
		sum.Add(d)
		added = added.Add(d)
		if tick == 2 {
			early = sum.Snapshot()
			earlyCount = early.Histogram.TotalCount()
		}
	}
	got := sum.Snapshot()
	if got.Histogram == added.Histogram {
		t.Fatal("the sum's snapshot shares a histogram that the sum changes")
	}
	hg, ha := got.Histogram, added.Histogram
	got.Histogram, added.Histogram = nil, nil
	if !reflect.DeepEqual(got, added) {
		t.Errorf("sum %+v\nwant %+v", got, added)
	}
	if !reflect.DeepEqual(hg.Export().Counts, ha.Export().Counts) {
		t.Error("the sum's histogram is not the added windows'")
	}
	if early.Histogram.TotalCount() != earlyCount || early.End != t0.Add(2*time.Second) {
		t.Errorf("a snapshot handed out before changed: %d values, end %v", early.Histogram.TotalCount(), early.End)
	}
	if n := ticks[0].Histogram.TotalCount(); n != 6 {
		t.Errorf("the first tick's histogram changed: %d values", n)
	}
	if sum.End() != t0.Add(5*time.Second) {
		t.Errorf("sum ends at %v", sum.End())
	}
}
