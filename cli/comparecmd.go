package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sysbench-go/sysbench-go/compare"
	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/engine"
	"github.com/sysbench-go/sysbench-go/logging"
	"github.com/sysbench-go/sysbench-go/lua"
	"github.com/sysbench-go/sysbench-go/options"
)

// compareOptions are the compare command's options; those after "report"
// override the matrix file's common settings.
var compareOptions = []options.Option{
	{Name: "matrix", Desc: "the matrix file (TOML, docs/compare.md)", Kind: options.File, NoDefault: true},
	{Name: "dir", Desc: "the directory of the comparison's results files, manifest and reports (created; an existing one resumes)", Kind: options.File, NoDefault: true},
	{Name: "plan", Desc: "check the matrix (its targets reachable, its scripts' options) and print the run order and its duration, and exit", Kind: options.Bool, Default: "off"},
	{Name: "report", Desc: "rebuild the tables and reports from --dir without running", Kind: options.Bool, Default: "off"},
	{Name: "format", Desc: "the tables on standard output: text or markdown", Kind: options.String, Default: "text"},
	{Name: "rounds", Desc: "override the matrix's rounds", Kind: options.Int, NoDefault: true},
	{Name: "time", Desc: "override the matrix's run time of a cell, in seconds (with [capacity], each search's time)", Kind: options.Int, NoDefault: true},
	{Name: "warmup", Desc: "override the matrix's warm-up of a cell, in seconds", Kind: options.Int, NoDefault: true},
	{Name: "cooldown", Desc: "override the matrix's pause between targets, in seconds", Kind: options.Int, NoDefault: true},
	{Name: "threads", Desc: "override the matrix's thread counts (a list such as 10,50)", Kind: options.String, NoDefault: true},
	{Name: "rotate", Desc: "override the matrix's rotation of the target order each round", Kind: options.Bool, NoDefault: true},
	{Name: "prepare", Desc: "override the matrix's prepare policy: each-switch, once or none", Kind: options.String, NoDefault: true},
	{Name: "server-stats", Desc: "override the matrix's --server-stats", Kind: options.Bool, NoDefault: true},
	{Name: "replace-existing", Desc: "let the data sets' cleanups drop tables that exist and that this comparison did not create (refused by default)", Kind: options.Bool, NoDefault: true},
	{Name: "help", Desc: "print this help and exit", Kind: options.Bool, Default: "off"},
}

// compareCommand is 'sysbench-go compare': a comparison matrix run cell
// by cell in child processes, then its tables, compare.json and
// report.html.
func (p *program) compareCommand(args []string) int {
	values, rest, ok := p.commandArgs(compareOptions, args)
	switch {
	case !ok:
		return 1
	case values.Bool("help"):
		printCompareHelp(p.log.Out(), p.name())
		return 0
	case len(rest) > 0:
		return p.fail(fmt.Errorf("compare: unexpected argument '%s' (usage: %s compare --matrix=FILE --dir=DIR)", rest[0], p.name()))
	}
	format := values.String("format")
	if format != "text" && format != "markdown" {
		return p.fail(fmt.Errorf("compare: --format must be text or markdown, not '%s'", format))
	}
	dir := values.String("dir")
	if values.Bool("report") {
		if dir == "" {
			return p.fail(errors.New("compare: --report needs --dir=DIR"))
		}
		return p.fail(p.compareReport(dir, format))
	}
	if values.String("matrix") == "" || (dir == "" && !values.Bool("plan")) {
		return p.fail(fmt.Errorf("compare: --matrix=FILE and --dir=DIR are needed (%s compare --help)", p.name()))
	}
	if dir != "" {
		if err := compare.CheckMatrixPlace(values.String("matrix"), dir); err != nil {
			return p.fail(err)
		}
	}
	m, err := compare.ReadMatrix(values.String("matrix"), bundledScript)
	if err == nil {
		err = overrideMatrix(m, values)
	}
	if err != nil {
		return p.fail(err)
	}
	m.ForceCleanup = p.takesForceCleanup()
	exe, err := os.Executable()
	if err != nil {
		return p.fail(fmt.Errorf("compare: cannot find this program's path: %v", err))
	}
	// A plan is checked as a run is: a target that cannot be reached, or a
	// script that does not take its options, would fail only when run.
	versions, err := p.checkMatrix(m, exe)
	if err != nil {
		return p.fail(err)
	}
	// What the cleanups would drop is looked at before anything runs: a
	// table this comparison did not create is refused (docs/compare.md).
	var man *compare.Manifest
	if dir != "" {
		if man, err = compare.ReadManifest(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
			return p.fail(err)
		}
	}
	uses, err := m.TableUses(p.ctx, exe, p.targetTables(m), man)
	if err != nil {
		return p.fail(err)
	}
	if values.Bool("plan") {
		plan := compare.NewPlan(m)
		done := func(string) bool { return false }
		if man != nil {
			done = plan.Kept(man)
		}
		plan.WritePlan(p.log.Out(), m, done)
		compare.WriteTables(p.log.Out(), m, uses)
		return p.fail(m.Refusal(uses))
	}
	if err := m.Refusal(uses); err != nil {
		return p.fail(err)
	}
	return p.fail(p.runComparison(m, dir, exe, versions, format))
}

// takesForceCleanup says whether a script declares --force-cleanup, read
// once per script without running it.
func (p *program) takesForceCleanup() func(script string) bool {
	var mu sync.Mutex
	seen := map[string]bool{}
	return func(script string) bool {
		mu.Lock()
		defer mu.Unlock()
		takes, ok := seen[script]
		if !ok {
			opts, _ := p.testOptions(nil, script, readBudget)
			takes = optionNamed(opts, "force-cleanup")
			seen[script] = takes
		}
		return takes
	}
}

// bundledScript says whether a name is one of the embedded scripts.
func bundledScript(name string) bool {
	_, err := fs.Stat(lua.Scripts, name+".lua")
	return err == nil && !strings.ContainsAny(name, "/\\")
}

// overrideMatrix applies the command line's common settings.
func overrideMatrix(m *compare.Matrix, v *options.Values) error {
	for name, dst := range map[string]*int{"rounds": &m.Rounds, "time": &m.Time, "warmup": &m.Warmup, "cooldown": &m.Cooldown} {
		if v.IsSet(name) {
			n, _ := v.Int(name)
			*dst = int(n)
		}
	}
	if v.IsSet("time") && m.Capacity != nil {
		m.Capacity.Time = m.Time
	}
	if v.IsSet("threads") {
		m.Threads = nil
		for _, f := range strings.Split(v.String("threads"), ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				return fmt.Errorf("compare: --threads must be a list of thread counts, such as 10,50")
			}
			m.Threads = append(m.Threads, n)
		}
	}
	if v.IsSet("rotate") {
		m.Rotate = v.Bool("rotate")
	}
	if v.IsSet("prepare") {
		m.Prepare = v.String("prepare")
	}
	if v.IsSet("server-stats") {
		m.ServerStats = v.Bool("server-stats")
	}
	if v.IsSet("replace-existing") {
		m.ReplaceExisting = v.Bool("replace-existing")
	}
	return m.Check()
}

// checkMatrix checks, before anything runs, that every target is
// reachable (returning their server versions) and that every workload's
// and data set's options are ones its script takes.
func (p *program) checkMatrix(m *compare.Matrix, exe string) (map[string]string, error) {
	versions := map[string]string{}
	for i := range m.Targets {
		t := &m.Targets[i]
		v, err := p.probeTarget(m.TargetArgs(t))
		if err != nil {
			return nil, m.Errorf(fmt.Sprintf("target.%d", i), "target %q: %s", t.Name, oneLine(err.Error()))
		}
		versions[t.Name] = v
	}
	for _, c := range m.ScriptChecks() {
		out, err := exec.CommandContext(p.ctx, exe, c.Args...).CombinedOutput()
		if err != nil {
			msg, key := firstProblem(out, err), c.Key
			if opt, ok := strings.CutPrefix(msg, "invalid option: --"); ok {
				name, _, _ := strings.Cut(opt, "=")
				key += ".options." + name // its line, when the option is the table's own
			}
			return nil, m.Errorf(key, "%s: %s", c.What, msg)
		}
	}
	return versions, nil
}

// oneLine joins a multi-line message (a server's hint after its error)
// into one line.
func oneLine(s string) string {
	var parts []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, "; ")
}

// firstProblem is the line of a child's output that says what is wrong.
func firstProblem(out []byte, err error) string {
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "FATAL: ") || strings.HasPrefix(l, "invalid option") {
			return strings.TrimPrefix(l, "FATAL: ")
		}
	}
	return err.Error()
}

// probeTarget opens a connection with a target's driver options and asks
// the server's version.
func (p *program) probeTarget(args []string) (string, error) {
	var version string
	err := p.withTarget(args, func(ctx context.Context, c drivers.Conn) error {
		if sv, ok := c.(drivers.ServerVersioner); ok {
			version, _ = sv.ServerVersion(ctx)
		}
		return nil
	})
	return version, err
}

// tableQueries list the tables of the database (schema) a connection
// uses, per driver.
var tableQueries = map[string]string{
	"mysql":  "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()",
	"pgsql":  "SELECT tablename FROM pg_catalog.pg_tables WHERE schemaname = current_schema()",
	"sqlite": "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
}

// targetTables lists the tables of a target's database.
func (p *program) targetTables(m *compare.Matrix) compare.TableLister {
	return func(_ context.Context, t *compare.TargetSpec) ([]string, error) {
		return p.listTables(t.Driver, m.TargetArgs(t))
	}
}

func (p *program) listTables(driver string, args []string) ([]string, error) {
	var tables []string
	err := p.withTarget(args, func(ctx context.Context, c drivers.Conn) error {
		res, err := c.Query(ctx, tableQueries[driver])
		if err != nil {
			return err
		}
		for _, row := range drivers.ReadRows(res, "") {
			if len(row) > 0 {
				tables = append(tables, row[0])
			}
		}
		return nil
	})
	return tables, err
}

// withTarget opens a connection with a target's driver options and calls
// f with it.
func (p *program) withTarget(args []string, use func(ctx context.Context, c drivers.Conn) error) error {
	var msgs bytes.Buffer
	q := &program{ctx: p.ctx, stdin: p.stdin, stderr: &msgs, log: logging.New(&msgs, logging.DefaultLevel),
		drivers: p.drivers, tests: p.tests}
	cl, err := parseArgs(args)
	if err != nil {
		return err
	}
	spec, err := readSpec(cl, args, allDeclared(p.drivers, p.tests), &msgs)
	if err != nil {
		return err
	}
	if len(spec.pending) > 0 {
		return fmt.Errorf("unknown option %s (a target takes driver options)", spec.pending[0].raw)
	}
	values := spec.values
	f := p.driverFactory(values.String("db-driver"))
	if f == nil {
		return fmt.Errorf("unknown driver '%s'", values.String("db-driver"))
	}
	mode, err := psMode(values)
	if err != nil {
		return err
	}
	d, err := f.Open(drivers.Config{Values: values, PSMode: mode, Threads: 1, Log: q.log})
	if err != nil {
		return problem(err, q.log)
	}
	defer d.Close()
	ctx, cancel := context.WithTimeout(p.ctx, 15*time.Second)
	defer cancel()
	c, err := d.Connect(ctx)
	if err != nil {
		return fmt.Errorf("not reachable: %v", problem(err, q.log))
	}
	defer c.Close()
	return use(ctx, c)
}

// problem is a driver's error, or the FATAL line it printed instead.
func problem(err error, log *logging.Logger) error {
	if f := log.Fatals(); len(f) > 0 {
		return errors.New(strings.TrimPrefix(f[len(f)-1], "FATAL: "))
	}
	return err
}

// runComparison runs the cells not done yet, then writes and prints the
// reports. A first SIGINT stops after the current cell; a second one (or
// SIGTERM) interrupts it.
func (p *program) runComparison(m *compare.Matrix, dir, exe string, versions map[string]string, format string) error {
	now := make(chan struct{})
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	ctx, cancel := context.WithCancel(context.WithoutCancel(p.ctx))
	defer cancel()
	// The first signal, which the exit status gives (128 + its number).
	first := make(chan *engine.Interrupt, 1)
	go func() {
		stopping := false
		for s := range sig {
			if !stopping {
				first <- &engine.Interrupt{Signal: s.(syscall.Signal)}
			}
			if stopping || s == syscall.SIGTERM {
				close(now)
				return
			}
			stopping = true
			fmt.Fprintf(p.stderr, "compare: stopping after the current cell (again to stop it now)\n")
			cancel()
		}
	}()
	r := &compare.Runner{Matrix: m, Dir: dir, Exe: exe, Progress: p.stderr, Versions: versions, Now: now,
		Tables: p.targetTables(m)}
	if err := r.Open(); err != nil {
		return err
	}
	plan := r.Plan()
	fmt.Fprintf(p.stderr, "compare: %d cells (%d done before), results in %s\n", plan.Cells(), plan.Cells()-r.Pending(), dir)
	runErr := r.Run(ctx)
	if err := p.compareReport(dir, format); err != nil {
		return err
	}
	pending, failed := r.Pending(), r.Failed()
	switch {
	case errors.Is(runErr, compare.ErrStopped):
		select {
		case in := <-first:
			return interruptError(in, fmt.Sprintf("The comparison was interrupted by %s: %d of %d cells not done; run the same command again to resume", in.Name(), pending, plan.Cells()))
		default: // stopped by whoever runs it in-process
			return fmt.Errorf("compare: stopped with %d of %d cells not done: run the same command again to resume", pending, plan.Cells())
		}
	case runErr != nil:
		return runErr
	case failed > 0:
		return fmt.Errorf("compare: %d of %d cells failed (their FATAL lines are above and in %s): run again to retry them", failed, plan.Cells(), filepath.Join(dir, compare.ManifestFile))
	}
	return nil
}

// compareReport builds the summary of dir, writes compare.json and
// report.html into it, and prints the tables.
func (p *program) compareReport(dir, format string) error {
	s, err := compare.Build(dir)
	if err != nil {
		return err
	}
	if err := s.WriteFiles(dir); err != nil {
		return err
	}
	out := p.log.Out()
	if format == "markdown" {
		s.WriteMarkdown(out)
	} else {
		s.WriteText(out)
	}
	fmt.Fprintf(out, "\nReports: %s, %s\n", filepath.Join(dir, compare.SummaryFile), filepath.Join(dir, compare.HTMLFile))
	return nil
}

func printCompareHelp(out io.Writer, prog string) {
	fmt.Fprintf(out, "Usage:\n  %[1]s compare --matrix=FILE --dir=DIR [options]\n  %[1]s compare --report --dir=DIR\n\n", prog)
	fmt.Fprintf(out, "Runs a comparison matrix (targets × workloads × thread counts × rounds), each cell a run of its own\n")
	fmt.Fprintf(out, "writing a results file into DIR, and prints side-by-side tables; DIR also gets compare.json and a\n")
	fmt.Fprintf(out, "self-contained report.html. Running it again on the same DIR resumes. See docs/compare.md.\n\n")
	fmt.Fprintf(out, "compare options:\n%s\n", options.FormatHelp(compareOptions))
}
