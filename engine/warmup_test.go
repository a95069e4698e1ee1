package engine

import (
	"testing"

	"github.com/sysbench-go/sysbench-go/report"
)

// The automatic warm-up ends at the first sample after which MSER-5 finds
// the series steady: never before 60 samples, and after a slow start of
// 30 samples (3 s), once the fast part is at least as long; at its
// maximum it says why it was not steady.
func TestAutoWarmupEnds(t *testing.T) {
	a := newAutoWarmup(DefaultAutoWarmupMax)
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
	a = newAutoWarmup(DefaultAutoWarmupMax)
	for range 10 {
		if a.add(50, &end) {
			t.Fatal("steady after 10 samples")
		}
	}
	if e := a.end(true); e.Steady || !e.Auto || e.Reason != "not steady (too short to tell: steady-state detection needs 6 s of samples)" {
		t.Errorf("at the maximum: %+v", e)
	}

	// Still rising at the maximum.
	a = newAutoWarmup(DefaultAutoWarmupMax)
	for i := range 100 {
		if a.add(uint64(10+i), &end) {
			t.Fatalf("a rising throughput found steady after %d samples", i+1)
		}
	}
	if e := a.end(true); e.Steady || e.Reason != "not steady (the throughput was still changing)" {
		t.Errorf("at the maximum: %+v", e)
	}
}
