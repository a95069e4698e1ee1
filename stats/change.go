package stats

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// DefaultLevel is the confidence level used when a caller passes 0.
const DefaultLevel = 0.95

// DetectionPower is the power at which Change.Detectable is stated: the
// difference the rounds would have found 4 times in 5.
const DetectionPower = 0.80

// Errors that name what is wrong with the input; the returned errors wrap
// them with the details.
var (
	ErrTooFewRounds = errors.New("too few rounds")
	ErrNotPositive  = errors.New("figure is not a positive number")
	ErrLevel        = errors.New("confidence level must be between 0.5 and 1")
	ErrTooShort     = errors.New("too few intervals")
	ErrOutOfRange   = errors.New("rounds too far apart to state as a percentage")
)

// Change is how a candidate's rounds differ from a baseline's: the
// relative change of the candidate's typical value (geometric mean) against
// the baseline's, with a confidence interval. Relative values are
// fractions: 0.124 is +12.4%.
type Change struct {
	// Estimate is candidate / baseline − 1, on the geometric means.
	Estimate float64 `json:"estimate"`
	// Low and High bound the two-sided confidence interval of Estimate.
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	// Level is the interval's confidence (0.95).
	Level float64 `json:"level"`
	// Detected is true when the interval excludes 0: the rounds show a
	// difference at this level.
	Detected bool `json:"detected"`
	// Detectable is the smallest change these rounds would detect with
	// 80% power at Level, judged from their own spread: a change of about
	// ±Detectable or more would have been found 4 times in 5.
	Detectable      float64 `json:"detectable"`
	BaselineRounds  int     `json:"baseline_rounds"`
	CandidateRounds int     `json:"candidate_rounds"`
	// DegreesOfFreedom is Welch's; small values (under 4) make the
	// interval wide.
	DegreesOfFreedom float64 `json:"degrees_of_freedom"`
	// Method names the computation: "welch_t_log".
	Method string `json:"method"`
	// Notes are warnings a reader should see beside the figures: too few
	// rounds, rounds that do not vary, rounds that drift.
	Notes []string `json:"notes,omitempty"`
}

// MethodWelchLog is Change.Method: Welch's t interval on the logarithms of
// the figures, a confidence interval for the ratio of geometric means.
const MethodWelchLog = "welch_t_log"

// Compare estimates the change of candidate against baseline, one figure
// per round each (at least 2 rounds each, all positive and finite), with a
// two-sided confidence interval at level (0 means DefaultLevel).
func Compare(baseline, candidate []float64, level float64) (Change, error) {
	w, err := welchLog(baseline, candidate, level)
	if err != nil {
		return Change{}, err
	}
	t := w.quantile(1 - (1-w.level)/2)
	c := Change{
		Estimate:         math.Expm1(w.diff),
		Low:              math.Expm1(w.diff - t*w.se),
		High:             math.Expm1(w.diff + t*w.se),
		Level:            w.level,
		Detectable:       math.Expm1((t + w.quantile(DetectionPower)) * w.se),
		BaselineRounds:   len(baseline),
		CandidateRounds:  len(candidate),
		DegreesOfFreedom: w.df,
		Method:           MethodWelchLog,
		Notes:            w.notes,
	}
	c.Detected = c.Low > 0 || c.High < 0
	if err := allFinite(c.Estimate, c.Low, c.High, c.Detectable); err != nil {
		return Change{}, err
	}
	return c, nil
}

// String is the change with its interval: "+12.4%, 95% CI +8.1% to
// +16.9%, 5 rounds each", and, when the interval holds 0, what the rounds
// could have detected: "; these rounds detect about ±9.0% or more". The
// verdict's word (Verdict) is the caller's to put before it: the change
// does not know which side is better.
func (c Change) String() string {
	s := fmt.Sprintf("%s, %s CI %s to %s, %s", pct(c.Estimate), pct0(c.Level), pct(c.Low), pct(c.High), roundsText(c.BaselineRounds, c.CandidateRounds))
	if !c.Detected {
		s += fmt.Sprintf("; these rounds detect about ±%.1f%% or more", 100*c.Detectable)
	}
	return s
}

// Verdict is the change's word for a figure where higher is better (a
// rate) or lower is (a latency): Better, Worse or NoDifference.
func (c Change) Verdict(higherIsBetter bool) Verdict {
	return Judge(c.Low, c.High, higherIsBetter)
}

// welch is Welch's two-sample t on the logs of the figures.
type welch struct {
	diff   float64 // mean log candidate − mean log baseline
	se     float64 // its standard error
	df     float64 // Welch–Satterthwaite degrees of freedom
	level  float64
	notes  []string
	spread bool // false when neither side varies at all
}

func welchLog(baseline, candidate []float64, level float64) (welch, error) {
	if level == 0 {
		level = DefaultLevel
	}
	if !(level >= 0.5 && level < 1) {
		return welch{}, fmt.Errorf("%w: %v", ErrLevel, level)
	}
	la, err := logs("baseline", baseline)
	if err != nil {
		return welch{}, err
	}
	lb, err := logs("candidate", candidate)
	if err != nil {
		return welch{}, err
	}
	ma, va := meanVar(la)
	mb, vb := meanVar(lb)
	na, nb := float64(len(la)), float64(len(lb))
	qa, qb := va/na, vb/nb
	w := welch{diff: mb - ma, se: math.Sqrt(qa + qb), level: level, spread: qa+qb > 0}
	if w.spread {
		w.df = (qa + qb) * (qa + qb) / (qa*qa/(na-1) + qb*qb/(nb-1))
	} else {
		// Both sides identical within themselves: the interval collapses
		// to the point; the degrees of freedom only keep the figures
		// finite.
		w.df = na + nb - 2
		w.notes = append(w.notes, "the rounds do not vary at all on either side: the interval has no width and holds only if that is no accident of rounding")
	}
	if min(len(la), len(lb)) < 3 {
		w.notes = append(w.notes, fmt.Sprintf("only %s: the interval is wide and the spread itself is a guess; 5 rounds or more each make it useful", roundsText(len(la), len(lb))))
	}
	for _, side := range []struct {
		name string
		v    []float64
	}{{"baseline", la}, {"candidate", lb}} {
		if d := drift(side.v); d != "" {
			w.notes = append(w.notes, fmt.Sprintf("the %s's rounds %s steadily from first to last: drift between rounds breaks the assumption that they are independent repeats", side.name, d))
		}
	}
	return w, nil
}

// quantile is Student's t quantile at p with the Welch degrees of freedom.
func (w welch) quantile(p float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: w.df}.Quantile(p)
}

// allFinite refuses results that overflow: rounds spanning hundreds of
// orders of magnitude, which no benchmark produces but a typo can.
func allFinite(fs ...float64) error {
	for _, f := range fs {
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return fmt.Errorf("%w: the rounds differ by hundreds of orders of magnitude", ErrOutOfRange)
		}
	}
	return nil
}

// logs checks a side's figures and returns their natural logarithms.
func logs(side string, v []float64) ([]float64, error) {
	if len(v) < 2 {
		return nil, fmt.Errorf("%w: the %s has %d round(s), at least 2 are needed to see how much rounds vary", ErrTooFewRounds, side, len(v))
	}
	out := make([]float64, len(v))
	for i, x := range v {
		if !(x > 0) || math.IsInf(x, 1) {
			return nil, fmt.Errorf("%w: the %s's round %d is %v; a round that measured nothing cannot be compared as a ratio (rerun it or leave it out)", ErrNotPositive, side, i+1, x)
		}
		out[i] = math.Log(x)
	}
	return out, nil
}

// meanVar returns the mean and the sample variance (n−1) of v, len(v) ≥ 2.
// The values are taken relative to the first, so that equal values give a
// variance of exactly 0.
func meanVar(v []float64) (mean, variance float64) {
	var sum float64
	for _, x := range v {
		sum += x - v[0]
	}
	shift := sum / float64(len(v))
	for _, x := range v {
		d := x - v[0] - shift
		variance += d * d
	}
	return v[0] + shift, variance / float64(len(v)-1)
}

// drift says "rise" or "fall" when 5 rounds or more are strictly monotone
// in the order given (by chance 1 time in 60 or less for independent
// rounds), "" otherwise.
func drift(v []float64) string {
	if len(v) < 5 {
		return ""
	}
	up, down := true, true
	for i := 1; i < len(v); i++ {
		up = up && v[i] > v[i-1]
		down = down && v[i] < v[i-1]
	}
	switch {
	case up:
		return "rise"
	case down:
		return "fall"
	}
	return ""
}

func roundsText(a, b int) string {
	if a == b {
		return fmt.Sprintf("%d rounds each", a)
	}
	return fmt.Sprintf("%d baseline and %d candidate rounds", a, b)
}

// pct formats a fraction as a signed per cent with one decimal.
func pct(f float64) string { return fmt.Sprintf("%+.1f%%", 100*f) }

// pct0 formats a level as "95%" (or "99.5%").
func pct0(f float64) string { return fmt.Sprintf("%g%%", math.Round(1000*f)/10) }
