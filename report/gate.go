package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/sysbench-go/sysbench-go/stats"
)

// GateFigure is a figure the regression gate compares: the rate ("tps",
// "qps", higher is better) or a latency percentile ("p95", lower is
// better) over a results file's measured window.
type GateFigure struct {
	Name string
	// Percentile is set for a latency figure (95 for "p95").
	Percentile float64
}

// DefaultGateFigures is what the gate checks when not told: TPS and p95.
const DefaultGateFigures = "tps,p95"

// ParseGateFigures reads a list such as "tps,p95,p99.9".
func ParseGateFigures(list string) ([]GateFigure, error) {
	var out []GateFigure
	for _, f := range strings.Split(list, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		switch {
		case f == "tps" || f == "qps":
			out = append(out, GateFigure{Name: f})
		case strings.HasPrefix(f, "p"):
			p, err := strconv.ParseFloat(f[1:], 64)
			if err != nil || !(p > 0 && p <= 100) {
				return nil, fmt.Errorf("--gate: '%s' is no figure (tps, qps or a percentile such as p95)", f)
			}
			out = append(out, GateFigure{Name: "p" + PercentileKey(p), Percentile: p})
		default:
			return nil, fmt.Errorf("--gate: '%s' is no figure (tps, qps or a percentile such as p95)", f)
		}
	}
	return out, nil
}

// ParseGateThreshold reads a tolerated worsening in per cent: "5%" or
// "5" is 0.05.
func ParseGateThreshold(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || !(v >= 0 && v < 100) {
		return 0, fmt.Errorf("--gate-threshold: '%s' is no percentage from 0 to below 100 (such as 5%%)", s)
	}
	return v / 100, nil
}

// HigherIsBetter is true for a rate.
func (f GateFigure) HigherIsBetter() bool { return f.Percentile == 0 }

// format writes a value of the figure: "2369.44/s", "3.031 ms".
func (f GateFigure) format(v float64) string {
	if f.HigherIsBetter() {
		return fmt.Sprintf("%.2f/s", v)
	}
	return fmt.Sprintf("%.3f ms", v)
}

// Value is the figure of one results file: its rate, or the percentile of
// its whole histogram in milliseconds.
func (f GateFigure) Value(r *Results) (float64, error) {
	if r.Total == nil {
		return 0, fmt.Errorf("the run measured nothing (its results file has no total)")
	}
	switch f.Name {
	case "tps":
		return r.Total.TPS, nil
	case "qps":
		return r.Total.QPS.Total, nil
	}
	snap, err := r.Total.Snapshot()
	if err != nil {
		return 0, err
	}
	return float64(snap.Percentile(f.Percentile)) / 1e6, nil
}

// GateReport is the regression gate's answer: a verdict per figure and
// the whole one (fail when any figure fails). Written by report's
// --gate-json.
type GateReport struct {
	Verdict   string  `json:"verdict"`
	Threshold float64 `json:"threshold"`
	Level     float64 `json:"level"`
	// Baseline and Candidate are the files read, one round each.
	Baseline  []string         `json:"baseline"`
	Candidate []string         `json:"candidate"`
	Figures   []GateFigureGate `json:"figures"`
}

// GateFigureGate is one figure's verdict with the rounds behind it: the
// figure of each file (Baseline, Candidate) and the gate's numbers,
// whose baseline_rounds and candidate_rounds count them.
type GateFigureGate struct {
	Figure    string    `json:"figure"`
	Baseline  []float64 `json:"baseline_figures"`
	Candidate []float64 `json:"candidate_figures"`
	// BaselineMedian and CandidateMedian are shown beside the verdict: the
	// gate does not decide on them.
	BaselineMedian  float64 `json:"baseline_median"`
	CandidateMedian float64 `json:"candidate_median"`
	stats.GateResult
}

// Failed says whether the gate failed.
func (g *GateReport) Failed() bool { return g.Verdict == stats.Fail }

// RunGate checks candidate against baseline, every file one round, on
// each figure, failing a figure only when its rounds show a worsening
// beyond threshold at 95% one-sided confidence.
func RunGate(baseline, candidate []*Results, baseNames, candNames []string, figures []GateFigure, threshold float64) (*GateReport, error) {
	g := &GateReport{Verdict: stats.Pass, Threshold: threshold, Level: stats.DefaultLevel, Baseline: baseNames, Candidate: candNames}
	values := func(rs []*Results, names []string, f GateFigure) ([]float64, error) {
		v := make([]float64, len(rs))
		for i, r := range rs {
			x, err := f.Value(r)
			if err != nil {
				return nil, fmt.Errorf("'%s': %w", names[i], err)
			}
			if !(x > 0) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("gate: '%s' measured no %s (%g): a round that measured nothing has no ratio; rerun it or leave it out", names[i], f.Name, x)
			}
			v[i] = x
		}
		return v, nil
	}
	for _, f := range figures {
		b, err := values(baseline, baseNames, f)
		if err != nil {
			return nil, err
		}
		c, err := values(candidate, candNames, f)
		if err != nil {
			return nil, err
		}
		res, err := stats.Gate{Threshold: threshold, HigherIsBetter: f.HigherIsBetter()}.Check(b, c)
		if err != nil {
			return nil, fmt.Errorf("gate: %s: %w", f.Name, err)
		}
		if res.Failed() {
			g.Verdict = stats.Fail
		}
		g.Figures = append(g.Figures, GateFigureGate{Figure: f.Name, Baseline: b, Candidate: c,
			BaselineMedian: median(b), CandidateMedian: median(c), GateResult: res})
	}
	return g, nil
}

// WriteGate prints one line per figure and a last PASS or FAIL line.
func WriteGate(w io.Writer, g *GateReport, figures []GateFigure) {
	for i, f := range g.Figures {
		fmt.Fprintf(w, "%-6s baseline median %s, new median %s: %s\n", f.Figure,
			figures[i].format(f.BaselineMedian), figures[i].format(f.CandidateMedian), f.GateResult)
	}
	var failed []string
	for _, f := range g.Figures {
		if f.Failed() {
			failed = append(failed, f.Figure)
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(w, "FAIL: %s worse than the %.1f%% tolerated\n", strings.Join(failed, ", "), 100*g.Threshold)
		return
	}
	fmt.Fprintf(w, "PASS: no figure shown worse than the %.1f%% tolerated\n", 100*g.Threshold)
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	n := len(s)
	if n == 0 {
		return 0
	}
	return (s[(n-1)/2] + s[n/2]) / 2
}
