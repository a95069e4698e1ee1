package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/sysbench-go/sysbench-go/metrics"
)

// Threshold is one --threshold expression: a measure of the whole run, a
// comparison and a bound, as k6's thresholds (p95<5ms, tps>1000,
// errors<0.1%). A run that misses one exits with ThresholdsFailed.
type Threshold struct {
	Expr    string
	measure string  // "p", "avg", "min", "max", "tps", "qps", "errors", "error_count", "reconnects", "failed", "retries"
	pct     float64 // for "p"
	op      string
	bound   float64 // ns for latencies, a fraction for errors, else as is
}

// ThresholdsFailed is the exit status of a run that missed a threshold
// (k6's), distinct from 1 (an error) and 2 (a forced shutdown).
const ThresholdsFailed = 99

// measures and what their bound is.
var thresholdMeasures = map[string]string{
	"avg": "latency", "min": "latency", "max": "latency",
	"tps": "rate", "eps": "rate", "qps": "rate",
	"errors":      "ratio",
	"error_count": "count", "reconnects": "count", "failed": "count", "retries": "count",
}

// ParseThreshold parses an expression; the error says what is wrong in it.
func ParseThreshold(expr string) (Threshold, error) {
	t := Threshold{Expr: expr}
	s := strings.ReplaceAll(expr, " ", "")
	i := strings.IndexAny(s, "<>=!")
	if i <= 0 {
		return t, fmt.Errorf("invalid --threshold '%s': want a measure, a comparison and a bound, as p95<5ms or tps>1000", expr)
	}
	name, rest := strings.ToLower(s[:i]), s[i:]
	for _, op := range []string{"<=", ">=", "==", "!=", "<", ">"} {
		if strings.HasPrefix(rest, op) {
			t.op, rest = op, rest[len(op):]
			break
		}
	}
	if t.op == "" {
		return t, fmt.Errorf("invalid --threshold '%s': '%s' is not a comparison (<, <=, >, >=, ==, !=)", expr, rest)
	}
	if rest == "" {
		return t, fmt.Errorf("invalid --threshold '%s': no bound after %s", expr, t.op)
	}
	kind, err := t.parseMeasure(name)
	if err != nil {
		return t, fmt.Errorf("invalid --threshold '%s': %v", expr, err)
	}
	if t.bound, err = parseBound(rest, kind, t.op); err != nil {
		return t, fmt.Errorf("invalid --threshold '%s': %v", expr, err)
	}
	return t, nil
}

func (t *Threshold) parseMeasure(name string) (kind string, err error) {
	if kind, ok := thresholdMeasures[name]; ok {
		t.measure = name
		return kind, nil
	}
	if p, ok := strings.CutPrefix(name, "p"); ok {
		p = strings.TrimSuffix(strings.TrimPrefix(p, "("), ")")
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || !(v > 0 && v <= 100) {
			return "", fmt.Errorf("'%s' is not a percentile (p50, p95, p99.9: above 0, at most 100)", name)
		}
		t.measure, t.pct = "p", v
		return "latency", nil
	}
	return "", fmt.Errorf("unknown measure '%s' (p<N>, avg, min, max, tps, qps, errors, error_count, reconnects, failed, retries)", name)
}

// parseBound reads a bound: latencies in us, ms (the default) or s; the
// error ratio as a percentage (0.1%) or a fraction below 1 (0.001). A
// bare number of 1 or more for the ratio is refused: errors<5 reads as 5
// errors, 5% or 5 per second as much as a fraction of 5, and as a
// fraction it could never fail.
func parseBound(s, kind, op string) (float64, error) {
	num, unit := s, ""
	if j := strings.IndexFunc(s, func(r rune) bool {
		return (r < '0' || r > '9') && r != '.' && r != '-' && r != '+' && r != 'e' && r != 'E'
	}); j >= 0 {
		num, unit = s[:j], s[j:]
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("'%s' is not a number", s)
	}
	switch kind {
	case "latency":
		mult := map[string]float64{"": 1e6, "ms": 1e6, "us": 1e3, "µs": 1e3, "ns": 1, "s": 1e9}[unit]
		if mult == 0 {
			return 0, fmt.Errorf("unit '%s' is not one of us, ms, s", unit)
		}
		return v * mult, nil
	case "ratio":
		switch {
		case unit == "%" && v > 100:
			return 0, fmt.Errorf("errors is a share of the events tried: %s is above 100%%", s)
		case unit == "%":
			return v / 100, nil
		case unit == "" && v >= 1:
			return 0, fmt.Errorf("errors is a share of the events tried: a bare %s is ambiguous: errors%s%s%% for a percentage, errors%s%g (a fraction below 1), error_count%s%s for a count", s, op, s, op, v/100, op, s)
		case unit == "":
			return v, nil
		}
		return 0, fmt.Errorf("an error ratio takes %% or no unit, not '%s'", unit)
	}
	if unit != "" {
		return 0, fmt.Errorf("'%s' takes no unit", s)
	}
	return v, nil
}

// Measure is the threshold's measure of the window w, in the bound's unit.
func (t Threshold) Measure(w *metrics.Snapshot) float64 {
	c := w.Counters
	sec := w.Duration().Seconds()
	rate := func(n uint64) float64 {
		if sec <= 0 {
			return 0
		}
		return float64(n) / sec
	}
	switch t.measure {
	case "p":
		return float64(w.Percentile(t.pct))
	case "avg":
		return w.Avg()
	case "min":
		return float64(w.Latency.MinNS)
	case "max":
		return float64(w.Latency.MaxNS)
	case "tps", "eps":
		return rate(c[metrics.CntEvent])
	case "qps":
		return rate(c[metrics.CntRead] + c[metrics.CntWrite] + c[metrics.CntOther])
	case "errors":
		// Ignored errors over the events tried (events and failed ones).
		tried := c[metrics.CntEvent] + c[metrics.CntFailedEvent]
		if tried == 0 {
			if c[metrics.CntError] > 0 {
				return math.Inf(1)
			}
			return 0
		}
		return float64(c[metrics.CntError]) / float64(tried)
	case "error_count":
		return float64(c[metrics.CntError])
	case "reconnects":
		return float64(c[metrics.CntReconnect])
	case "failed":
		return float64(c[metrics.CntFailedEvent])
	case "retries":
		return float64(c[metrics.CntRetry])
	}
	return math.NaN()
}

// Holds reports whether the measured value v satisfies the threshold.
func (t Threshold) Holds(v float64) bool {
	switch t.op {
	case "<":
		return v < t.bound
	case "<=":
		return v <= t.bound
	case ">":
		return v > t.bound
	case ">=":
		return v >= t.bound
	case "==":
		return v == t.bound
	case "!=":
		return v != t.bound
	}
	return false
}

// Format is the measured value as printed: "p95 = 3.42 ms".
func (t Threshold) Format(v float64) string {
	name := t.measure
	if name == "p" {
		name = "p" + PercentileKey(t.pct)
	}
	switch thresholdMeasures[t.measure] {
	case "ratio":
		return fmt.Sprintf("%s = %.4g%%", name, v*100)
	case "rate":
		return fmt.Sprintf("%s = %.2f", name, v)
	case "count":
		return fmt.Sprintf("%s = %.0f", name, v)
	}
	return fmt.Sprintf("%s = %.3f ms", name, v/1e6)
}

// ThresholdResult is a threshold's outcome, for the text and the results
// file.
type ThresholdResult struct {
	Expr     string  `json:"expr"`
	Measured string  `json:"measured"`
	Value    float64 `json:"value"`
	Pass     bool    `json:"pass"`
}

// CheckThresholds evaluates ts on the window w.
func CheckThresholds(ts []Threshold, w *metrics.Snapshot) []ThresholdResult {
	out := make([]ThresholdResult, len(ts))
	for i, t := range ts {
		v := t.Measure(w)
		out[i] = ThresholdResult{Expr: t.Expr, Measured: t.Format(v), Value: jsonNumber(v), Pass: t.Holds(v)}
	}
	return out
}

// jsonNumber keeps a value JSON can hold (an error ratio with no event
// is infinite).
func jsonNumber(v float64) float64 {
	if math.IsInf(v, 1) {
		return math.MaxFloat64
	}
	return v
}

// WriteThresholds writes the "Thresholds:" block.
func WriteThresholds(w io.Writer, rs []ThresholdResult) {
	fmt.Fprintf(w, "Thresholds:\n")
	for _, r := range rs {
		verdict := "pass"
		if !r.Pass {
			verdict = "FAIL"
		}
		fmt.Fprintf(w, "    %-32s %s  (%s)\n", r.Expr, verdict, r.Measured)
	}
	fmt.Fprintf(w, "\n")
}

// Name is the threshold's measure as its outcome names it: p99, avg,
// errors.
func (t Threshold) Name() string {
	if t.measure == "p" {
		return "p" + PercentileKey(t.pct)
	}
	return t.measure
}

// Kind is what the measure is: "latency", "rate", "ratio" (errors) or
// "count".
func (t Threshold) Kind() string {
	if t.measure == "p" {
		return "latency"
	}
	return thresholdMeasures[t.measure]
}

// Percentile is the percentile a "pN" threshold measures, 0 for the others.
func (t Threshold) Percentile() float64 { return t.pct }

// Bound is the threshold's bound in its measure's unit: ns for a latency,
// a fraction for errors.
func (t Threshold) Bound() float64 { return t.bound }

// Op is the threshold's comparison.
func (t Threshold) Op() string { return t.op }
