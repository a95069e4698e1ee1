package report

import (
	"fmt"
	"io"

	"github.com/sysbench-go/sysbench-go/stats"
)

// DipBelow is the fraction of the median throughput an interval must fall
// under to count as part of a dip (a stall: a checkpoint, a vacuum, a
// flush).
const DipBelow = 0.5

// WarmupEnd is how the run's warm-up (--warmup-time) ended: when the
// measured window began and why.
type WarmupEnd struct {
	// Auto is --warmup-time=auto: the warm-up ends once the throughput is
	// steady, at the latest after MaxSeconds.
	Auto       bool    `json:"auto"`
	MaxSeconds float64 `json:"max_s"`
	// EndedSeconds is when the measured window began, in seconds from the
	// workers' start.
	EndedSeconds float64 `json:"ended_s"`
	// Steady says the throughput was found steady (MSER-5 over the warm-up
	// sampled every SampleSeconds) before the maximum.
	Steady        bool    `json:"steady"`
	SampleSeconds float64 `json:"sample_s,omitempty"`
	// Reason is the output's line: "throughput steady", "the maximum:
	// not steady", "fixed".
	Reason string `json:"reason"`
}

// String is the output's line for an automatic warm-up.
func (w *WarmupEnd) String() string {
	if w.Steady {
		return fmt.Sprintf("Warm-up ended at %.1f s: throughput steady", w.EndedSeconds)
	}
	return fmt.Sprintf("Warm-up ended at the %g s maximum: %s", w.MaxSeconds, w.Reason)
}

// Steadiness is what a run's intervals say of its throughput: where it
// settled and how much it wobbled from there.
type Steadiness struct {
	// Steady is MSER-5's verdict, nil with too few intervals.
	Steady *stats.Steady
	// Variation is measured from the steady start (from the first
	// interval when the run never settled), nil with fewer than 2
	// intervals.
	Variation *stats.Variation
}

// MeasureSteadiness describes a run from its measured intervals' throughput
// (tps), each intervalSeconds long.
func MeasureSteadiness(tps []float64, intervalSeconds float64) Steadiness {
	var out Steadiness
	from := 0
	if s, err := stats.SteadyState(tps, intervalSeconds); err == nil {
		out.Steady = &s
		if s.Steady {
			from = s.Start
		}
	}
	if v, err := stats.MeasureVariation(tps, from, intervalSeconds, DipBelow); err == nil {
		out.Variation = &v
	}
	return out
}

// WriteSteadiness writes the lines after the final report: where the run
// settled, and its variation from there. Nothing without a verdict (too
// few intervals): a short run's output stays the reference's.
func WriteSteadiness(w io.Writer, s Steadiness) {
	if s.Steady == nil {
		return
	}
	if s.Steady.Steady {
		if s.Steady.Start == 0 {
			fmt.Fprintf(w, "Steady state: from the start\n")
		} else {
			fmt.Fprintf(w, "Steady state: from %s\n", s.Steady.String()[len("steady from "):])
		}
	} else {
		fmt.Fprintf(w, "Steady state: not reached (%s)\n", s.Steady.Reason)
	}
	if s.Variation != nil {
		fmt.Fprintf(w, "Variation: %s\n", s.Variation.String())
	}
	fmt.Fprintf(w, "\n")
}
