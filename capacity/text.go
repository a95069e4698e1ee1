package capacity

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/sysbench-go/sysbench-go/report"
)

// tableColumns are the step table's percentiles: those asked for and
// the objective's, in order.
func tableColumns(asked []float64, objective []report.Threshold) []float64 {
	cols := append([]float64{}, asked...)
	if len(cols) == 0 {
		cols = []float64{50, 95, 99}
	}
	for _, t := range objective {
		if p := t.Percentile(); p > 0 && !slices.Contains(cols, p) {
			cols = append(cols, p)
		}
	}
	slices.Sort(cols)
	return cols
}

// fmtRate writes a rate as people read one: thousands separated, whole
// from 100 up, with a decimal or two below.
func fmtRate(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "-"
	case v >= 100:
		return report.Thousands(v)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// fmtMS writes a latency in ns as ms with three significant digits.
func fmtMS(ns float64) string {
	ms := ns / 1e6
	switch {
	case ms >= 100:
		return strconv.FormatFloat(ms, 'f', 0, 64) + " ms"
	case ms >= 10:
		return strconv.FormatFloat(ms, 'f', 1, 64) + " ms"
	case ms >= 1:
		return strconv.FormatFloat(ms, 'f', 2, 64) + " ms"
	}
	return strconv.FormatFloat(ms, 'f', 3, 64) + " ms"
}

// measured is a threshold's value as the answer line says it: "p99
// 9.61 ms", "errors 0.02%".
func measured(t report.Threshold, v float64) string {
	switch t.Kind() {
	case "latency":
		return t.Name() + " " + fmtMS(v)
	case "ratio":
		return fmt.Sprintf("%s %.3g%%", t.Name(), 100*v)
	}
	return fmt.Sprintf("%s %g", t.Name(), v)
}

// answerLine is the search's answer in one line:
//
//	Capacity: 4,210 tps at p99 9.61 ms, objective p99<=10ms; 95% CI 4,050-4,330; saturation at ~5,020 tps offered
func (r *Result) answerLine() string {
	a := r.Record.Answer
	var at []string
	for i, t := range r.objective {
		if i < len(a.Measured) {
			at = append(at, measured(t, a.Measured[i].Value))
		}
	}
	line := fmt.Sprintf("Capacity: %s tps", fmtRate(a.Rate))
	if len(at) > 0 {
		line += " at " + strings.Join(at, ", ")
	}
	line += fmt.Sprintf(", objective %s; %g%% CI %s-%s", strings.Join(r.Record.Objective, ", "),
		100*a.Level, fmtRate(a.Low), fmtRate(a.High))
	if a.RoundsHeld < len(a.Rounds) {
		line += fmt.Sprintf(" (rounds disagree: %d of %d missed the objective)", len(a.Rounds)-a.RoundsHeld, len(a.Rounds))
	}
	if a.SaturationFrom == "step" {
		line += fmt.Sprintf("; saturation at ~%s tps offered", fmtRate(a.Saturation))
	} else {
		line += fmt.Sprintf("; saturation at ~%s tps (the closed-model probe at %d threads)", fmtRate(a.Saturation), r.Record.Threads)
	}
	return line
}

// Line is the answer line (or, without an answer, the failure's cause).
func (r *Result) Line() string { return r.Record.Line }

// WriteSteps writes the table of every step.
func (r *Result) WriteSteps(w io.Writer) {
	fmt.Fprintf(w, "Capacity search (open model: arrivals at the offered rate, latency counted from each arrival; %d threads):\n", r.Record.Threads)
	writeStepTable(w, r.Steps, r.percentiles, false)
}

// writeStepTable writes steps, one a line; sweep tables lead with the
// threads and have no offered rate.
func writeStepTable(w io.Writer, steps []Step, pcts []float64, sweep bool) {
	head := fmt.Sprintf("  %3s  %-8s %7s %10s %10s", "#", "phase", "threads", "offered", "achieved")
	if sweep {
		head = fmt.Sprintf("  %3s  %7s %10s", "#", "threads", "achieved")
	}
	for _, p := range pcts {
		head += fmt.Sprintf(" %9s", "p"+report.PercentileKey(p))
	}
	head += fmt.Sprintf(" %8s  %-6s  %s", "errors", "steady", "verdict")
	fmt.Fprintln(w, head+"  (latency in ms)")
	for i, st := range steps {
		line := fmt.Sprintf("  %3d  %-8s %7d %10s %10s", i+1, st.Phase, st.Threads, offered(st), fmtRate(st.Achieved))
		if sweep {
			line = fmt.Sprintf("  %3d  %7d %10s", i+1, st.Threads, fmtRate(st.Achieved))
		}
		for _, p := range pcts {
			line += fmt.Sprintf(" %9.3f", float64(st.Snapshot.Percentile(p))/1e6)
		}
		line += fmt.Sprintf(" %7.2f%%  %-6s  %s", 100*st.ErrorShare, yesNo(st.Steady), verdict(st))
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
	fmt.Fprintln(w)
}

func offered(st Step) string {
	if st.Model == modelClosed {
		return "closed"
	}
	return fmtRate(st.Offered)
}

func verdict(st Step) string {
	switch {
	case st.Model == modelClosed:
		return "-"
	case st.Holds:
		return "holds"
	}
	return "FAIL: " + missed(&st)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
