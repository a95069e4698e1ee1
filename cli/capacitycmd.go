package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/sysbench-go/sysbench-go/capacity"
	"github.com/sysbench-go/sysbench-go/engine"
	"github.com/sysbench-go/sysbench-go/logging"
	"github.com/sysbench-go/sysbench-go/luaapi"
	"github.com/sysbench-go/sysbench-go/options"
	"github.com/sysbench-go/sysbench-go/report"
)

// The capacity command: sysbench-go TEST [options] --slo=EXPR capacity
// (docs/capacity.md). Package capacity searches, sweeps and draws; this
// file reads its options, runs it over the engine with the test the
// command line built, and prints: the tables and the answer line on
// standard output, every diagnostic (the banner, each step as it ends,
// FATAL lines) on standard error.

// capacitySpec is the capacity command's options, read.
type capacitySpec struct {
	objective []report.Threshold
	sweep     []int
	budget    time.Duration
	rounds    int
	precision float64
	html      string
}

// capacityStreams sends the text output to standard error: the
// capacity command's answer is what standard output carries.
func (p *program) capacityStreams() {
	p.command = "capacity"
	p.textToStderr()
}

func readCapacitySpec(spec *runSpec) (*capacitySpec, error) {
	v := spec.values
	cs := &capacitySpec{html: v.String("capacity-html")}
	for _, e := range spec.sloExprs {
		t, err := report.ParseThreshold(e)
		if err != nil {
			return nil, fmt.Errorf("invalid --slo%s", err.Error()[len("invalid --threshold"):])
		}
		if t.Kind() == "rate" {
			return nil, fmt.Errorf("invalid --slo '%s': the capacity search finds the rate; an objective is on latency (p99<=10ms, avg<2ms) or errors (errors<=0.1%%)", e)
		}
		cs.objective = append(cs.objective, t)
	}
	if s := v.String("sweep"); s != "" {
		var err error
		if cs.sweep, err = capacity.ParseSweep(s); err != nil {
			return nil, err
		}
	}
	if len(cs.objective) == 0 && cs.sweep == nil {
		return nil, errors.New("the capacity command needs an objective, --slo=EXPR (p99<=10ms, errors<=0.1%), or a concurrency sweep, --sweep=FROM:TO")
	}
	t, err := v.Int("capacity-time")
	if err != nil || t < 1 {
		return nil, fmt.Errorf("invalid --capacity-time '%s': seconds, at least 1", v.String("capacity-time"))
	}
	cs.budget = time.Duration(t) * time.Second
	r, err := v.Int("capacity-rounds")
	if err != nil || r < 2 || r > 100 {
		return nil, fmt.Errorf("invalid --capacity-rounds '%s': from 2 to 100 (a confidence interval needs 2 rounds)", v.String("capacity-rounds"))
	}
	cs.rounds = int(r)
	pr, err := v.Float("capacity-precision")
	if err != nil || !(pr >= 0.1 && pr <= 50) {
		return nil, fmt.Errorf("invalid --capacity-precision '%s': per cent, from 0.1 to 50", v.String("capacity-precision"))
	}
	cs.precision = pr / 100
	if err := capacityAlone(spec); err != nil {
		return nil, err
	}
	return cs, nil
}

// capacityAlone refuses the options of a run shared by instances: a
// search decides each step's rate from the last step's whole window, and
// instances cannot yet pool their windows step by step (docs/capacity.md,
// "Instances and Kubernetes").
func capacityAlone(spec *runSpec) error {
	const instead = "run the search in one process with more --threads, or give the instances a fixed --rate (split among them) for each rate to check, and merge each with 'sysbench-go report' (docs/capacity.md)"
	v := spec.values
	switch {
	case spec.instance.N > 1:
		return fmt.Errorf("the capacity command runs in one process: --instance=%s is refused, since each step's next rate is decided from the whole window of the step before, which instances cannot yet pool step by step; %s", v.String("instance"), instead)
	case v.String("start-at") != "", spec.endpoint.await > 0, spec.endpoint.serve > 0:
		name := "--start-at"
		if spec.endpoint.await > 0 {
			name = "--await-start"
		} else if spec.endpoint.serve > 0 {
			name = "--serve-results"
		}
		return fmt.Errorf("the capacity command runs in one process: %s, which times one run that instances share, is refused with it; %s", name, instead)
	}
	return nil
}

// runCapacity runs the capacity command: the sweep, then the search,
// their tables and lines, the page and the results file.
func (p *program) runCapacity(spec *runSpec, t engine.Test, testOpts []options.Option, env *luaapi.Env) int {
	cs, err := readCapacitySpec(spec)
	if err != nil {
		return p.fail(err)
	}
	res := p.resultsOf(spec, t, testOpts, time.Now())
	// The steps print their warnings and errors; their reports are the
	// tables' rows.
	level := logging.Warning
	if p.log.Level() > logging.Notice {
		level = p.log.Level()
	}
	prober := &capacity.Engine{Test: t, Config: spec.cfg, Log: logging.New(p.stderr, level)}
	out := p.stdout
	rec := &report.Capacity{Objective: []string{}, Threads: spec.cfg.Threads, BudgetSeconds: cs.budget.Seconds(),
		Precision: cs.precision, Steps: []report.CapacityStep{}}
	var sweep *capacity.SweepResult
	var search *capacity.Result
	var runErr error
	searchBudget := cs.budget
	if cs.sweep != nil {
		sweepBudget := cs.budget
		if len(cs.objective) > 0 {
			sweepBudget = cs.budget / 3
			searchBudget = cs.budget - sweepBudget
		}
		sweep, runErr = capacity.Sweep(p.ctx, prober, capacity.SweepOptions{Threads: cs.sweep, Budget: sweepBudget,
			Percentiles: spec.cfg.Percentiles, Progress: p.stderr})
		if sweep != nil && len(sweep.Steps) > 0 {
			sweep.WriteSteps(out)
			rec.Sweep = &sweep.Record
		}
		if runErr == nil {
			fmt.Fprintln(out, sweep.Line())
			rec.Outcome, rec.Line = capacity.OutcomeSweepOnly, sweep.Line()
		}
	}
	if runErr == nil && len(cs.objective) > 0 {
		if sweep != nil {
			fmt.Fprintln(out)
		}
		search, runErr = capacity.Search(p.ctx, prober, capacity.Options{Objective: cs.objective, Threads: spec.cfg.Threads,
			Budget: searchBudget, Rounds: cs.rounds, Precision: cs.precision, Percentiles: spec.cfg.Percentiles, Progress: p.stderr})
		sw := rec.Sweep
		*rec = search.Record
		rec.Sweep = sw
		if len(search.Steps) > 0 {
			search.WriteSteps(out)
		}
		if runErr == nil {
			fmt.Fprintln(out, search.Line())
		}
	}
	p.record(&exitStatus{}, prober.Close(context.WithoutCancel(p.ctx)))
	st := &exitStatus{}
	var failure *capacity.Failure
	in := engine.Interrupted(p.ctx)
	switch {
	case in != nil:
		rec.Outcome = capacity.OutcomeInterrupted
		st.add("interrupted")
		st.code = in.ExitCode()
		p.fail(interruptError(in, fmt.Sprintf("The capacity search was interrupted by %s: the tables hold the steps measured until then", in.Name())))
	case errors.As(runErr, &failure):
		rec.Outcome, rec.Line = failure.Outcome, failure.Msg
		st.add("failed")
		st.code = p.fail(runErr)
	case runErr != nil:
		st.add("failed")
		st.code = p.fail(runErr)
	default:
		st.add("completed")
	}
	if cs.html != "" && (search != nil || sweep != nil) {
		p.record(st, writeCapacityPage(cs.html, res, search, sweep))
	}
	ended(env, res, time.Now())
	res.Capacity = rec
	if o := spec.outputs["results"]; o != nil {
		res.Intervals, res.Checkpoints, res.Thresholds = []report.Interval{}, []report.Window{}, []report.ThresholdResult{}
		res.Exit = report.Exit{Status: st.code, Reason: st.reasons[0], Reasons: st.reasons, Fatal: p.log.Fatals()}
		p.record(st, res.Write(o, p.stdout))
	}
	return st.code
}

// writeCapacityPage writes the HTML page to path.
func writeCapacityPage(path string, res *report.Results, search *capacity.Result, sweep *capacity.SweepResult) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--capacity-html: cannot write '%s': %w", path, report.PathCause(err))
	}
	title := fmt.Sprintf("sysbench-go capacity: %s", res.Workload.Test)
	werr := capacity.WriteHTML(f, capacity.Page{Title: title, Search: search, Sweep: sweep})
	if err := f.Close(); werr == nil {
		werr = err
	}
	if werr != nil {
		return fmt.Errorf("--capacity-html: %w", werr)
	}
	return nil
}
