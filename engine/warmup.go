package engine

import (
	"fmt"
	"time"

	"github.com/sysbench-go/sysbench-go/report"
	"github.com/sysbench-go/sysbench-go/stats"
)

// AutoWarmupSample is how often --warmup-time=auto samples the
// throughput: MSER-5's fewest samples (stats.MinBatches batches of
// stats.BatchSize) take 6 s at this pace, the shortest automatic warm-up.
const AutoWarmupSample = 100 * time.Millisecond

// DefaultAutoWarmupMax is the longest --warmup-time=auto lasts when no
// maximum is given.
const DefaultAutoWarmupMax = 60 * time.Second

// autoWarmup watches the throughput during --warmup-time=auto: the warm-up
// ends at the first sample after which MSER-5 over every sample so far
// finds the run steady (no trend after its cut in the first half of what it
// has seen).
type autoWarmup struct {
	sample time.Duration
	tps    []float64
	last   *stats.Steady // the last verdict, nil before there are enough samples
}

func newAutoWarmup(max, sample time.Duration) *autoWarmup {
	if sample <= 0 {
		sample = AutoWarmupSample
	}
	return &autoWarmup{sample: sample, tps: make([]float64, 0, max/sample+1)}
}

// add records the events of one sample and says whether the warm-up is
// over, filling end when it is.
func (a *autoWarmup) add(events uint64, end *report.WarmupEnd) bool {
	sec := a.sample.Seconds()
	a.tps = append(a.tps, float64(events)/sec)
	s, err := stats.SteadyState(a.tps, sec)
	if err != nil {
		return false // too few samples yet
	}
	a.last = &s
	if !s.Steady || !(s.SteadyMean > 0) {
		return false
	}
	end.Steady, end.Reason = true, "throughput steady"
	return true
}

// end is how the warm-up ends at this point: at its maximum (atMax), not
// steady.
func (a *autoWarmup) end(atMax bool) report.WarmupEnd {
	e := report.WarmupEnd{Auto: true, SampleSeconds: a.sample.Seconds()}
	if atMax {
		switch {
		case a.last == nil:
			e.Reason = fmt.Sprintf("not steady (too short to tell: steady-state detection needs %g s of samples)",
				(time.Duration(stats.MinBatches*stats.BatchSize) * a.sample).Seconds())
		default:
			e.Reason = "not steady (the throughput was still changing)"
		}
	}
	return e
}
