package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/drivers/dryrun"
	"github.com/sysbench-go/sysbench-go/engine"
	"github.com/sysbench-go/sysbench-go/luaapi"
	"github.com/sysbench-go/sysbench-go/metrics"
	"github.com/sysbench-go/sysbench-go/options"
	"github.com/sysbench-go/sysbench-go/report"
	"github.com/sysbench-go/sysbench-go/telemetry"
)

// checkOutputs checks --results and --intervals-csv before the run
// (report.CheckOutputAs): each in its format, and neither one of the
// run's inputs nor the other's file. With one of them "-", the text
// output moves to standard error, leaving standard output to the data.
func (spec *runSpec) checkOutputs() error {
	spec.outputs = map[string]*report.Output{}
	inputs := runInputs(spec)
	var toStdout int
	for _, o := range []struct {
		name   string
		format report.Format
	}{{"results", report.JSON}, {"intervals-csv", report.CSV}} {
		path := spec.values.String(o.name)
		if path == "" {
			continue
		}
		out, err := report.CheckOutputAs(path, o.format)
		if err == nil {
			err = out.Overwrites(inputs)
		}
		if err != nil {
			return fmt.Errorf("--%s: %w", o.name, err)
		}
		if r := spec.outputs["results"]; r != nil && !out.IsStdout() && out.Is(r.Path) {
			return fmt.Errorf("--results and --intervals-csv name the same file ('%s', '%s')", r.Path, path)
		}
		spec.outputs[o.name] = out
		if out.IsStdout() {
			toStdout++
		}
	}
	if toStdout > 1 {
		return errors.New("--results and --intervals-csv cannot both be standard output (-)")
	}
	spec.textToStderr = toStdout == 1
	return nil
}

// runInputs are the files a run reads: the script named, the config
// files, the files of the options that name one (--mysql-ssl-ca, ...),
// and the SQLite database.
func runInputs(spec *runSpec) []report.Input {
	var in []report.Input
	if t := spec.cl.testname; t != "" && t != "-" {
		if st, err := os.Stat(t); err == nil && st.Mode().IsRegular() {
			in = append(in, report.Input{Path: t, What: "the script"})
		}
	}
	for _, o := range spec.cl.opts {
		if options.Canonical(o[0]) == "config_file" {
			in = append(in, report.Input{Path: o[1], What: "the --config-file"})
		}
	}
	for _, o := range spec.declared {
		if o.Kind != options.File || o.Name == "results" || o.Name == "intervals-csv" || o.Name == "config-file" {
			continue
		}
		if v := spec.values.String(o.Name); v != "" {
			in = append(in, report.Input{Path: v, What: "--" + o.Name + "'s file"})
		}
	}
	if spec.values.String("db-driver") == "sqlite" {
		in = append(in, report.Input{Path: spec.values.String("sqlite-db"), What: "the SQLite database (--sqlite-db)"})
	}
	return in
}

// outputs are a run's reporters beyond the text output: the results file
// and the CSV series, when asked for. Both are written as the run goes.
type outputs struct {
	reporters []report.Reporter
	server    *telemetry.Sampler // --server-stats, nil without
	whole     *metrics.Snapshot  // the final report's whole run, for --threshold
	recorder  *report.Recorder
	csv       *report.IntervalsCSV
	csvFile   io.WriteCloser
}

// openOutputs opens the run's outputs; head is the results file's
// beginning, what is known of the run before it starts (resultsOf).
func (p *program) openOutputs(spec *runSpec, server *telemetry.Sampler, head *report.Results) (*outputs, error) {
	cfg := spec.cfg
	o := &outputs{}
	o.reporters = append(o.reporters, finalRun{&o.whole})
	if server != nil {
		// Before the results file and the CSV: it gives the intervals
		// their server side.
		o.server = server
		o.reporters = append(o.reporters, server)
	}
	if out := spec.outputs["results"]; out != nil {
		stream, err := report.NewResultsStream(out, p.stdout, head)
		if err != nil {
			return nil, fmt.Errorf("--results: %w", err)
		}
		o.recorder = &report.Recorder{Percentiles: cfg.Percentiles, Rate: cfg.Rate > 0, Stream: stream}
		o.reporters = append(o.reporters, o.recorder)
	}
	if out := spec.outputs["intervals-csv"]; out != nil {
		f, err := out.Create(p.stdout)
		if err != nil {
			o.abort()
			return nil, fmt.Errorf("--intervals-csv: cannot write '%s': %w", out.Path, err)
		}
		o.csvFile = f
		o.csv = report.NewIntervalsCSV(f, cfg.Percentiles, cfg.Rate > 0)
		if server != nil {
			o.csv.WithServer()
		}
		if cfg.Warmup > 0 {
			o.csv.WithWarmup()
		}
		o.reporters = append(o.reporters, o.csv)
	}
	return o, nil
}

// close finishes the CSV series and writes the results file.
func (o *outputs) close(r *report.Results, status int, reasons []string, fatal []string) error {
	var errs []error
	if o.server != nil {
		errs = append(errs, o.server.Close())
	}
	if o.csv != nil {
		errs = append(errs, o.csv.Close())
		if err := o.csvFile.Close(); err != nil {
			errs = append(errs, fmt.Errorf("cannot write the intervals CSV: %w", err))
		}
	}
	if o.recorder != nil {
		r.Checkpoints, r.Total = o.recorder.Checkpoints, o.recorder.Total
		r.Warmup, r.Outages = o.recorder.Warmup, o.recorder.Outages
		if st := o.recorder.Steadiness; st != nil {
			r.Steady, r.Variation = st.Steady, st.Variation
		}
		if r.Checkpoints == nil {
			r.Checkpoints = []report.Window{}
		}
		r.Exit = report.Exit{Status: status, Reason: reasons[0], Reasons: reasons, Fatal: fatal}
		if r.Thresholds == nil {
			r.Thresholds = []report.ThresholdResult{}
		}
		errs = append(errs, o.recorder.Err, o.recorder.Stream.Finish(r))
	}
	return errors.Join(errs...)
}

// abort drops the outputs of a run that does not start: the results file
// stays as it was.
func (o *outputs) abort() {
	if o.recorder != nil {
		o.recorder.Stream.Abort()
	}
	if o.csvFile != nil {
		o.csvFile.Close()
	}
}

// finalRun keeps the final report's whole run.
type finalRun struct{ whole **metrics.Snapshot }

func (f finalRun) Report(r *report.Report) {
	if r.Kind == report.Final {
		*f.whole = r.Run
	}
}

// resultsOf describes the run for its results file, as far as it is known
// when the run starts; ended says the rest.
func (p *program) resultsOf(spec *runSpec, t engine.Test, testOpts []options.Option, start time.Time) *report.Results {
	cfg, v := spec.cfg, spec.values
	host, _ := os.Hostname()
	b := currentBuild()
	r := &report.Results{
		SchemaVersion: report.SchemaVersion,
		Tool: report.Tool{Name: "sysbench-go", Version: b.Version, API: "sysbench " + APILevel, Lua: LuaVersion,
			Commit: b.Commit, BuildDate: b.Date},
		RunID:       report.NewRunID(),
		Host:        report.Host{Name: host, CPUs: runtime.NumCPU(), OS: runtime.GOOS, Arch: runtime.GOARCH},
		Start:       start.UTC(),
		CommandLine: report.RedactArgs(spec.args),
		Options:     map[string]string{},
		Workload:    report.Workload{Test: t.Name(), Command: spec.cl.command, Options: map[string]string{}},
		Settings: report.Settings{Threads: cfg.Threads, TimeSeconds: cfg.Time.Seconds(), Events: cfg.Events,
			Rate: cfg.Rate, WarmupSeconds: cfg.Warmup.Seconds(), ReportIntervalSec: cfg.ReportInterval.Seconds(),
			Percentiles: cfg.Percentiles, RandSeed: cfg.RandSeed, MaxTries: cfg.MaxTries},
	}
	for _, cp := range cfg.Checkpoints {
		r.Settings.Checkpoints = append(r.Settings.Checkpoints, cp.Seconds())
	}
	if !cfg.StartAt.IsZero() {
		at := cfg.StartAt.UTC()
		r.Settings.StartAt = &at
	}
	r.Instance = spec.instance.record(spec.tidOffset)
	names := map[string]string{} // canonical -> as declared
	for _, o := range append(append([]options.Option{}, spec.declared...), testOpts...) {
		names[options.Canonical(o.Name)] = o.Name
	}
	display := func(k string) string {
		if n, ok := names[k]; ok {
			return n
		}
		return k
	}
	for _, k := range v.Names() {
		val, _ := v.Raw(k)
		r.Options[display(k)] = report.RedactValue(display(k), val)
	}
	for _, o := range testOpts {
		if val, ok := v.Raw(o.Name); ok {
			r.Workload.Options[o.Name] = report.RedactValue(o.Name, val)
		}
	}
	return r
}

// ended completes the results of a run that ended at end: its end, and
// the databases it used.
func ended(env *luaapi.Env, r *report.Results, end time.Time) {
	r.End = end.UTC()
	if env != nil && env.UsedSQL() {
		drv, version := env.Server()
		name := strings.Join(drv, ",")
		r.Workload.Driver = name
		r.Driver = &report.Driver{Name: name, ServerVersion: version}
	}
}

// openServerStats opens --server-stats' sampler on the run's driver, which
// main opens (and hands to the script) so that the sampler watches the
// server the workers talk to; nil, with a warning, where no server can be
// watched.
func (p *program) openServerStats(spec *runSpec, env *luaapi.Env) *telemetry.Sampler {
	if env == nil || !spec.values.Bool("server-stats") {
		return nil
	}
	f := p.driverFactory(env.DriverName)
	if f == nil {
		return nil // the script's first use says the name is invalid
	}
	d, err := f.Open(env.DriverConfig)
	if err != nil {
		return nil // as above: the script's first use prints why
	}
	env.UseDriver(f.Name, d)
	if dryrun.IsDryRun(d) {
		p.log.Warnf("--server-stats: no server to watch in a dry run")
		return nil
	}
	o, ok := d.(drivers.Observable)
	if !ok {
		p.log.Warnf("--server-stats: the %s driver has no server to watch", f.Name)
		return nil
	}
	obs, err := o.Observe(p.ctx)
	if err != nil {
		p.log.Warnf("%v", err)
		return nil
	}
	pid, _ := spec.values.Int("server-pid")
	return telemetry.New(p.ctx, obs, int(pid), p.log)
}
