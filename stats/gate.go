package stats

import (
	"errors"
	"fmt"
	"math"
)

// ErrThreshold is returned for a tolerance that is negative, not finite, or
// (for a higher-is-better figure) 100% or more.
var ErrThreshold = errors.New("invalid regression threshold")

// Gate decides whether a candidate regressed against a baseline by more
// than a tolerated amount, and only when its rounds show it: it fails when
// the one-sided confidence bound of the change lies beyond the tolerance,
// not when the medians merely moved.
type Gate struct {
	// Threshold is the tolerated worsening as a fraction: 0.05 tolerates
	// TPS 5% lower (ratio 0.95) or p95 5% higher (ratio 1.05).
	Threshold float64
	// HigherIsBetter is true for throughput (TPS, QPS), false for
	// latencies.
	HigherIsBetter bool
	// Level is the one-sided confidence (0 means DefaultLevel): the gate
	// fails a candidate exactly at the tolerance at most 1−Level of the
	// time.
	Level float64
}

// GateResult is a Gate's verdict with the numbers behind it. Relative
// values are fractions of the baseline: −0.098 is 9.8% lower.
type GateResult struct {
	// Verdict is the gate's outcome, Pass or Fail: Fail only when
	// ChangeVerdict is Worse and even Bound is beyond Limit.
	Verdict string `json:"verdict"`
	// ChangeVerdict is what the interval [Low, High] says of the change:
	// Better, Worse or NoDifference (the words of every comparison).
	ChangeVerdict Verdict `json:"change_verdict"`
	// Change is candidate / baseline − 1 on the geometric means.
	Change float64 `json:"change"`
	// Low and High are the one-sided confidence bounds of Change at
	// Level, below and above: together the two-sided interval at
	// IntervalLevel (2·Level − 1, 90% for the gate's 95%).
	Low           float64 `json:"low"`
	High          float64 `json:"high"`
	IntervalLevel float64 `json:"interval_level"`
	// Bound is the one of Low and High on the good side: the best the
	// candidate may be (High for throughput, Low for latency). The gate
	// fails when even that is beyond Limit.
	Bound float64 `json:"bound"`
	// Limit is the worst change tolerated: −Threshold for throughput,
	// +Threshold for latency.
	Limit          float64 `json:"limit"`
	Threshold      float64 `json:"threshold"`
	HigherIsBetter bool    `json:"higher_is_better"`
	Level          float64 `json:"level"`
	// Detectable is the change at which this gate, with these rounds'
	// spread, fails 4 times in 5 (80% power).
	Detectable       float64  `json:"detectable"`
	BaselineRounds   int      `json:"baseline_rounds"`
	CandidateRounds  int      `json:"candidate_rounds"`
	DegreesOfFreedom float64  `json:"degrees_of_freedom"`
	Method           string   `json:"method"`
	Notes            []string `json:"notes,omitempty"`
}

// Check applies the gate to one figure per round of each side (at least 2
// rounds each, all positive and finite).
func (g Gate) Check(baseline, candidate []float64) (GateResult, error) {
	limitRatio := 1 + g.Threshold
	if g.HigherIsBetter {
		limitRatio = 1 - g.Threshold
	}
	if !(g.Threshold >= 0) || math.IsInf(g.Threshold, 1) || !(limitRatio > 0) {
		return GateResult{}, fmt.Errorf("%w: %v", ErrThreshold, g.Threshold)
	}
	w, err := welchLog(baseline, candidate, g.Level)
	if err != nil {
		return GateResult{}, err
	}
	t := w.quantile(w.level)
	reach := (t + w.quantile(DetectionPower)) * w.se
	limit := math.Log(limitRatio)
	r := GateResult{
		Verdict:          Pass,
		Change:           math.Expm1(w.diff),
		Low:              math.Expm1(w.diff - t*w.se),
		High:             math.Expm1(w.diff + t*w.se),
		IntervalLevel:    2*w.level - 1,
		Limit:            limitRatio - 1,
		Threshold:        g.Threshold,
		HigherIsBetter:   g.HigherIsBetter,
		Level:            w.level,
		BaselineRounds:   len(baseline),
		CandidateRounds:  len(candidate),
		DegreesOfFreedom: w.df,
		Method:           MethodWelchLog,
		Notes:            w.notes,
	}
	if g.HigherIsBetter {
		bound := w.diff + t*w.se
		r.Bound, r.Detectable = math.Expm1(bound), math.Expm1(limit-reach)
		if bound < limit {
			r.Verdict = Fail
		}
	} else {
		bound := w.diff - t*w.se
		r.Bound, r.Detectable = math.Expm1(bound), math.Expm1(limit+reach)
		if bound > limit {
			r.Verdict = Fail
		}
	}
	r.ChangeVerdict = Judge(r.Low, r.High, g.HigherIsBetter)
	if err := allFinite(r.Change, r.Low, r.High, r.Detectable); err != nil {
		return GateResult{}, err
	}
	return r, nil
}

// Failed reports whether the verdict is Fail.
func (r GateResult) Failed() bool { return r.Verdict == Fail }

// String reads the change's verdict with its interval, then the gate's
// outcome: "worse: -9.8%, 90% CI -13.4% to -6.1%, 5 rounds each; fail:
// beyond the -5.0% tolerated", "better: +20.0%, 90% CI ...; pass", "no
// difference detected: ...; pass: not shown beyond the -5.0% tolerated".
// The interval's ends are the gate's one-sided 95% bounds, so a failure is
// always a worsening the interval shows.
func (r GateResult) String() string {
	s := fmt.Sprintf("%s: %s, %s CI %s to %s, %s; %s", r.ChangeVerdict, pct(r.Change), pct0(r.IntervalLevel), pct(r.Low), pct(r.High),
		roundsText(r.BaselineRounds, r.CandidateRounds), r.Verdict)
	switch {
	case r.Failed():
		s += fmt.Sprintf(": beyond the %s tolerated", pct(r.Limit))
	case r.ChangeVerdict != Better:
		s += fmt.Sprintf(": not shown beyond the %s tolerated", pct(r.Limit))
	}
	return s
}
