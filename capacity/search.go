package capacity

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/sysbench-go/sysbench-go/metrics"
	"github.com/sysbench-go/sysbench-go/report"
	"github.com/sysbench-go/sysbench-go/stats"
)

// Options are a search's settings.
type Options struct {
	// Objective is what a rate must keep on each step's measured window:
	// latencies and errors in --threshold's syntax.
	Objective []report.Threshold
	// Threads is the workers serving the arrivals.
	Threads int
	// Budget is the whole search's time.
	Budget time.Duration
	// Rounds is how many rounds confirm the answer (at least 2; default 3).
	Rounds int
	// Precision ends the narrowing once the lowest failing rate is at
	// most this fraction above the highest holding one (default 0.02).
	Precision float64
	// Percentiles are the step table's latency columns (the objective's
	// own are added).
	Percentiles []float64
	// Progress receives a line per step as the search goes (nil: none).
	Progress io.Writer
}

// The defaults, and the plan's constants.
const (
	DefaultRounds    = 3
	DefaultPrecision = 0.02
	// startFraction of the closed-model probe's throughput is the first
	// rate offered; stepFactor the geometric step up from there, and
	// maxUp the steps up the budget is planned for (to 0.5 × 1.3^4 ≈ 1.4
	// × the probe's throughput, past which the server cannot keep up
	// when the probe measured it well). A probe that fell short (the
	// client starved for a moment) takes more: the search steps on while
	// the time left holds the confirmation, up to mostUp.
	startFraction = 0.5
	stepFactor    = 1.3
	maxUp         = 5
	mostUp        = 30
	// maxDown is the most halvings of the start rate when even it misses
	// the objective (down to 1/128 of the probe's throughput).
	maxDown = 6
	// MinStep is the shortest a step may be planned: a budget that gives
	// less is too small to say anything.
	MinStep = 2 * time.Second
	// level is the answer interval's confidence.
	level = 0.95
	// saturationGap is the least shortfall of the achieved rate below the
	// offered one that says the server saturated (more when the window's
	// arrivals are few: three standard deviations of their Poisson count).
	saturationGap = 0.03
)

// Outcomes of a search, as the results file records them.
const (
	OutcomeAnswer      = "answer"
	OutcomeNoRateHolds = "no_rate_holds"
	OutcomeBudget      = "budget_too_small"
	OutcomeInterrupted = "interrupted"
	OutcomeSweepOnly   = "sweep"
	phaseProbe         = "probe"
	phaseUp            = "up"
	phaseDown          = "down"
	phaseNarrow        = "narrow"
	phaseConfirm       = "confirm"
	phaseSweep         = "sweep"
	modelOpen          = "open"
	modelClosed        = "closed"
)

// Step is one load measured: its record and its window.
type Step struct {
	report.CapacityStep
	Snapshot *metrics.Snapshot
}

// Result is a search's outcome: the record for the results file and
// the steps with their windows (for the page).
type Result struct {
	Record report.Capacity
	Steps  []Step
	// ProbeRate is the closed-model probe's throughput.
	ProbeRate   float64
	percentiles []float64
	objective   []report.Threshold
}

// Failure is a search that found no answer: no rate holds the objective,
// or the budget ran out before one was confirmed. Its message is the
// FATAL line's.
type Failure struct {
	Outcome string
	Msg     string
}

func (f *Failure) Error() string { return f.Msg }

// plan is how the budget is spent: the runs a search expects, each
// step's warm-up sampling, longest warm-up and window.
type plan struct {
	runs   int
	per    time.Duration
	window time.Duration
	warmup time.Duration
	sample time.Duration
}

// narrowSteps is how many halvings (geometric) bring a bracket of ratio
// r down to 1+precision.
func narrowSteps(r, precision float64) int {
	return max(1, int(math.Ceil(math.Log2(math.Log(r)/math.Log1p(precision)))))
}

func planFor(budget time.Duration, runs int) plan {
	per := budget / time.Duration(runs)
	p := plan{runs: runs, per: per, window: per / 2, warmup: per * 2 / 5}
	// MSER-5 needs 60 samples: the shortest warm-up a quarter of a step.
	p.sample = min(max(per/4/60, 10*time.Millisecond), 100*time.Millisecond)
	return p
}

func (p plan) load(rate float64, threads int) Load {
	return Load{Rate: rate, Threads: threads, Window: p.window, MaxWarmup: p.warmup, Sample: p.sample}
}

// search is one search's state.
type search struct {
	o        Options
	p        Prober
	plan     plan
	start    time.Time
	deadline time.Time
	res      *Result
}

// Search finds the highest arrival rate that keeps the objective. The
// result is always returned, with every step run; the error is a
// *Failure when no answer was found, the prober's error when the
// workload failed, or the context's when it was interrupted (the result
// then holds what was found so far).
func Search(ctx context.Context, p Prober, o Options) (*Result, error) {
	if o.Rounds == 0 {
		o.Rounds = DefaultRounds
	}
	if o.Precision == 0 {
		o.Precision = DefaultPrecision
	}
	o.Threads = max(o.Threads, 1)
	runs := 1 + maxUp + narrowSteps(stepFactor, o.Precision) + o.Rounds - 1
	s := &search{o: o, p: p, plan: planFor(o.Budget, runs), start: time.Now()}
	s.deadline = s.start.Add(o.Budget)
	s.res = &Result{percentiles: tableColumns(o.Percentiles, o.Objective), objective: o.Objective,
		Record: report.Capacity{Objective: exprs(o.Objective), Threads: o.Threads, BudgetSeconds: o.Budget.Seconds(),
			Precision: o.Precision, Steps: []report.CapacityStep{}}}
	err := s.run(ctx)
	r := &s.res.Record
	r.ElapsedSeconds = time.Since(s.start).Seconds()
	var f *Failure
	switch {
	case err == nil:
		r.Outcome = OutcomeAnswer
	case errors.As(err, &f):
		r.Outcome, r.Line = f.Outcome, f.Msg
	case ctx.Err() != nil:
		r.Outcome = OutcomeInterrupted
	}
	return s.res, err
}

func (s *search) run(ctx context.Context) error {
	if s.plan.per < MinStep {
		return &Failure{OutcomeBudget, fmt.Sprintf("--capacity-time=%s is too small to say: a search plans %d steps of at least %s each (%s)",
			secs(s.o.Budget), s.plan.runs, secs(MinStep), secs(MinStep*time.Duration(s.plan.runs)))}
	}
	probe, err := s.step(ctx, phaseProbe, 0)
	if err != nil {
		return err
	}
	if probe.Achieved <= 0 {
		return &Failure{OutcomeNoRateHolds, fmt.Sprintf("the workload completed no event in the closed-model probe at %d threads", s.o.Threads)}
	}
	s.res.ProbeRate = probe.Achieved
	good, bad, err := s.bracket(ctx, probe.Achieved)
	if err != nil {
		return err
	}
	good, bad, err = s.narrow(ctx, good, bad)
	if err != nil {
		return err
	}
	return s.confirm(ctx, good, bad)
}

// bracket steps up from the start rate until a rate fails (or down until
// one holds), returning the highest holding step and the lowest failing
// one above it.
func (s *search) bracket(ctx context.Context, probeRate float64) (good, bad *Step, err error) {
	rate := startFraction * probeRate
	first, err := s.step(ctx, phaseUp, rate)
	if err != nil {
		return nil, nil, err
	}
	if !first.Holds {
		bad = first
		for range maxDown {
			rate /= 2
			if !s.timeFor(1 + s.o.Rounds) {
				return nil, nil, s.outOfTime(nil, bad)
			}
			st, err := s.step(ctx, phaseDown, rate)
			if err != nil {
				return nil, nil, err
			}
			if st.Holds {
				return st, bad, nil
			}
			bad = st
		}
		return nil, nil, &Failure{OutcomeNoRateHolds, fmt.Sprintf("no rate holds the objective (%s): even %s tps offered missed it (%s)",
			joinExprs(s.o.Objective), fmtRate(bad.Offered), missed(bad))}
	}
	good = first
	for range mostUp - 1 {
		rate *= stepFactor
		if !s.timeFor(1 + s.o.Rounds) {
			return nil, nil, s.outOfTime(good, nil)
		}
		st, err := s.step(ctx, phaseUp, rate)
		if err != nil {
			return nil, nil, err
		}
		if !st.Holds {
			return good, st, nil
		}
		good = st
	}
	return nil, nil, s.outOfTime(good, nil)
}

// narrow bisects (geometrically) between the holding and the failing
// rate until they are within the precision or the time left is the
// confirmation's.
func (s *search) narrow(ctx context.Context, good, bad *Step) (*Step, *Step, error) {
	for bad.Offered > good.Offered*(1+s.o.Precision) && s.timeFor(s.o.Rounds) {
		st, err := s.step(ctx, phaseNarrow, math.Sqrt(good.Offered*bad.Offered))
		if err != nil {
			return nil, nil, err
		}
		if st.Holds {
			good = st
		} else {
			bad = st
		}
	}
	return good, bad, nil
}

// confirm runs the answer's rounds at the holding rate (its narrowing
// step is the first) and states the answer.
func (s *search) confirm(ctx context.Context, good, bad *Step) error {
	rounds := []*Step{good}
	for len(rounds) < s.o.Rounds && s.timeFor(1) {
		st, err := s.step(ctx, phaseConfirm, good.Offered)
		if err != nil {
			return err
		}
		rounds = append(rounds, st)
		if failed := len(rounds) - held(rounds); 2*failed > s.o.Rounds {
			// Most rounds miss: the rate was held by chance. The next
			// holding rate below it is confirmed instead, if there is one
			// and time for it.
			lower := s.highestHolding(good.Offered)
			if lower == nil || !s.timeFor(s.o.Rounds-1) {
				break
			}
			good, bad, rounds = lower, good, []*Step{lower}
		}
	}
	if len(rounds) < 2 {
		return s.outOfTime(good, bad)
	}
	s.res.Record.Answer = s.answer(rounds, bad)
	s.res.Record.Line = s.res.answerLine()
	return nil
}

func held(rounds []*Step) int {
	n := 0
	for _, r := range rounds {
		if r.Holds {
			n++
		}
	}
	return n
}

// highestHolding is the step of the highest rate below below that held.
func (s *search) highestHolding(below float64) *Step {
	var best *Step
	for i := range s.res.Steps {
		st := &s.res.Steps[i]
		if st.Model == modelOpen && st.Holds && st.Offered < below && (best == nil || st.Offered > best.Offered) {
			best = st
		}
	}
	return best
}

// answer states the rate the rounds confirm, with its interval: the
// rounds' confidence interval for their mean achieved rate, widened up to
// the lowest rate that failed (the capacity lies below it).
func (s *search) answer(rounds []*Step, bad *Step) *report.CapacityAnswer {
	rates := make([]float64, len(rounds))
	snaps := make([]*metrics.Snapshot, len(rounds))
	held := 0
	for i, r := range rounds {
		rates[i], snaps[i] = r.Achieved, r.Snapshot
		if r.Holds {
			held++
		}
	}
	a := &report.CapacityAnswer{Offered: rounds[0].Offered, Rounds: rates, RoundsHeld: held, Level: level,
		FailedOffered: bad.Offered}
	iv, err := stats.MeanInterval(rates, level)
	if err != nil {
		// Rounds that differ by hundreds of orders of magnitude: none
		// that a run measures.
		iv = stats.Interval{Mean: rates[0], Low: rates[0], High: rates[0], Level: level, Rounds: len(rates), Notes: []string{err.Error()}}
	}
	a.Interval = iv
	// A window counts the events that end in it: those in flight at its
	// edges (up to one a thread at each) make any round's rate uncertain
	// by threads/window however alike the rounds are.
	edge := 0.0
	if sec := rounds[0].Snapshot.Duration().Seconds(); sec > 0 {
		edge = float64(rounds[0].Threads) / sec
	}
	a.Rate, a.Low, a.High = iv.Mean, max(iv.Low-edge, 0), max(iv.High+edge, bad.Offered)
	a.Measured = report.CheckThresholds(s.o.Objective, metrics.Merge(snaps...))
	a.Notes = append(a.Notes, iv.Notes...)
	if held < len(rounds) {
		a.Notes = append(a.Notes, fmt.Sprintf("rounds disagree: %d of %d missed the objective at %s tps offered", len(rounds)-held, len(rounds), fmtRate(a.Offered)))
	}
	a.Saturation, a.SaturationFrom = s.res.ProbeRate, "probe"
	for _, st := range s.res.Steps {
		if st.Saturated && (a.SaturationFrom == "probe" || st.Offered < a.Saturation) {
			a.Saturation, a.SaturationFrom = st.Offered, "step"
		}
	}
	return a
}

// timeFor says whether n more steps fit in the time left.
func (s *search) timeFor(n int) bool {
	return time.Until(s.deadline) >= s.plan.per*time.Duration(n)
}

// outOfTime is the failure of a search whose budget ran out before an
// answer: what it had found by then.
func (s *search) outOfTime(good, bad *Step) error {
	msg := fmt.Sprintf("--capacity-time=%s ran out before an answer was confirmed", secs(s.o.Budget))
	switch {
	case good != nil && bad != nil:
		msg += fmt.Sprintf(": %s tps offered held the objective, %s failed; give the search more time",
			fmtRate(good.Offered), fmtRate(bad.Offered))
	case good != nil:
		msg += fmt.Sprintf(": %s tps offered held the objective and no higher rate was tried; give the search more time", fmtRate(good.Offered))
	case bad != nil:
		msg += fmt.Sprintf(": %s tps offered missed the objective (%s) and no lower rate was tried; give the search more time", fmtRate(bad.Offered), missed(bad))
	}
	return &Failure{OutcomeBudget, msg}
}

// step runs one load and judges it.
func (s *search) step(ctx context.Context, phase string, rate float64) (*Step, error) {
	l := s.plan.load(rate, s.o.Threads)
	m, err := s.p.Probe(ctx, l)
	if err != nil {
		return nil, err
	}
	st := judge(phase, l, m, s.o.Objective)
	s.res.add(st)
	if w := s.o.Progress; w != nil {
		left := max(time.Until(s.deadline), 0)
		fmt.Fprintf(w, "capacity: step %d (%s): %s; %s of %s left\n", len(s.res.Steps), phase, st.summary(),
			secs(left.Round(time.Second)), secs(s.o.Budget))
	}
	return st, nil
}

func (r *Result) add(st *Step) {
	r.Steps = append(r.Steps, *st)
	r.Record.Steps = append(r.Record.Steps, st.CapacityStep)
}

// judge makes a step of a measure: its rates, the objective on its
// window, whether the server kept up.
func judge(phase string, l Load, m *Measure, objective []report.Threshold) *Step {
	w := m.Window
	sec := w.Duration().Seconds()
	c := w.Counters
	st := &Step{Snapshot: w, CapacityStep: report.CapacityStep{Phase: phase, Model: modelOpen, Threads: l.Threads,
		Offered: l.Rate, QueueGrowth: m.QueueGrowth, WarmupSeconds: m.WarmupSeconds}}
	if l.Rate == 0 {
		st.Model = modelClosed
	}
	if sec > 0 {
		st.Achieved = float64(c[metrics.CntEvent]) / sec
	}
	if tried := c[metrics.CntEvent] + c[metrics.CntFailedEvent]; tried > 0 {
		st.ErrorShare = float64(c[metrics.CntError]) / float64(tried)
	}
	st.Objective = report.CheckThresholds(objective, w)
	held := c[metrics.CntEvent] > 0
	for _, r := range st.Objective {
		held = held && r.Pass
	}
	if l.Rate > 0 {
		gap := 1 - st.Achieved/l.Rate
		tol := saturationGap
		if n := l.Rate * sec; n > 0 {
			tol = max(tol, 3/math.Sqrt(n))
		}
		st.Saturated = m.QueueFull || (gap > tol && m.QueueGrowth > 0)
	}
	st.Holds = held && !st.Saturated
	st.Steady = m.Steady && !st.Saturated
	if rw, err := report.NewWindow(w, nil); err == nil {
		st.Window = rw
	}
	return st
}

// missed names what a step missed: the objective's failed measures, or
// the saturation.
func missed(st *Step) string {
	var out string
	for _, r := range st.Objective {
		if !r.Pass {
			if out != "" {
				out += ", "
			}
			out += r.Measured
		}
	}
	if st.Saturated {
		if out != "" {
			out += "; "
		}
		out += fmt.Sprintf("saturated: %s tps achieved", fmtRate(st.Achieved))
	}
	if out == "" && st.Achieved == 0 {
		out = "no event completed"
	}
	return out
}

// summary is the step in a progress line.
func (st *Step) summary() string {
	what := fmt.Sprintf("%s tps offered, %s achieved", fmtRate(st.Offered), fmtRate(st.Achieved))
	if st.Model == modelClosed {
		what = fmt.Sprintf("closed model at %d threads, %s tps", st.Threads, fmtRate(st.Achieved))
	}
	verdict := "holds"
	switch {
	case st.Model == modelClosed:
		verdict = latencySummary(st)
	case !st.Holds:
		verdict = "fails: " + missed(st)
	}
	return what + ": " + verdict
}

func latencySummary(st *Step) string {
	out := ""
	for _, r := range st.Objective {
		if out != "" {
			out += ", "
		}
		out += r.Measured
	}
	return out
}

func exprs(ts []report.Threshold) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Expr
	}
	return out
}

func joinExprs(ts []report.Threshold) string {
	out := ""
	for i, t := range ts {
		if i > 0 {
			out += ", "
		}
		out += t.Expr
	}
	return out
}

func secs(d time.Duration) string {
	return fmt.Sprintf("%gs", math.Round(d.Seconds()*10)/10)
}
