package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sysbench-go/sysbench-go/logging"
	"github.com/sysbench-go/sysbench-go/options"
	"github.com/sysbench-go/sysbench-go/report"
)

// reportOptions are the report command's options.
var reportOptions = []options.Option{
	{Name: "percentile", Desc: "percentiles to print (a list such as 50,95,99.9; 0 for none); default: those of the run", Kind: options.String, NoDefault: true},
	{Name: "histogram", Desc: "print the latency histogram", Kind: options.Bool, Default: "off"},
	{Name: "results", Desc: "write the (merged) result as a results file to FILE", Kind: options.File, NoDefault: true},
	{Name: "force", Desc: "merge results of different workloads", Kind: options.Bool, Default: "off"},
	{Name: "merge", Desc: "how the files' measured windows combine: rounds (one after the other: rates over the sum of the windows) or instances (together: rates over their mean); default: read from the windows", Kind: options.String, NoDefault: true},
	{Name: "baseline", Desc: "regression gate: compare the FILE... given against these results files (a comma-separated list; a directory stands for its results files), each file one round, and exit with status 98 when a figure is significantly worse than --gate-threshold", Kind: options.String, NoDefault: true},
	{Name: "gate", Desc: "figures the regression gate checks: tps, qps, percentiles such as p95 or p99.9", Kind: options.String, Default: report.DefaultGateFigures},
	{Name: "gate-threshold", Desc: "worsening the regression gate tolerates, in per cent", Kind: options.String, Default: "5%"},
	{Name: "gate-json", Desc: "write the regression gate's verdicts as JSON to FILE", Kind: options.File, NoDefault: true},
	{Name: "help", Desc: "print this help and exit", Kind: options.Bool, Default: "off"},
}

// GateFailed is the exit status of a regression gate that failed: 99 is
// a missed --threshold's, 98 tells the two apart in a CI job.
const GateFailed = 98

// reportCommand is 'sysbench-go report [options] FILE...': the final
// report of one results file, or of several merged into one.
func (p *program) reportCommand(args []string) int {
	values, files, ok := p.commandArgs(reportOptions, args)
	switch {
	case !ok:
		return 1
	case values.Bool("help"):
		printReportHelp(p.log.Out(), p.name())
		return 0
	case len(files) == 0:
		return p.fail(fmt.Errorf("report: no results file given (usage: %s report [options] FILE...)", p.name()))
	case values.IsSet("baseline"):
		return p.gateCommand(values, files)
	}
	for _, o := range []string{"gate", "gate-threshold", "gate-json"} {
		if values.IsSet(o) {
			return p.fail(fmt.Errorf("report: --%s needs --baseline", o))
		}
	}
	var out *report.Output
	if path := values.String("results"); path != "" {
		var err error
		if out, err = report.CheckOutputAs(path, report.JSON); err != nil {
			return p.fail(fmt.Errorf("--results: %w", err))
		}
		if out.IsStdout() {
			p.textToStderr()
		}
	}
	rs, files, err := readResultsArgs(files)
	if err != nil {
		return p.fail(err)
	}
	if out != nil {
		inputs := make([]report.Input, len(files))
		for i, f := range files {
			inputs[i] = report.Input{Path: f, What: "a results file"}
		}
		if err := out.Overwrites(inputs); err != nil {
			return p.fail(fmt.Errorf("--results: %w", err))
		}
	}
	as := values.String("merge")
	if as != "" && as != report.AsRounds && as != report.AsInstances {
		return p.fail(fmt.Errorf("report: --merge must be %s or %s, not '%s'", report.AsRounds, report.AsInstances, as))
	}
	merged, err := report.Merge(rs, files, report.MergeOptions{Force: values.Bool("force"), As: as})
	if err == nil {
		err = p.printResults(merged, values, out)
	}
	return p.fail(err)
}

// gateCommand is report --baseline: the regression gate of the files
// given against the baseline's, every file one round.
func (p *program) gateCommand(values *options.Values, files []string) int {
	for _, o := range []string{"results", "merge", "histogram", "percentile", "force"} {
		if values.IsSet(o) {
			return p.fail(fmt.Errorf("report: --%s cannot be used with --baseline", o))
		}
	}
	figures, err := report.ParseGateFigures(values.String("gate"))
	if err != nil {
		return p.fail(err)
	}
	threshold, err := report.ParseGateThreshold(values.String("gate-threshold"))
	if err != nil {
		return p.fail(err)
	}
	var baseArgs []string
	for _, b := range strings.Split(values.String("baseline"), ",") {
		if b = strings.TrimSpace(b); b != "" {
			baseArgs = append(baseArgs, b)
		}
	}
	if len(baseArgs) == 0 {
		return p.fail(errors.New("--baseline: no results file given"))
	}
	var out *report.Output
	if path := values.String("gate-json"); path != "" {
		if out, err = report.CheckOutputAs(path, report.JSON); err != nil {
			return p.fail(fmt.Errorf("--gate-json: %w", err))
		}
		if out.IsStdout() {
			p.textToStderr()
		}
	}
	base, baseNames, err := readResultsArgs(baseArgs)
	if err != nil {
		return p.fail(fmt.Errorf("--baseline: %w", err))
	}
	cand, candNames, err := readResultsArgs(files)
	if err != nil {
		return p.fail(err)
	}
	if out != nil {
		var inputs []report.Input
		for _, f := range append(slices.Clone(baseNames), candNames...) {
			inputs = append(inputs, report.Input{Path: f, What: "a results file"})
		}
		if err := out.Overwrites(inputs); err != nil {
			return p.fail(fmt.Errorf("--gate-json: %w", err))
		}
	}
	g, err := report.RunGate(base, cand, baseNames, candNames, figures, threshold)
	if err != nil {
		return p.fail(err)
	}
	report.WriteGate(p.log.Writer(logging.Notice), g, figures)
	if out != nil {
		b, err := json.MarshalIndent(g, "", "  ")
		if err == nil {
			err = out.WriteAtomic(p.stdout, append(b, '\n'))
		}
		if err != nil {
			return p.fail(fmt.Errorf("--gate-json: %w", err))
		}
	}
	if g.Failed() {
		return GateFailed
	}
	return 0
}

// readResultsArgs reads the results files named, a directory standing
// for the *.json files in it but merged ones (a merge written into the
// directory it read, as the Kubernetes merge job does, is not read again).
func readResultsArgs(args []string) ([]*report.Results, []string, error) {
	var rs []*report.Results
	var names []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil || !st.IsDir() {
			r, err := report.ReadFile(a)
			if err != nil {
				return nil, nil, err
			}
			rs, names = append(rs, r), append(names, a)
			continue
		}
		found, _ := filepath.Glob(filepath.Join(a, "*.json"))
		n := len(rs)
		for _, f := range found {
			if strings.HasPrefix(filepath.Base(f), ".") {
				continue
			}
			r, err := report.ReadFile(f)
			if err != nil {
				return nil, nil, err
			}
			if len(r.Merged) == 0 {
				rs, names = append(rs, r), append(names, f)
			}
		}
		if len(rs) == n {
			return nil, nil, fmt.Errorf("report: no results file in the directory '%s'", a)
		}
	}
	return rs, names, nil
}

// commandArgs reads a command's options (those of opts) and its other
// arguments; false after an invalid option (printed).
func (p *program) commandArgs(opts []options.Option, args []string) (*options.Values, []string, bool) {
	values := options.NewValues()
	known := declare(values, opts)
	var rest []string
	for _, a := range args {
		if !strings.HasPrefix(a, "--") {
			rest = append(rest, a)
			continue
		}
		name, val, has := strings.Cut(a[2:], "=")
		o, ok := known[options.Canonical(name)]
		if !ok || setValue(values, o, val, !has) != nil {
			fmt.Fprintf(p.stderr, "invalid option: %s\n", a)
			return nil, nil, false
		}
	}
	return values, rest, true
}

func printReportHelp(out io.Writer, prog string) {
	fmt.Fprintf(out, "Usage:\n  %[1]s report [options]... FILE|DIR...\n\n", prog)
	fmt.Fprintf(out, "Prints the final report of a results file (--results=FILE of a run), or of several merged:\ncounters summed, histograms merged, the threads of all. Windows one after the other are rounds\n(per-second figures over the sum of the windows), windows that overlap are instances run together\n(over the mean of their windows); the report says which it found. A run is counted once. A\ndirectory stands for the results files in it (merged ones left out). See docs/results.md.\n\n")
	fmt.Fprintf(out, "With --baseline it is a regression gate: each file is one round; it prints one line per figure\nof --gate and PASS or FAIL, and exits with status %d when a figure's rounds show it worse than\n--gate-threshold at 95%% confidence (not when medians merely moved). See docs/measuring.md.\n\n", GateFailed)
	fmt.Fprintf(out, "report options:\n%s\n", options.FormatHelp(reportOptions))
}

// printResults prints the final report of r's whole run, with the
// percentiles of --percentile (else the run's), and writes r with them
// to --results when given.
func (p *program) printResults(r *report.Results, values *options.Values, out *report.Output) error {
	pcts := r.Settings.Percentiles
	if values.IsSet("percentile") {
		var err error
		if pcts, err = parsePercentiles(values.String("percentile")); err != nil {
			return err
		}
	}
	if values.Bool("histogram") && len(pcts) == 0 {
		return errors.New("--histogram cannot be used with --percentile=0")
	}
	snap, err := r.Total.Snapshot()
	if err != nil {
		return err
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(p.stderr, "WARNING: %s\n", w)
	}
	if len(r.Merged) > 1 {
		p.log.Noticef("Merged %d results: %s", len(r.Merged), strings.Join(r.Merged, ", "))
		if r.Combined != nil {
			p.log.Noticef("%s", r.Combined.Statement(len(r.Parts)))
		}
		if r.Alignment != nil {
			report.WriteAlignment(p.log.Writer(logging.Notice), r.Alignment)
		}
	}
	text := &report.Text{Out: p.log.Writer(logging.Notice), Hooks: resultHooks{sql: r.Workload.Driver != ""},
		Histogram: values.Bool("histogram")}
	s := report.NewStat(snap, pcts)
	s.TimeTotal = s.TimeInterval
	// One run's steadiness, as the run printed it (a merge has none), its
	// outages and hosts, in the run's order.
	text.Report(&report.Report{Kind: report.Final, Stat: s, Window: snap, Run: snap,
		Steadiness: &report.Steadiness{Steady: r.Steady, Variation: r.Variation}, Outages: r.Outages})
	if r.Server != nil && len(r.Merged) <= 1 {
		report.WriteServer(p.log.Writer(logging.Notice), r.Server)
	}
	if len(r.Statements) > 0 {
		list, err := r.StatementList()
		if err != nil {
			return err
		}
		report.WriteStatements(p.log.Writer(logging.Notice), list, pcts, 0)
		if r.Statements, err = report.NewStatementResults(list, pcts); err != nil {
			return err
		}
	}
	if out == nil {
		return nil
	}
	w, err := report.NewWindow(snap, pcts)
	if err != nil {
		return err
	}
	r.Settings.Percentiles, r.Total = pcts, w
	return r.Write(out, p.stdout)
}

// resultHooks print a results file's final report as the run printed it:
// the SQL statistics when the run used a database.
type resultHooks struct{ sql bool }

func (resultHooks) ReportIntermediate(w io.Writer, s *report.Stat) bool { return false }

func (h resultHooks) ReportCumulative(w io.Writer, s *report.Stat) bool {
	if h.sql {
		report.WriteSQLStatistics(w, s)
	}
	return false
}
