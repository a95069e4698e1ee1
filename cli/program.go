// Package cli is sysbench-go's command line: the sysbench 1.0.20 drop-in
// (general options, the test or script and its command, the built-in
// tests) and our own commands (report, compare, start, deploy, completion,
// man), each in a file of its own. Run is the whole program, in-process:
// its arguments, streams and a context that a signal cancels in, an exit
// status out; the program's main wires the process to it.
//
//	sysbench-go [options]... [testname] [command]
package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sysbench-go/sysbench-go/builtin"
	"github.com/sysbench-go/sysbench-go/control"
	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/drivers/mysql"
	"github.com/sysbench-go/sysbench-go/drivers/pgsql"
	"github.com/sysbench-go/sysbench-go/drivers/sqlite"
	"github.com/sysbench-go/sysbench-go/engine"
	"github.com/sysbench-go/sysbench-go/live"
	"github.com/sysbench-go/sysbench-go/logging"
	"github.com/sysbench-go/sysbench-go/lua"
	"github.com/sysbench-go/sysbench-go/luaapi"
	"github.com/sysbench-go/sysbench-go/metrics"
	"github.com/sysbench-go/sysbench-go/options"
	"github.com/sysbench-go/sysbench-go/report"
)

// compiledDrivers lists the database drivers, in help order.
func compiledDrivers() []drivers.Factory {
	return []drivers.Factory{mysql.Factory, pgsql.Factory, sqlite.Factory}
}

// run is the whole program, testable in-process, under our own name. It
// returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return Run(ctx, "sysbench-go", args, stdin, stdout, stderr)
}

// Run runs the program as argv0 names it (as `sysbench`, it answers
// --version as the reference does) with args, the arguments after it, and
// returns its exit status. ctx ends the run or command early: a cause of
// *engine.Interrupt names the signal that did, and the status says it
// (128+signal).
func Run(ctx context.Context, argv0 string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// A reader of the output that went away stops the program as SIGPIPE
	// would, and it exits with SIGPIPE's status.
	closed := func() { cancel(&engine.Interrupt{Signal: syscall.SIGPIPE}) }
	w := &flushWriter{w: bufio.NewWriterSize(stdout, 64*1024), dest: stdout, closed: closed}
	defer w.flush()
	p := &program{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, out: w,
		log: logging.New(w, logging.DefaultLevel), drivers: compiledDrivers(), tests: builtin.Tests(), dropIn: dropInName(argv0)}
	return p.main(args)
}

// program is one runSpec: its streams, logger and what is compiled in.
type program struct {
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer // the raw standard output, for an output of "-"
	stderr io.Writer
	// out is the text output's writer (the logger's): standard output,
	// or standard error when an output is "-".
	out     *flushWriter
	log     *logging.Logger
	drivers []drivers.Factory
	tests   []engine.Builtin
	// dropIn: the program runs as `sysbench` (versionText).
	dropIn bool
	// command is the name of our command that runs (report, compare, ...),
	// "" for the sysbench drop-in: ours print what they are asked for on
	// standard output and every diagnostic on standard error (diag).
	command string
}

// main runs the steps in the reference's order: general options, help and
// version, the general settings (their errors and warnings come before the
// banner), the banner, then the test.
func (p *program) main(args []string) int {
	if len(args) > 0 {
		if c, ok := findCommand(args[0]); ok {
			return p.runOurs(c, args[1:])
		}
	}
	cl, err := parseArgs(args)
	if err != nil {
		fmt.Fprintln(p.stderr, err)
		return 1
	}
	spec, err := readSpec(cl, args, allDeclared(p.drivers, p.tests), p.stderr)
	if err != nil {
		return p.fail(err)
	}
	if cl.command == "capacity" {
		p.capacityStreams() // its answer alone on standard output
	}
	if spec.values.Bool("help") {
		printHelp(p.log.Out(), p.name(), p.drivers, p.tests)
		return 0
	}
	if spec.values.Bool("version") {
		fmt.Fprint(p.log.Out(), versionText(p.dropIn))
		return 0
	}
	if !p.resolve(spec) {
		return 1
	}
	p.log.Noticef("%s\n", banner())
	if spec.values.String("db-driver") == "help" {
		printDrivers(p.log.Out(), p.drivers)
		return 0
	}
	if !cl.named || cl.testname == "-" {
		return p.runStdinScript(spec)
	}
	for _, b := range p.tests {
		if b.Name == cl.testname {
			return p.runBuiltin(spec, b)
		}
	}
	return p.runScript(spec)
}

// runOurs runs one of our commands. A signal that cuts it short ends it
// with 128 + the signal's number and, on standard error, a line saying
// so: a command that watches the signal itself (ownSignals: compare,
// start) returns with its own line; one that does not (a report reading
// a slow file, deploy loading a script) is left where it was, since
// nothing it does is worth finishing once told to stop. When the reader
// of standard output goes away (SIGPIPE's status, no line), the command
// goes on, its writes failing at once, so that its files are written.
func (p *program) runOurs(c ourCommand, args []string) int {
	p.command = c.name
	done := make(chan int, 1)
	go func() { done <- c.run(p, args) }()
	var code int
	select {
	case code = <-done:
	case <-p.ctx.Done():
		if in := engine.Interrupted(p.ctx); c.ownSignals || in == nil || in.Signal == syscall.SIGPIPE {
			code = <-done
		}
	}
	in := engine.Interrupted(p.ctx)
	if in == nil || code == in.ExitCode() {
		return code
	}
	// No line when the reader went away (| head): nobody asked to stop.
	if in.Signal != syscall.SIGPIPE {
		p.fail(interruptError(in, fmt.Sprintf("The '%s' command was interrupted by %s", c.name, in.Name())))
	}
	return in.ExitCode()
}

// diag is where diagnostics go: standard error for our commands; for the
// drop-in, the output, where the reference prints its FATAL and WARNING
// lines.
func (p *program) diag() io.Writer {
	if p.command != "" {
		return p.stderr
	}
	return p.log.Out()
}

// resolve resolves spec, printing its warnings and its error (as the
// reference, before the banner and at any verbosity), and applies what it
// says of the program's output: the verbosity, the text report on standard
// error when an output is standard output.
func (p *program) resolve(spec *runSpec) bool {
	out := p.diag()
	if err := spec.resolve(func(msg string) { fmt.Fprintf(out, "WARNING: %s\n", msg) }); err != nil {
		p.fail(err)
		return false
	}
	p.log.SetLevel(spec.level)
	if spec.textToStderr {
		p.textToStderr()
	}
	return true
}

// runBuiltin runs a compiled-in test (cpu, fileio, ...).
func (p *program) runBuiltin(spec *runSpec, b engine.Builtin) int {
	cl, values := spec.cl, spec.values
	if cl.command == "" {
		fmt.Fprintf(p.stderr, "The '%s' test requires a command argument. See '%s %s help'\n", b.Name, p.name(), b.Name)
		return 1
	}
	if err := spec.bind(b.Options, false); err != nil {
		return p.fail(err)
	}
	if cl.command == "help" {
		out := p.log.Out()
		fmt.Fprintf(out, "%s options:\n", b.Name)
		fmt.Fprintf(out, "%s\n", options.FormatHelp(b.Options))
		return 0
	}
	if cl.command == "run" {
		// Options for database tests: said once, not silently ignored.
		for _, o := range []string{"server-stats", "statement-stats"} {
			if values.Bool(o) {
				p.log.Warnf("--%s: the %s test uses no database: nothing to report", o, b.Name)
			}
		}
		for _, o := range givenConnectionOptions(values) {
			p.log.Warnf("--%s: the %s test uses no database: no connection to open", o, b.Name)
		}
	}
	// Each worker a processor of its own, as each of the reference's
	// workers is a thread: the built-in tests block in system calls
	// (sched_yield, pread, fsync) and spin without yielding.
	spec.cfg.BlockingWorkers = true
	cfg := spec.cfg
	t, err := b.New(&engine.Env{Values: values, Threads: cfg.Threads, Validate: cfg.Validate,
		RandSeed: cfg.RandSeed, Log: p.log})
	if err != nil {
		return p.fail(err)
	}
	return p.runCommand(spec, t, b.Options, nil)
}

// scriptEnv is what every Lua state of the run shares; nil after a FATAL
// line.
func (p *program) scriptEnv(spec *runSpec) *luaapi.Env {
	cfg, values := spec.cfg, spec.values
	mode, modeErr := psMode(values)
	timeout, err := fracSecondsOpt(values, "query-timeout")
	if err != nil {
		p.fail(err)
		return nil
	}
	trace, err := traceOf(values, p.stderr)
	if err != nil {
		p.fail(err)
		return nil
	}
	env := &luaapi.Env{
		Values: values, Drivers: p.drivers, DriverName: values.String("db-driver"),
		DriverConfig: drivers.Config{Values: values, PSMode: mode, Debug: values.Bool("db-debug"),
			DryRun: values.Bool("db-dry-run"), Threads: cfg.Threads, Log: p.log, QueryTimeout: timeout},
		Log: p.log, Out: p.log.Out(), Rand: spec.rand, Threads: cfg.Threads, TidOffset: spec.tidOffset,
		Argv: append([]string{"sysbench"}, spec.args...),
		// The reference's sysbench.version_string is its VERSION_STRING,
		// without the banner's parenthesis (its own test suite checks it).
		Command: spec.cl.command, VersionString: "sysbench " + APILevel, Bundled: lua.Scripts,
		Declared: spec.declared, Ctx: p.ctx, RecordServerVersion: values.String("results") != "",
		StatementStats: values.Bool("statement-stats"), Trace: trace,
		Background:      boolInt(cfg.ReportInterval > 0) + boolInt(cfg.Rate > 0) + boolInt(len(cfg.Checkpoints) > 0),
		DriverConfigErr: modeErr,
	}
	return env
}

// runStdinScript reads a script from standard input and runs its body, as
// the reference does when no test name is given (or "-"); no command runs.
func (p *program) runStdinScript(spec *runSpec) int {
	env := p.scriptEnv(spec)
	if env == nil {
		return 1
	}
	env.Command = ""
	if f, ok := p.stdin.(*os.File); ok && isTerminal(f) {
		p.log.Noticef("Reading the script from the standard input:\n")
	}
	s, err := luaapi.LoadReader(env, p.stdin)
	if err != nil {
		return p.fail(err)
	}
	s.Close()
	return 0
}

// runScript loads a Lua script, binds the options it declares and runs the
// command.
func (p *program) runScript(spec *runSpec) int {
	env := p.scriptEnv(spec)
	if env == nil {
		return 1
	}
	if f := p.driverFactory(env.DriverName); f != nil && f.Wait != nil {
		w := f.Wait(env.DriverConfig)
		spec.cfg.BlockingWorkers, spec.cfg.PolledWorkers = w == drivers.WaitBlocking, w == drivers.WaitPolled
	}
	s, err := luaapi.Load(env, spec.cl.testname)
	if err != nil {
		return p.fail(err)
	}
	defer s.Close()
	if err := spec.bind(s.Options(), !s.DeclaresOptions()); err != nil {
		return p.fail(err)
	}
	if spec.cl.command == "" {
		return 0
	}
	cfg := spec.cfg
	s.SetRate(cfg.Rate > 0)
	s.SetMaxTries(cfg.MaxTries)
	s.SetInterruptible(cfg.ForcedShutdown >= 0)
	applyConnectionModel(spec, s, env)
	if err := p.checkLimits(spec, s, env); err != nil {
		return p.fail(err)
	}
	return p.runCommand(spec, s, s.Options(), env)
}

// driverFactory is the compiled-in driver of that name, nil for none.
func (p *program) driverFactory(name string) *drivers.Factory {
	for i := range p.drivers {
		if p.drivers[i].Name == name {
			return &p.drivers[i]
		}
	}
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// runCommand dispatches run / prepare / cleanup / help / custom commands.
// testOpts are the test's own options (for the results file).
func (p *program) runCommand(spec *runSpec, t engine.Test, testOpts []options.Option, env *luaapi.Env) int {
	command := spec.cl.command
	if command == "run" {
		return p.runTest(spec, t, testOpts, env)
	}
	if command == "capacity" {
		return p.runCapacity(spec, t, testOpts, env)
	}
	c, ok := t.(engine.Commander)
	if !ok {
		if command == "prepare" || command == "cleanup" || command == "help" {
			fmt.Fprintf(p.stderr, "'%s' test does not implement the '%s' command.\n", t.Name(), command)
		} else {
			fmt.Fprintf(p.stderr, "Unknown command: %s\n", command)
		}
		return 1
	}
	if env != nil && command != "help" && p.progressShown(spec) {
		// What the command's bulk inserts load, drawn as it goes.
		env.Rows = metrics.NewRows()
		pp := newPrepareProgress(command, env.Rows, time.Now())
		stop := p.startProgress(pp.lines, pp.summary)
		defer stop()
	}
	err := c.Command(p.ctx, command, p.log.Writer(logging.Notice))
	if in := engine.Interrupted(p.ctx); in != nil {
		// What failed after the signal failed because of it (a query it
		// cancelled): one line says the command was interrupted.
		return p.fail(interruptError(in, fmt.Sprintf("The '%s' command was interrupted by %s", command, in.Name())))
	}
	if errors.Is(err, engine.ErrUnknownCommand) {
		if command == "prepare" || command == "cleanup" || command == "help" {
			fmt.Fprintf(p.stderr, "'%s' test does not implement the '%s' command.\n", t.Name(), command)
		} else {
			fmt.Fprintf(p.stderr, "Unknown command: %s\n", command)
		}
		return 1
	}
	return p.fail(err)
}

// runTest runs the test's "run" command: the run, the error that ended
// it, the final report, done(), the statement table and the thresholds,
// and the results file, which is written however the run ended.
func (p *program) runTest(spec *runSpec, t engine.Test, testOpts []options.Option, env *luaapi.Env) int {
	server := p.openServerStats(spec, env)
	res := p.resultsOf(spec, t, testOpts, time.Now())
	outs, err := p.openOutputs(spec, server, res)
	if err != nil {
		return p.fail(err)
	}
	cfg := spec.cfg
	cfg.Reporters = outs.reporters
	cfg.Aside = p.aside()
	// The availability options of ours ask for the Availability and
	// Hosts blocks; without them the blocks go aside.
	cfg.OutagesAsked = spec.values.IsSet("outage-threshold") || spec.values.IsSet("mysql-target") ||
		spec.values.IsSet("pgsql-target-session-attrs")
	cfg.OnFail = func(err error) { p.fail(err) }
	if server != nil {
		cfg.Watchers = append(cfg.Watchers, server)
	}
	var ctl *control.Instance
	if addr := spec.values.String("metrics-addr"); addr != "" {
		srv, err := live.Listen(addr, liveInfo(spec, t, env))
		if err != nil {
			outs.abort()
			return p.fail(err)
		}
		defer srv.Close()
		cfg.Live = srv.Attach
		p.log.Noticef("Serving metrics at %s\n", srv.URL())
		ctl = p.openEndpoint(spec, srv, &cfg, res)
	}
	idle, err := p.openIdle(spec, env)
	if err != nil {
		outs.abort()
		return p.fail(err)
	}
	stopProgress := func() {}
	if p.progressShown(spec) {
		rp := &runProgress{}
		live := cfg.Live
		cfg.Live = func(v engine.LiveView) {
			if live != nil {
				live(v)
			}
			rp.attach(v)
		}
		stopProgress = p.startProgress(rp.lines, nil)
	}
	fin, runErr := engine.Run(p.ctx, t, cfg, p.log)
	// Erased before the final report.
	stopProgress()
	idle.close()
	runErr = onlyRefusal(runErr)
	st := &exitStatus{}
	p.record(st, runErr)
	if fin != nil {
		p.record(st, fin.Report())
	}
	var signalled *engine.Interrupt
	switch {
	case errors.Is(runErr, engine.ErrForcedShutdown):
		st.add("forced_shutdown")
	case errors.As(runErr, &signalled):
		// Interrupted before it started: said below.
	case st.code != 0:
		st.add("failed")
	}
	// A signal's status comes before a missed threshold's: the run was
	// cut short, what it measured is a part.
	in := engine.Interrupted(p.ctx)
	switch {
	case in != nil:
		st.add("interrupted")
		if st.code == 0 {
			st.code = in.ExitCode()
		}
	case p.ctx.Err() != nil:
		// Stopped by whoever runs the program in-process, not a signal:
		// its status is the run's.
		st.add("interrupted")
	}
	ended(env, res, time.Now())
	if c := connectionsReport(spec, env); c != nil && fin != nil {
		res.Connections = c
		report.WriteConnections(p.log.Writer(logging.Notice), c)
	}
	if server != nil && outs.whole != nil {
		res.Server = server.Stats(outs.whole.Counters[metrics.CntEvent])
		report.WriteServer(p.log.Writer(logging.Notice), res.Server)
	}
	p.record(st, p.statementStats(spec, t, res))
	if len(spec.thresholds) > 0 && outs.whole != nil {
		res.Thresholds = report.CheckThresholds(spec.thresholds, outs.whole)
		report.WriteThresholds(p.log.Writer(logging.Notice), res.Thresholds)
		for _, r := range res.Thresholds {
			if !r.Pass {
				st.add("thresholds_failed")
				if st.code == 0 {
					st.code = report.ThresholdsFailed
				}
				break
			}
		}
	}
	if in != nil {
		// Last, after everything the run prints: the run was cut short.
		msg := fmt.Sprintf("The run was interrupted by %s: the report covers what it measured until then", in.Name())
		if fin == nil {
			msg = fmt.Sprintf("The run was interrupted by %s before it started", in.Name())
		}
		p.fail(interruptError(in, msg))
	}
	if len(st.reasons) == 0 {
		st.add("completed")
	}
	p.record(st, outs.close(res, st.code, st.reasons, p.log.Fatals()))
	p.record(st, p.serveResults(spec, ctl))
	return st.code
}

// liveInfo names the run in --metrics-addr's metrics.
func liveInfo(spec *runSpec, t engine.Test, env *luaapi.Env) live.Info {
	info := live.Info{Test: t.Name(), Version: currentBuild().Version, Threads: spec.cfg.Threads}
	if env != nil {
		info.Driver = env.DriverName
	}
	if in := spec.instance; in.N > 1 {
		info.Instance, info.Instances = in.K, in.N
	}
	return info
}

// exitStatus is how a run ended: the first error's exit status, and the
// results file's reasons, the first the main one.
type exitStatus struct {
	code    int
	reasons []string
}

func (st *exitStatus) add(reason string) { st.reasons = append(st.reasons, reason) }

// interruptError is the line saying what a signal cut short; its exit
// status is the signal's (128 + its number).
func interruptError(in *engine.Interrupt, msg string) error {
	return interruptLine{plainError{msg}, in}
}

type interruptLine struct {
	plainError
	in *engine.Interrupt
}

func (e interruptLine) Unwrap() error { return e.in }

// record prints err (if any) and keeps its status unless one was kept.
func (p *program) record(st *exitStatus, err error) {
	if c := p.fail(err); st.code == 0 {
		st.code = c
	}
}

// statementStats prints --statement-stats' table and puts it in res.
func (p *program) statementStats(spec *runSpec, t engine.Test, res *report.Results) error {
	s, ok := t.(*luaapi.Script)
	if !ok || !spec.values.Bool("statement-stats") {
		return nil
	}
	list, running := s.Statements()
	report.WriteStatements(p.log.Writer(logging.Notice), list, spec.cfg.Percentiles, running)
	var err error
	res.Statements, err = report.NewStatementResults(list, spec.cfg.Percentiles)
	return err
}

// fail prints err as FATAL lines, one per error it joins, and returns the
// exit status for it: the one place errors are printed. Our commands print
// them on standard error; what one of them fails at after a signal (not
// the reader of its output going away) failed because of it, and its line
// is runOurs' (or the command's own).
func (p *program) fail(err error) int {
	diag := p.diag()
	sig := engine.Interrupted(p.ctx)
	signalled := p.command != "" && sig != nil && sig.Signal != syscall.SIGPIPE
	for _, e := range engine.Leaves(err) {
		var plain plainError
		var usage usageError
		var line interruptLine
		var ce *luaapi.CommandError
		var in *engine.Interrupt
		var bad *options.ValueError
		switch {
		case engine.IsQuiet(e):
		case errors.As(e, &line):
			// Nobody asked for it and the reference, which the signal
			// kills, prints nothing: standard error.
			fmt.Fprintf(p.stderr, "%s\n", line.msg)
		case errors.As(e, &in), signalled:
			// Its line is the caller's (interruptError), which knows
			// what was interrupted.
		case errors.As(e, &plain):
			fmt.Fprintf(diag, "%s\n", plain.msg)
		case errors.As(e, &ce):
			fmt.Fprintln(p.stderr, ce.Msg)
		case errors.As(e, &usage):
			fmt.Fprintln(p.stderr, usage.msg)
		case p.command == "" && errors.As(e, &bad):
			// The reference's option parser says it on standard error
			// and exits.
			fmt.Fprintln(p.stderr, bad)
		case p.command != "":
			fmt.Fprintf(p.stderr, "FATAL: %v\n", e)
		default:
			p.log.Fatalf("%v", e)
		}
	}
	return engine.ExitCode(err)
}

// flushWriter is the run's output: buffered, flushed at each newline-
// terminated write so intermediate reports appear promptly. Workers'
// print(), drivers' FATAL lines and reports share it, hence the lock (it
// is taken per line of output, never per query).
type flushWriter struct {
	mu   sync.Mutex
	w    *bufio.Writer
	dest io.Writer // what w writes to
	// closed is called when the reader of the output went away (EPIPE):
	// a run stops as on SIGINT, and writes its results file.
	closed func()
}

func (f *flushWriter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, err := f.w.Write(p)
	if err == nil && len(p) > 0 && p[len(p)-1] == '\n' {
		err = f.w.Flush()
	}
	if errors.Is(err, syscall.EPIPE) && f.closed != nil {
		f.closed()
	}
	return n, err
}

// redirect sends what follows to w (standard error, when standard
// output carries an output file).
func (f *flushWriter) redirect(w io.Writer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	_ = f.w.Flush()
	f.w.Reset(w)
	f.dest = w
}

// destination is what the output is written to now.
func (f *flushWriter) destination() io.Writer {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.dest
}

// aside is where a run's text that a plain sysbench command line does not
// print, and no option asked for, goes: standard error, at the verbosity
// of the report (docs/differences.md: the rule for streams).
func (p *program) aside() io.Writer {
	if !p.log.Enabled(logging.Notice) {
		return io.Discard
	}
	return p.stderr
}

// textToStderr moves the text output to standard error.
func (p *program) textToStderr() {
	if p.out != nil {
		p.out.redirect(p.stderr)
	}
}

func (f *flushWriter) flush() {
	f.mu.Lock()
	defer f.mu.Unlock()
	_ = f.w.Flush()
}

func printDrivers(w io.Writer, drv []drivers.Factory) {
	fmt.Fprintf(w, "Available database drivers:\n")
	for _, d := range drv {
		fmt.Fprintf(w, "  %s - %s\n", d.Name, d.Description)
	}
	fmt.Fprintln(w)
}

// printHelp prints the general help: sysbench 1.0.20's sections byte for
// byte, then, before the list of compiled-in tests (where the reference
// varies with its build: the driver part), the embedded driver's options,
// what we add to each group, and the bundled workloads.
func printHelp(w io.Writer, prog string, drv []drivers.Factory, tests []engine.Builtin) {
	fmt.Fprintf(w, "Usage:\n  %s [options]... [testname] [command]\n\n", prog)
	fmt.Fprintf(w, "Commands implemented by most tests: prepare run cleanup help\n\n")
	fmt.Fprintf(w, "General options:\n%s\n", options.FormatReferenceHelp(generalOptions))
	fmt.Fprintf(w, "Pseudo-Random Numbers Generator options:\n%s\n", options.FormatReferenceHelp(randOptions))
	fmt.Fprintf(w, "Log options:\n%s\n", options.FormatReferenceHelp(logOptions))
	fmt.Fprintf(w, "%s\n", options.FormatReferenceHelp(statOptions))
	fmt.Fprintf(w, "General database options:\n\n%s\n\n", options.FormatReferenceHelp(dbOptions))
	fmt.Fprintf(w, "Compiled-in database drivers:\n")
	for _, d := range drv {
		fmt.Fprintf(w, "  %s - %s\n", d.Name, d.Description)
	}
	fmt.Fprintln(w)
	for _, d := range drv {
		if d.Extension {
			fmt.Fprintf(w, "%s options:\n%s\n", d.Name, options.FormatHelp(d.Options))
		} else {
			fmt.Fprintf(w, "%s options:\n%s\n", d.Name, options.FormatReferenceHelp(d.Options))
		}
	}
	var general []options.Option
	for _, g := range generalGroups() {
		general = append(general, g.opts...)
	}
	// Not "<group> options:" headings: `sed -n '/mysql options:/,/^$/p'`
	// must find the reference's block only.
	if ext := options.FormatExtensionHelp(general); ext != "" {
		// The options that name one of our commands name it as invoked.
		ext = strings.ReplaceAll(ext, "'sysbench-go ", "'"+prog+" ")
		fmt.Fprintf(w, "General options beyond sysbench 1.0.20:\n%s\n", ext)
	}
	for _, d := range drv {
		if ext := options.FormatExtensionHelp(d.Options); ext != "" && !d.Extension {
			fmt.Fprintf(w, "%s driver options beyond sysbench 1.0.20:\n%s\n", d.Name, ext)
		}
	}
	printCommands(w, prog)
	fmt.Fprintf(w, "Bundled workloads (see '%s <name> help' for their options):\n", prog)
	for _, wl := range lua.Workloads {
		fmt.Fprintf(w, "  %s - %s\n", wl.Name, wl.Description)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Compiled-in tests:\n")
	for _, t := range tests {
		fmt.Fprintf(w, "  %s - %s\n", t.Name, t.Description)
	}
	fmt.Fprintf(w, "\nSee '%s <testname> help' for a list of options for each test.\n\n", prog)
}
