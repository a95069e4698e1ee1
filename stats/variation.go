package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// ErrDipBelow is returned for a dip fraction outside (0, 1].
var ErrDipBelow = errors.New("dip fraction must be above 0 and at most 1")

// Variation is how much a run's interval throughput wobbles once steady.
type Variation struct {
	// CV is the coefficient of variation: the standard deviation of the
	// intervals over their mean (0.042 is 4.2%).
	CV     float64 `json:"cv"`
	Mean   float64 `json:"mean"`
	Median float64 `json:"median"`
	// Intervals is how many intervals were measured (from From on).
	Intervals int `json:"intervals"`
	From      int `json:"from"`
	// Dip is the longest run of consecutive intervals below a fraction
	// of Median.
	Dip Dip `json:"dip"`
}

// Dip is a run of consecutive intervals below Below × the median.
type Dip struct {
	Below float64 `json:"below"`
	// Start indexes the whole series (−1 when no interval dips);
	// StartSeconds is Start times the interval length.
	Start        int     `json:"start"`
	StartSeconds float64 `json:"start_seconds"`
	// Length is in intervals, Seconds in seconds; 0 when none dips.
	Length  int     `json:"length"`
	Seconds float64 `json:"seconds"`
	// Depth is how far the lowest interval of the dip fell below the
	// median, as a fraction: 0.88 means down to 12% of the median.
	Depth float64 `json:"depth"`
}

// MeasureVariation measures the intervals of a series from index from on
// (SteadyState's Start, to leave the warm-up out): their CV, and the
// longest dip below below × their median (the first of equal length). At
// least 2 intervals must remain, none negative, with a mean above 0.
func MeasureVariation(intervals []float64, from int, intervalSeconds, below float64) (Variation, error) {
	if err := checkSeries(intervals, intervalSeconds); err != nil {
		return Variation{}, err
	}
	if !(below > 0 && below <= 1) {
		return Variation{}, fmt.Errorf("%w: %v", ErrDipBelow, below)
	}
	if from < 0 {
		return Variation{}, fmt.Errorf("%w: measuring from interval %d", ErrTooShort, from+1)
	}
	if len(intervals)-from < 2 {
		return Variation{}, fmt.Errorf("%w: %d intervals from interval %d, at least 2 are needed", ErrTooShort, max(len(intervals)-from, 0), from+1)
	}
	part := intervals[from:]
	m, v := meanVar(part)
	if !(m > 0) {
		return Variation{}, fmt.Errorf("%w: the intervals' mean throughput is 0", ErrNotPositive)
	}
	sorted := slices.Sorted(slices.Values(part))
	n := len(sorted)
	median := (sorted[(n-1)/2] + sorted[n/2]) / 2
	r := Variation{CV: math.Sqrt(v) / m, Mean: m, Median: median, Intervals: len(part), From: from}
	r.Dip = longestDip(part, below*median)
	r.Dip.Below = below
	if r.Dip.Length > 0 {
		r.Dip.Start += from
		r.Dip.StartSeconds = float64(r.Dip.Start) * intervalSeconds
		r.Dip.Seconds = float64(r.Dip.Length) * intervalSeconds
		low := slices.Min(intervals[r.Dip.Start : r.Dip.Start+r.Dip.Length])
		r.Dip.Depth = 1 - low/median
	}
	return r, nil
}

// longestDip finds the longest run of values under limit; Start is −1
// when there is none.
func longestDip(v []float64, limit float64) Dip {
	best := Dip{Start: -1}
	run := 0
	for i, x := range v {
		if x < limit {
			run++
			if run > best.Length {
				best.Start, best.Length = i-run+1, run
			}
		} else {
			run = 0
		}
	}
	return best
}

// String reads "CV 4.2%; longest dip 3 s from 57 s, down to 12% of the
// median" or "CV 4.2%; no interval below 50% of the median".
func (v Variation) String() string {
	s := fmt.Sprintf("CV %.1f%%; ", 100*v.CV)
	if v.Dip.Length == 0 {
		return s + fmt.Sprintf("no interval below %s of the median", pct0(v.Dip.Below))
	}
	return s + fmt.Sprintf("longest dip below %s of the median %s from %s, down to %.0f%% of it", pct0(v.Dip.Below), secs(v.Dip.Seconds), secs(v.Dip.StartSeconds), 100*(1-v.Dip.Depth))
}
