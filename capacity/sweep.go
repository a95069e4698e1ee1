package capacity

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sysbench-go/sysbench-go/report"
)

// SweepOptions are a concurrency sweep's settings.
type SweepOptions struct {
	// Threads are the thread counts to step through, in order.
	Threads []int
	// Budget is the whole sweep's time, shared equally by its steps.
	Budget      time.Duration
	Percentiles []float64
	Progress    io.Writer
}

// SweepResult is a sweep's steps and its fit.
type SweepResult struct {
	Record      report.CapacitySweep
	Steps       []Step
	Fit         *USL // nil without enough points
	percentiles []float64
}

// ParseSweep reads --sweep: FROM:TO (doubling from FROM, and TO) or a
// list of thread counts (1,2,4,8).
func ParseSweep(s string) ([]int, error) {
	bad := fmt.Errorf("invalid --sweep '%s': want FROM:TO (threads doubled from FROM up to TO, e.g. 1:64) or a list of thread counts (1,2,4,8)", s)
	if from, to, ok := strings.Cut(s, ":"); ok {
		a, err1 := strconv.Atoi(strings.TrimSpace(from))
		b, err2 := strconv.Atoi(strings.TrimSpace(to))
		if err1 != nil || err2 != nil || a < 1 || b <= a || b > 100000 {
			return nil, bad
		}
		var out []int
		for n := a; n < b; n *= 2 {
			out = append(out, n)
		}
		return append(out, b), nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 100000 || (len(out) > 0 && n <= out[len(out)-1]) {
			return nil, bad
		}
		out = append(out, n)
	}
	if len(out) < 2 {
		return nil, bad
	}
	return out, nil
}

// Sweep runs the workload in the closed model at each thread count, each
// step steady before its window, and fits the Universal Scalability Law
// to the throughput. Interrupted, it returns what it measured with the
// context's error.
func Sweep(ctx context.Context, p Prober, o SweepOptions) (*SweepResult, error) {
	if len(o.Threads) == 0 {
		return nil, errors.New("capacity: a sweep needs thread counts")
	}
	pl := planFor(o.Budget, len(o.Threads))
	res := &SweepResult{percentiles: tableColumns(o.Percentiles, nil), Record: report.CapacitySweep{Steps: []report.CapacityStep{}}}
	if pl.per < MinStep {
		return res, &Failure{OutcomeBudget, fmt.Sprintf("the sweep's time (%s) is too small to say: %d steps of at least %s each need %s",
			secs(o.Budget), len(o.Threads), secs(MinStep), secs(MinStep*time.Duration(len(o.Threads))))}
	}
	for i, n := range o.Threads {
		m, err := p.Probe(ctx, pl.load(0, n))
		if err != nil {
			return res, err
		}
		st := judge(phaseSweep, pl.load(0, n), m, nil)
		res.Steps = append(res.Steps, *st)
		res.Record.Steps = append(res.Record.Steps, st.CapacityStep)
		if st.Achieved > res.Record.PeakRate {
			res.Record.PeakRate, res.Record.PeakThreads = st.Achieved, n
		}
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "capacity: sweep step %d of %d: %d threads, %s tps\n", i+1, len(o.Threads), n, fmtRate(st.Achieved))
		}
	}
	ns, xs := make([]float64, len(res.Steps)), make([]float64, len(res.Steps))
	for i, st := range res.Steps {
		ns[i], xs[i] = float64(st.Threads), st.Achieved
	}
	if u, err := FitUSL(ns, xs); err == nil {
		res.Fit = &u
		f := &report.USLFit{Sigma: u.Sigma, Kappa: u.Kappa, Lambda: u.Lambda, R2: u.R2, Poor: u.Poor,
			Reasons: u.Reasons, Residuals: u.Residuals, Method: USLMethod}
		if pk := u.Peak(); !math.IsInf(pk, 0) {
			f.PeakThreads, f.PeakRate = pk, u.X(pk)
		}
		res.Record.Fit = f
	}
	return res, nil
}

// farPeak: a predicted peak beyond this many times the sweep's largest
// thread count is no peak the sweep can speak of.
const farPeak = 100

// Line is the sweep's summary line:
//
//	Scalability: measured peak 9,870 tps at 32 threads; USL σ 0.0310, κ 0.00052, λ 1,215 tps: predicted peak at 43 threads, 9,990 tps; R² 0.996, a good fit
func (r *SweepResult) Line() string {
	line := fmt.Sprintf("Scalability: measured peak %s tps at %d threads", fmtRate(r.Record.PeakRate), r.Record.PeakThreads)
	u := r.Fit
	if u == nil {
		return line + fmt.Sprintf("; no USL fit (%d points, it needs %d)", len(r.Steps), minFitPoints)
	}
	line += fmt.Sprintf("; USL σ %.4f, κ %.3g, λ %s tps: ", u.Sigma, u.Kappa, fmtRate(u.Lambda))
	top := slices.Max(threadsOf(r.Steps))
	if pk := u.Peak(); pk > farPeak*float64(top) {
		line += "no peak in sight (κ about 0: the throughput levels off)"
	} else {
		line += fmt.Sprintf("predicted peak at %.0f threads, %s tps", pk, fmtRate(u.X(pk)))
		if pk > float64(top) {
			line += fmt.Sprintf(" (beyond the sweep's %d)", top)
		}
	}
	line += fmt.Sprintf("; R² %.3f", u.R2)
	if u.Poor {
		return line + ", a poor fit: " + strings.Join(u.Reasons, "; ")
	}
	return line + ", a good fit"
}

func threadsOf(steps []Step) []int {
	out := make([]int, len(steps))
	for i, s := range steps {
		out[i] = s.Threads
	}
	return out
}

// WriteSteps writes the sweep's table, with the fitted throughput.
func (r *SweepResult) WriteSteps(w io.Writer) {
	fmt.Fprintf(w, "Concurrency sweep (closed model: each thread starts its next event when its last ends):\n")
	writeStepTable(w, r.Steps, r.percentiles, true)
	if r.Fit != nil {
		fmt.Fprintf(w, "  %7s %10s %10s %9s\n", "threads", "measured", "fitted", "residual")
		for i, st := range r.Steps {
			fit := r.Fit.X(float64(st.Threads))
			fmt.Fprintf(w, "  %7d %10s %10s %+8.1f%%\n", st.Threads, fmtRate(st.Achieved), fmtRate(fit), 100*r.Fit.Residuals[i]/max(fit, 1e-9))
		}
		fmt.Fprintln(w)
	}
}
