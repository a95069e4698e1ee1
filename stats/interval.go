package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Interval is a confidence interval for the mean of one figure over
// repeated rounds (the capacity search's rate, confirmed over rounds).
type Interval struct {
	Mean  float64 `json:"mean"`
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
	Level float64 `json:"level"`
	// Rounds is how many figures the interval is over.
	Rounds int `json:"rounds"`
	// Method names how it was computed.
	Method string `json:"method"`
	// Notes say what weakens it: too few rounds, no spread, a drift.
	Notes []string `json:"notes,omitempty"`
}

// MeanInterval is Student's t interval for the mean of the rounds v at
// level (0: DefaultLevel). It assumes independent rounds of one setup;
// at least 2 are needed to see how much they vary.
func MeanInterval(v []float64, level float64) (Interval, error) {
	if level == 0 {
		level = DefaultLevel
	}
	if !(level >= 0.5 && level < 1) {
		return Interval{}, fmt.Errorf("%w: %v", ErrLevel, level)
	}
	if len(v) < 2 {
		return Interval{}, fmt.Errorf("%w: %d round(s), at least 2 are needed to see how much rounds vary", ErrTooFewRounds, len(v))
	}
	if err := allFinite(v...); err != nil {
		return Interval{}, err
	}
	mean, variance := meanVar(v)
	n := float64(len(v))
	se := math.Sqrt(variance / n)
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(1 - (1-level)/2)
	iv := Interval{Mean: mean, Low: mean - q*se, High: mean + q*se, Level: level, Rounds: len(v),
		Method: "Student's t interval for the mean of the rounds"}
	if variance == 0 {
		iv.Notes = append(iv.Notes, "the rounds do not vary at all: the interval has no width")
	}
	if len(v) < 3 {
		iv.Notes = append(iv.Notes, "only 2 rounds: the interval is wide and the spread itself is a guess")
	}
	if d := drift(v); d != "" {
		iv.Notes = append(iv.Notes, fmt.Sprintf("the rounds %s steadily from first to last: drift between rounds breaks the assumption that they are independent repeats", d))
	}
	if err := allFinite(iv.Low, iv.High); err != nil {
		return Interval{}, err
	}
	return iv, nil
}
