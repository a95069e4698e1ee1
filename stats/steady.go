package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// BatchSize is MSER-5's: intervals are averaged in batches of 5 before the
// truncation point is searched, which damps interval-to-interval noise.
const BatchSize = 5

// tailBatches is the fewest batches the search always keeps (and a
// quarter of them when that is more): the statistic of the last few
// batches is mostly chance.
const tailBatches = 5

// trendLevel and trendTolerance decide that the batches after MSER's cut
// still change: a least-squares slope significant at 1% (two-sided) that
// moves the throughput by more than 5% over them.
const (
	trendLevel     = 0.99
	trendTolerance = 0.05
)

// MinBatches is the fewest whole batches SteadyState accepts (60
// intervals): with fewer, half the series is too little to search.
const MinBatches = 12

// Steady is where a run's interval throughput settles, found by MSER-5.
type Steady struct {
	// Steady is false when the series has not settled within its first
	// half; Start is then where MSER's minimum fell, in the second half,
	// and the other figures describe the run from there all the same.
	Steady bool `json:"steady"`
	// Start is the index of the first steady interval (0: steady from
	// the start); StartSeconds is Start times the interval length.
	Start        int     `json:"start"`
	StartSeconds float64 `json:"start_seconds"`
	// WarmupDifference is the mean of the intervals before Start against
	// the mean from Start on, as a fraction: −0.18 means the warm-up ran
	// 18% below the steady part. 0 when Start is 0.
	WarmupDifference float64 `json:"warmup_difference"`
	// SteadyMean is the mean of the intervals from Start on.
	SteadyMean float64 `json:"steady_mean"`
	// Batches is how many whole batches of BatchSize intervals were
	// searched.
	Batches int `json:"batches"`
	// Reason says why the series is not steady, "" when it is.
	Reason string `json:"reason,omitempty"`
}

// SteadyState finds where a series of interval throughputs (one figure per
// report interval of intervalSeconds, oldest first, at least
// MinBatches×BatchSize of them, none negative) becomes steady, by MSER-5:
// the intervals are averaged in batches of 5, and the truncation point d is
// the number of leading batches whose removal minimises
//
//	MSER(d) = Σ_{j>d} (Z_j − Z̄_d)² / (k − d)²
//
// the variance of the remaining mean, which falls as biased warm-up batches
// are cut and rises again as good data is thrown away. d is searched in
// the first half of the k batches, as MSER's authors do. A minimum at the
// edge of that half, with the minimum over a longer search (up to the last
// quarter, at least 5 batches kept: the statistic of the last few is
// mostly chance) beyond it, is the diagnostic of a series that has not
// settled: Steady is false. A steady cut is then moved back over the
// batches just before it that lie within 4 standard deviations of the
// steady batches: over a stationary stretch MSER's minimum wanders, and
// without this step about one series of pure noise in five is cut more
// than a batch late.
func SteadyState(intervals []float64, intervalSeconds float64) (Steady, error) {
	if err := checkSeries(intervals, intervalSeconds); err != nil {
		return Steady{}, err
	}
	k := len(intervals) / BatchSize
	if k < MinBatches {
		return Steady{}, fmt.Errorf("%w: %d intervals, steady-state detection needs at least %d (%d batches of %d)", ErrTooShort, len(intervals), MinBatches*BatchSize, MinBatches, BatchSize)
	}
	z := make([]float64, k)
	for j := range z {
		for _, x := range intervals[j*BatchSize : (j+1)*BatchSize] {
			z[j] += x
		}
		z[j] /= BatchSize
	}
	mser := msers(z)
	half := k / 2
	// The minimum within the first half (MSER's usual search) and over
	// the whole search: the run has not settled when the first half's
	// lies at its edge, still falling, and the whole search's beyond it.
	// Either alone is chance too often: over a stationary stretch MSER's
	// minimum wanders, into the second half as often as not.
	cut := argmin(mser, half)
	change, trending := trend(z[cut:])
	steady := !trending
	if steady {
		cut = walkBack(z, cut)
	} else {
		// Where MSER's minimum falls over a longer search says where
		// the change ends, if it does within the run.
		cut = argmin(mser, k-max(tailBatches, k/4))
	}
	s := Steady{Steady: steady, Start: cut * BatchSize, Batches: k}
	s.StartSeconds = float64(s.Start) * intervalSeconds
	s.SteadyMean = mean(intervals[s.Start:])
	if s.Start > 0 {
		if s.SteadyMean > 0 {
			s.WarmupDifference = mean(intervals[:s.Start])/s.SteadyMean - 1
		} else {
			s.Steady = false
			s.Reason = "the throughput fell to 0 and stayed there"
			return s, nil
		}
	}
	if !s.Steady {
		s.Reason = fmt.Sprintf("the throughput still changes after the first half's best cut (%+.1f%% over the rest of the run, a significant trend): it has not settled, or settles later (MSER-5's minimum over the run is at %s)", 100*change, secs(s.StartSeconds))
	}
	return s, nil
}

// trend fits a straight line to the batch means z by least squares and
// returns the relative change it makes over them (the line's rise from
// the first batch to the last, over their mean) and whether that change
// is a trend: a slope significant at trendLevel that moves more than
// trendTolerance. Batch means of 5 are close to independent, which the
// t test assumes; the tolerance keeps a tiny but significant slope of a
// long quiet run steady.
func trend(z []float64) (change float64, trending bool) {
	n := float64(len(z))
	if len(z) < 3 {
		return 0, false
	}
	var mx, my float64
	for i, v := range z {
		mx += float64(i)
		my += v
	}
	mx, my = mx/n, my/n
	var sxx, sxy float64
	for i, v := range z {
		dx := float64(i) - mx
		sxx += dx * dx
		sxy += dx * (v - my)
	}
	slope := sxy / sxx
	var sse float64
	for i, v := range z {
		r := v - (my + slope*(float64(i)-mx))
		sse += r * r
	}
	if my <= 0 {
		return 0, false
	}
	change = slope * (n - 1) / my
	se := math.Sqrt(sse / (n - 2) / sxx)
	if se == 0 {
		return change, math.Abs(change) > trendTolerance
	}
	t := math.Abs(slope / se)
	crit := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 2}.Quantile(1 - (1-trendLevel)/2)
	return change, t > crit && math.Abs(change) > trendTolerance
}

// argmin is the d in [0, last] where mser is least, the first of equal
// ones: a relative margin keeps a flat series at its first minimum instead
// of a rounding error's later one.
func argmin(mser []float64, last int) int {
	cut := 0
	for d := 1; d <= last; d++ {
		if mser[d] < mser[cut]*(1-1e-9) {
			cut = d
		}
	}
	return cut
}

// walkBack moves the cut back over the batches just before it that are
// within 4 standard deviations of the steady batches' mean (4, not 3: the
// cut was chosen where the rest varies least, so their deviation is
// underestimated).
func walkBack(z []float64, cut int) int {
	m, v := meanVar(z[cut:])
	limit := 4 * math.Sqrt(v)
	for cut > 0 && math.Abs(z[cut-1]-m) <= limit {
		cut--
	}
	return cut
}

// msers returns MSER(d) for every d from 0 to len(z)−1, from running sums
// taken from the end (Welford's update, stable for large throughputs).
func msers(z []float64) []float64 {
	k := len(z)
	out := make([]float64, k)
	var m, ss float64
	for i := k - 1; i >= 0; i-- {
		n := float64(k - i)
		delta := z[i] - m
		m += delta / n
		ss += delta * (z[i] - m)
		out[i] = ss / (n * n)
	}
	return out
}

// String reads "steady from 45 s; the first 45 s ran 17.3% below",
// "steady from the start", or "not steady: ...".
func (s Steady) String() string {
	if !s.Steady {
		return "not steady: " + s.Reason
	}
	if s.Start == 0 {
		return "steady from the start"
	}
	dir := "below"
	if s.WarmupDifference > 0 {
		dir = "above"
	}
	return fmt.Sprintf("steady from %s; the first %s ran %.1f%% %s", secs(s.StartSeconds), secs(s.StartSeconds), 100*math.Abs(s.WarmupDifference), dir)
}

// checkSeries refuses a series with a negative, NaN or infinite interval,
// and an interval length that is not a positive number.
func checkSeries(intervals []float64, intervalSeconds float64) error {
	if !(intervalSeconds > 0) || math.IsInf(intervalSeconds, 1) {
		return fmt.Errorf("%w: interval length %v s", ErrNotPositive, intervalSeconds)
	}
	for i, x := range intervals {
		if !(x >= 0) || math.IsInf(x, 1) {
			return fmt.Errorf("%w: interval %d is %v", ErrNotPositive, i+1, x)
		}
	}
	return nil
}

func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

func secs(s float64) string { return fmt.Sprintf("%g s", s) }
