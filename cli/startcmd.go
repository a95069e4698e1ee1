package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/sysbench-go/sysbench-go/control"
	"github.com/sysbench-go/sysbench-go/engine"
	"github.com/sysbench-go/sysbench-go/options"
	"github.com/sysbench-go/sysbench-go/report"
)

// startOptions are the start command's options.
var startOptions = []options.Option{
	{Name: "instances", Desc: "the number of instances N: an endpoint with {K} in it stands for N endpoints, K from 0 to N-1", Kind: options.Int, Default: "0"},
	{Name: "ready-timeout", Desc: "wait at most N seconds for every instance to be ready", Kind: options.Int, Default: "600"},
	{Name: "start-delay", Desc: "begin the measured windows N seconds after the last instance is ready (the instances' --warmup-time comes before that: make N larger)", Kind: options.Int, Default: "5"},
	{Name: "timeout", Desc: "stop waiting for the instances' results N seconds after the start (0: no limit)", Kind: options.Int, Default: "0"},
	{Name: "results", Desc: "write the merged results to FILE", Kind: options.File, NoDefault: true},
	{Name: "serve-results", Desc: "then serve the merged results file at --listen's /results until it is fetched, at most N seconds (0: off)", Kind: options.Int, Default: "0"},
	{Name: "listen", Desc: "HOST:PORT where --serve-results serves", Kind: options.String, NoDefault: true},
	reportOption("percentile"),
	reportOption("histogram"),
	{Name: "help", Desc: "print this help and exit", Kind: options.Bool, Default: "off"},
}

// reportOption is the report command's option of that name.
func reportOption(name string) options.Option {
	for _, o := range reportOptions {
		if o.Name == name {
			return o
		}
	}
	panic("no report option " + name)
}

// startCommand is 'sysbench-go start [options] URL...': it waits until
// every instance (run with --await-start and --serve-results) is ready,
// gives them one start time, then fetches their results files, merges
// them and prints the report (docs/distributed.md).
func (p *program) startCommand(args []string) int {
	values, rest, ok := p.commandArgs(startOptions, args)
	switch {
	case !ok:
		return 1
	case values.Bool("help"):
		printStartHelp(p.log.Out(), p.name())
		return 0
	}
	secs := map[string]time.Duration{}
	for _, name := range []string{"ready-timeout", "start-delay", "timeout", "serve-results"} {
		d, err := secondsOpt(values, name, 0)
		if err != nil {
			return p.fail(fmt.Errorf("start: %w", err))
		}
		secs[name] = d
	}
	n, err := values.Int("instances")
	if err != nil || n < 0 {
		return p.fail(fmt.Errorf("start: Invalid value for --instances: '%s'", values.String("instances")))
	}
	var out *report.Output
	if path := values.String("results"); path != "" {
		if out, err = report.CheckOutputAs(path, report.JSON); err != nil {
			return p.fail(fmt.Errorf("start: --results: %w", err))
		}
		if out.IsStdout() {
			p.textToStderr()
		}
	}
	if secs["serve-results"] > 0 && (out == nil || out.IsStdout() || values.String("listen") == "") {
		return p.fail(errors.New("start: --serve-results needs --results=FILE and --listen=HOST:PORT"))
	}
	urls, err := control.ExpandURLs(rest, int(n))
	if err != nil {
		return p.fail(fmt.Errorf("start: %v (usage: %s start [options] URL...)", err, p.name()))
	}
	// What it is doing goes to standard error, with the diagnostics: the
	// merged report is its output.
	fleet := &control.Fleet{URLs: urls, Client: &http.Client{}, Poll: 200 * time.Millisecond, Lost: time.Minute,
		Progress: p.progress}
	p.progress("Waiting at most %s for %d instances to be ready...", secs["ready-timeout"], len(urls))
	if err := fleet.WaitReady(p.ctx, secs["ready-timeout"]); err != nil {
		reason := err.Error()
		if in := engine.Interrupted(p.ctx); in != nil {
			reason = "the start command was interrupted by " + in.Name()
		}
		// Told even when a signal ended the wait: none waits for its
		// --await-start to end.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(p.ctx), 5*time.Second)
		fleet.Abort(ctx, reason)
		cancel()
		return p.fail(fmt.Errorf("start: %v", err))
	}
	at := time.Now().Add(secs["start-delay"]).UTC().Truncate(time.Millisecond)
	if err := fleet.Start(p.ctx, at); err != nil {
		return p.fail(fmt.Errorf("start: %v", err))
	}
	p.progress("Started %d instances: their measured windows begin at %s", len(urls), at.Format(time.RFC3339Nano))
	var deadline time.Time
	if d := secs["timeout"]; d > 0 {
		deadline = at.Add(d)
	}
	got := fleet.Collect(p.ctx, deadline)
	if engine.Interrupted(p.ctx) != nil {
		return 1 // runOurs says that a signal ended it
	}
	return p.mergeFetched(got, values, out, secs["serve-results"])
}

// progress writes a line of what the command is doing on standard error.
func (p *program) progress(format string, args ...any) {
	fmt.Fprintf(p.stderr, format+"\n", args...)
}

// mergeFetched merges the results files fetched, prints the report and
// writes the merged file: the merge step. An instance whose results are
// missing, or whose run failed, is named and makes the exit status 1 (or
// the run's own, 99 for thresholds), the report of the others printed
// still.
func (p *program) mergeFetched(got []control.Result, values *options.Values, out *report.Output, serve time.Duration) int {
	var rs []*report.Results
	var names []string
	var problems []error
	for k, g := range got {
		if g.Err != nil {
			problems = append(problems, g.Err)
			continue
		}
		r, err := report.Decode(g.Data)
		if err != nil {
			problems = append(problems, fmt.Errorf("instance %d at %s: %v", k, g.URL, err))
			continue
		}
		if r.Total == nil {
			problems = append(problems, fmt.Errorf("instance %d at %s: its run failed before it began: %v", k, g.URL, r.Exit.Fatal))
			continue
		}
		rs, names = append(rs, r), append(names, fmt.Sprintf("instance-%d", k))
	}
	code := 0
	if len(rs) > 0 {
		// They ran together: per-second figures over the mean of their
		// windows, whatever the windows say.
		merged, err := report.Merge(rs, names, report.MergeOptions{As: report.AsInstances})
		if err == nil {
			err = p.printResults(merged, values, out)
		}
		if err != nil {
			return p.fail(fmt.Errorf("start: %v", err))
		}
		code = merged.Exit.Status
		if code != 0 {
			problems = append(problems, fmt.Errorf("an instance's run ended with status %d (%s): %v", code, merged.Exit.Reason, merged.Exit.Fatal))
		}
		if serve > 0 {
			problems = append(problems, p.serveMerged(values, serve))
		}
	}
	if err := errors.Join(problems...); err != nil {
		if c := p.fail(fmt.Errorf("start: %w", err)); code == 0 {
			code = c
		}
	}
	return code
}

// serveMerged serves the merged results file until it is fetched: where
// it was written (a pod's own volume) nobody else reads it.
func (p *program) serveMerged(values *options.Values, d time.Duration) error {
	data, err := os.ReadFile(values.String("results"))
	if err != nil {
		return fmt.Errorf("--serve-results: %w", report.PathCause(err))
	}
	ctl := control.NewInstance(0, 1)
	addr, stop, err := control.Serve(values.String("listen"), ctl)
	if err != nil {
		return fmt.Errorf("--listen=%s: %v", values.String("listen"), err)
	}
	defer stop()
	ctl.Finish(data)
	p.progress("Serving the merged results file at http://%s/results until it is fetched (at most %s)...", addr, d)
	return ctl.WaitFetched(p.ctx, d)
}

func printStartHelp(out io.Writer, prog string) {
	fmt.Fprintf(out, "Usage:\n  %[1]s start [options]... URL...\n\n", prog)
	fmt.Fprintf(out, "Starts the instances of a distributed run together and merges their results. Each instance runs\nwith --instance=K/N --await-start=S --serve-results=S --results=FILE --metrics-addr=HOST:PORT, and\nURL is its endpoint, http://HOST:PORT (with {K} and --instances=N: N of them). The command waits\nuntil every instance is ready, gives them one start time, waits for their results files, merges\nthem and prints the report, as '%s report' does (docs/distributed.md).\n\n", prog)
	fmt.Fprintf(out, "start options:\n%s\n", options.FormatHelp(startOptions))
}
