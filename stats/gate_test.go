package stats

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// gateCase is a simulated regression check: rounds drawn from src, the
// candidate's true change against the baseline is change.
type gateCase struct {
	src    source
	higher bool
	n      int
	change float64
}

// failRate simulates the gate on c and returns how often it fails.
func failRate(t *testing.T, g Gate, c gateCase, seed uint64) float64 {
	t.Helper()
	r := newRand(seed)
	fails := 0
	for range trials {
		res, err := g.Check(c.src.draw(r, c.n, 1000), c.src.draw(r, c.n, 1000*(1+c.change)))
		if err != nil {
			t.Fatal(err)
		}
		if res.Failed() {
			fails++
		}
	}
	return float64(fails) / trials
}

// TestGateFalseAlarm: a candidate exactly at the tolerated slowdown fails
// the gate about 1 − Level of the time (5%), for throughput and latency,
// 3, 5 and 10 rounds; and one that is no slower fails almost never.
func TestGateFalseAlarm(t *testing.T) {
	const threshold, level = 0.05, 0.95
	tol := binomialTolerance(1-level, trials)
	seed := uint64(300)
	for _, logn := range []bool{true, false} {
		for _, higher := range []bool{true, false} {
			for _, n := range []int{3, 5, 10} {
				g := Gate{Threshold: threshold, HigherIsBetter: higher, Level: level}
				at := threshold
				if higher {
					at = -threshold
				}
				c := gateCase{source{logn, 0.05}, higher, n, at}
				seed++
				t.Run(fmt.Sprintf("%s_higher=%v_rounds%d", c.src, higher, n), func(t *testing.T) {
					rate := failRate(t, g, c, seed)
					t.Logf("false alarms at the threshold: %.1f%% (accepted %.1f%% to %.1f%%)", 100*rate, 100*(1-level-tol), 100*(1-level+tol))
					if math.Abs(rate-(1-level)) > tol {
						t.Errorf("false alarms %.2f%%, want %.0f%% ± %.2f%%", 100*rate, 100*(1-level), 100*tol)
					}
					c.change = 0
					if rate := failRate(t, g, c, seed+1000); rate > 1-level {
						t.Errorf("an unchanged candidate fails %.1f%% of the time", 100*rate)
					}
				})
			}
		}
	}
}

// TestGatePower states how often the gate catches a slowdown twice the
// threshold (lognormal rounds, throughput; latency is the mirror image),
// and holds it to the power Detectable predicts where that is reliable.
func TestGatePower(t *testing.T) {
	const threshold = 0.05
	g := Gate{Threshold: threshold, HigherIsBetter: true}
	seed := uint64(400)
	for _, spread := range []float64{0.02, 0.05} {
		for _, n := range []int{3, 5, 10} {
			seed++
			c := gateCase{source{true, spread}, true, n, -2 * threshold}
			t.Run(fmt.Sprintf("spread%g_rounds%d", spread, n), func(t *testing.T) {
				rate := failRate(t, g, c, seed)
				// The power of the one-sided t test with 2n−2 degrees of
				// freedom (the noncentral t), which Welch's matches from
				// 5 rounds on.
				df := float64(2*n - 2)
				shift := (math.Log(1-threshold) - math.Log(1-2*threshold)) / (spread * math.Sqrt(2/float64(n)))
				crit := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(DefaultLevel)
				want := 1 - distuv.NoncentralT{Nu: df, Mu: shift}.CDF(crit)
				t.Logf("power at a %.0f%% slowdown (2× the threshold), rounds varying %.0f%%: %.1f%% (t test's %.1f%%)", 200*threshold, 100*spread, 100*rate, 100*want)
				if n < 5 {
					if rate > want+binomialTolerance(want, trials) {
						t.Errorf("power %.1f%% above the t test's %.1f%%", 100*rate, 100*want)
					}
					return
				}
				if tol := binomialTolerance(want, trials) + 0.02; math.Abs(rate-want) > tol {
					t.Errorf("power %.1f%%, want %.1f%% ± %.1f%%", 100*rate, 100*want, 100*tol)
				}
			})
		}
	}
}

func TestGateVerdicts(t *testing.T) {
	base := []float64{1000, 1010, 990, 1005, 995}
	cases := []struct {
		name      string
		g         Gate
		candidate []float64
		want      string
		text      string
	}{
		{"clear slowdown", Gate{Threshold: 0.05, HigherIsBetter: true}, []float64{880, 890, 870, 885, 875}, Fail, "worse: -12.0%, 90% CI -12.9% to -11.1%, 5 rounds each; fail: beyond the -5.0% tolerated"},
		// Issue 48, item 4: the interval's far end is no limit on anything.
		{"median moved, not shown", Gate{Threshold: 0.05, HigherIsBetter: true}, []float64{800, 1100, 900, 1050, 850}, Pass, "no difference detected: -6.7%, 90% CI -18.1% to +6.3%, 5 rounds each; pass: not shown beyond the -5.0% tolerated"},
		{"slower within tolerance", Gate{Threshold: 0.05, HigherIsBetter: true}, []float64{970, 980, 960, 975, 965}, Pass, "worse: -3.0%, 90% CI -3.9% to -2.1%, 5 rounds each; pass: not shown beyond the -5.0% tolerated"},
		{"faster", Gate{Threshold: 0.05, HigherIsBetter: true}, []float64{1200, 1210, 1190, 1205, 1195}, Pass, "better: +20.0%, 90% CI +19.0% to +21.0%, 5 rounds each; pass"},
		{"latency up", Gate{Threshold: 0.05}, []float64{1200, 1210, 1190, 1205, 1195}, Fail, "worse: +20.0%, 90% CI +19.0% to +21.0%, 5 rounds each; fail: beyond the +5.0% tolerated"},
		{"latency down", Gate{Threshold: 0.05}, []float64{880, 890, 870, 885, 875}, Pass, "better: -12.0%, 90% CI -12.9% to -11.1%, 5 rounds each; pass"},
		{"zero threshold", Gate{HigherIsBetter: true}, []float64{970, 980, 960, 975, 965}, Fail, "worse: -3.0%, 90% CI -3.9% to -2.1%, 5 rounds each; fail: beyond the +0.0% tolerated"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := c.g.Check(base, c.candidate)
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict != c.want {
				t.Errorf("verdict %s, want %s: %v", r.Verdict, c.want, r)
			}
			if r.String() != c.text {
				t.Errorf("String() = %q, want %q", r, c.text)
			}
			// A failure is a worsening the interval shows, at the
			// same confidence: never "no difference detected".
			if r.Failed() && r.ChangeVerdict != Worse {
				t.Errorf("failed with the verdict %q", r.ChangeVerdict)
			}
			if r.Level != DefaultLevel || r.BaselineRounds != 5 || r.CandidateRounds != 5 || r.Threshold != c.g.Threshold {
				t.Errorf("figures behind the verdict: %+v", r)
			}
		})
	}
}

func TestGateThreshold(t *testing.T) {
	a := []float64{1, 2, 3}
	for _, g := range []Gate{
		{Threshold: -0.05},
		{Threshold: math.NaN()},
		{Threshold: math.Inf(1)},
		{Threshold: 1, HigherIsBetter: true},
	} {
		if _, err := g.Check(a, a); !errors.Is(err, ErrThreshold) {
			t.Errorf("%+v: err = %v, want %v", g, err, ErrThreshold)
		}
	}
	if _, err := (Gate{Threshold: 2}).Check(a, a); err != nil {
		t.Errorf("a latency may be tolerated to triple: %v", err)
	}
}

func TestGateJSON(t *testing.T) {
	r, err := Gate{Threshold: 0.05, HigherIsBetter: true}.Check([]float64{1, 2}, []float64{3, 4})
	if err != nil {
		t.Fatal(err)
	}
	checkKeys(t, r, "verdict", "change_verdict", "change", "low", "high", "interval_level", "bound", "limit", "threshold", "higher_is_better", "level", "detectable", "baseline_rounds", "candidate_rounds", "degrees_of_freedom", "method", "notes")
}
