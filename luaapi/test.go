package luaapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"sync"

	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/engine"
	"github.com/sysbench-go/sysbench-go/luajit"
	"github.com/sysbench-go/sysbench-go/metrics"
	"github.com/sysbench-go/sysbench-go/options"
	"github.com/sysbench-go/sysbench-go/report"
)

var (
	_ engine.Test      = (*Script)(nil)
	_ engine.Commander = (*Script)(nil)
	_ engine.Rerunner  = (*Script)(nil)
	_ engine.Worker    = (*worker)(nil)
)

// PrintMode: Lua scripts print nothing of their own before the run.
func (s *Script) PrintMode(io.Writer) {}

// Init exports the options and calls the script's init(); a script
// without event() and thread_run() cannot run. The run's queries go
// under ctx: the engine cancels it on SIGINT and when events outlive
// --time.
func (s *Script) Init(ctx context.Context) error {
	s.env.Ctx = ctx
	if err := s.exportOptions(s.master); err != nil {
		return err
	}
	if _, _, err := callGlobal(s.master, "init"); err != nil {
		return err
	}
	if s.master.GetGlobal("event").Type() != lua.LTFunction &&
		s.master.GetGlobal("thread_run").Type() != lua.LTFunction {
		return &ScriptError{Msg: fmt.Sprintf("cannot find the event() function in %s", s.name)}
	}
	return nil
}

// Rerun gives a run after the first (a capacity search's next step,
// init() not called again) its own context for the queries.
func (s *Script) Rerun(ctx context.Context) { s.env.Ctx = ctx }

// Done calls the script's done() and closes what the run opened.
func (s *Script) Done(ctx context.Context) error {
	_, _, err := callGlobal(s.master, "done")
	if s.env.Trace != nil {
		s.env.Trace.WriteSummary()
	}
	// The main thread's state closes last in the reference.
	closeJSON(s.env.Out, &s.jsonOpen[reportFinal])
	s.masterRT.close()
	s.env.closeDrivers()
	return err
}

// CloseReports ends the JSON arrays report_json opened in intermediate
// and checkpoint reports, before the final report, as the reference's
// reporting threads do when they exit.
func (s *Script) CloseReports() {
	s.reportMu.Lock()
	defer s.reportMu.Unlock()
	closeJSON(s.env.Out, &s.jsonOpen[reportIntermediate])
	closeJSON(s.env.Out, &s.jsonOpen[reportCheckpoint])
}

// callHook calls sysbench.hooks.<name>(stat) in the master state if the
// script defines it, and reports whether it did.
func (s *Script) callHook(name string, kind reportKind, st *report.Stat) bool {
	f, ok := getPath(s.master, "sysbench", "hooks", name).(*lua.LFunction)
	if !ok {
		return false
	}
	if st.Warmup {
		// As sysbench 1.1: a script's own hook is not called for the
		// warm-up's intervals (docs/differences.md).
		return true
	}
	s.reportMu.Lock()
	defer s.reportMu.Unlock()
	s.hookKind = kind
	defer func() { s.hookKind = reportNone }()
	if err := luajit.CallProtected(s.master, f, 0, statTable(s.master, st)); err != nil {
		// The reference's words; the run goes on.
		s.env.Log.Fatalf("`%s' function failed: %s", name, luaError(err))
	}
	return true
}

// ReportIntermediate calls sysbench.hooks.report_intermediate if the
// script defines it, else prints the SQL line when a driver was used.
func (s *Script) ReportIntermediate(w io.Writer, st *report.Stat) bool {
	if s.callHook("report_intermediate", reportIntermediate, st) {
		return true
	}
	if s.env.UsedSQL() {
		report.WriteIntermediateSQL(w, st, s.rate)
		return true
	}
	return false
}

// ReportCumulative calls sysbench.hooks.report_cumulative if defined,
// else prints the SQL statistics (when a driver was used) and the
// general statistics.
func (s *Script) ReportCumulative(w io.Writer, st *report.Stat) bool {
	kind := reportFinal
	if st.Checkpoint {
		kind = reportCheckpoint
	}
	if s.callHook("report_cumulative", kind, st) {
		return true
	}
	if s.env.UsedSQL() {
		report.WriteSQLStatistics(w, st)
	}
	report.WriteGeneralStatistics(w, st)
	return true
}

// SetRate tells the script that --rate is on (for the queue line).
func (s *Script) SetRate(on bool) { s.rate = on }

// SetMaxTries sets --max-tries: the most tries of an event (0: no limit).
func (s *Script) SetMaxTries(n int) { s.maxTries = n }

// Command runs prepare, cleanup, help or a command the script defines.
// Parallel commands run once per thread, each in its own state.
func (s *Script) Command(ctx context.Context, name string, out io.Writer) error {
	s.env.Ctx = ctx
	if err := s.exportOptions(s.master); err != nil {
		return err
	}
	defer s.env.closeDrivers()
	if s.commandDefined(name) {
		if s.commandParallel(name) && s.env.Threads > 1 {
			return s.parallelCommand(ctx, name, out)
		}
		return s.callCommand(s.master, s.masterRT, name)
	}
	switch name {
	case "prepare", "cleanup", "help":
		if s.master.GetGlobal(name).Type() == lua.LTFunction {
			_, _, err := callGlobal(s.master, name)
			s.masterRT.close()
			return err
		}
		if name == "help" && s.declared {
			fmt.Fprintf(out, "%s options:\n", s.name)
			io.WriteString(out, options.FormatHelp(s.options)+"\n")
			return nil
		}
		return &CommandError{Msg: fmt.Sprintf("'%s' test does not implement the '%s' command.", s.name, name)}
	}
	return engine.ErrUnknownCommand
}

// CommandError is a command the test lacks; main prints it as is.
type CommandError struct{ Msg string }

func (e *CommandError) Error() string { return e.Msg }

func (s *Script) commandDefined(name string) bool {
	_, v, err := callField(s.master, "command_defined", lua.LString(name))
	return err == nil && lua.LVAsBool(v)
}

func (s *Script) commandParallel(name string) bool {
	_, v, err := callField(s.master, "command_parallel", lua.LString(name))
	return err == nil && lua.LVAsBool(v)
}

func callField(L *lua.LState, fn string, args ...lua.LValue) (bool, lua.LValue, error) {
	f, ok := getPath(L, "sysbench", "cmdline", fn).(*lua.LFunction)
	if !ok {
		return false, lua.LNil, nil
	}
	if err := luajit.CallProtected(L, f, 1, args...); err != nil {
		return true, lua.LNil, err
	}
	v := L.Get(-1)
	L.Pop(1)
	return true, v, nil
}

func (s *Script) callCommand(L *lua.LState, rt *runtime, name string) error {
	defer rt.close()
	_, v, err := callField(L, "call_command", lua.LString(name))
	if err != nil {
		return &ScriptError{Msg: "`sysbench.cmdline.call_command' function failed: " + luaError(err)}
	}
	if !lua.LVAsBool(v) {
		return errCommandFailed
	}
	return nil
}

// errCommandFailed: a command returned false. The reference prints
// nothing then; the exit code says it failed.
var errCommandFailed = engine.Quiet(errors.New("command failed"))

func (s *Script) parallelCommand(ctx context.Context, name string, out io.Writer) error {
	fmt.Fprintf(out, "Initializing worker threads...\n\n")
	errs := make([]error, s.env.Threads)
	var wg sync.WaitGroup
	for i := 0; i < s.env.Threads; i++ {
		wg.Add(1)
		go func(tid int) {
			defer wg.Done()
			L, rt, err := s.newState(tid, nil)
			if err != nil {
				errs[tid] = err
				return
			}
			defer L.Close()
			if err := s.exportOptions(L); err != nil {
				errs[tid] = err
				return
			}
			errs[tid] = s.callCommand(L, rt, name)
		}(i)
	}
	wg.Wait()
	// Each thread's failure is its own FATAL line, as in the reference
	// (which then exits with 0: we exit with 1).
	return errors.Join(errs...)
}

// worker is one thread's Lua state.
type worker struct {
	s     *Script
	L     *lua.LState
	rt    *runtime
	tid   lua.LValue // an LNumber, boxed once: pushing an LNumber allocates
	event lua.LValue
	hook  lua.LValue // sysbench.hooks.before_restart_event, resolved per call
}

// NewWorker creates the thread's Lua state and runs the script in it.
func (s *Script) NewWorker(ctx context.Context, tid int, st *metrics.Handle) (engine.Worker, error) {
	L, rt, err := s.newState(tid, st)
	if err != nil {
		s.env.StatementRoom.abandon(tid)
		return nil, err
	}
	if s.forcedCtx {
		L.SetContext(ctx)
	}
	w := &worker{s: s, L: L, rt: rt, tid: lua.LNumber(tid + s.env.TidOffset)}
	if err := s.exportOptions(L); err != nil {
		w.Close()
		s.env.StatementRoom.abandon(tid)
		return nil, err
	}
	w.event = L.GetGlobal("event")
	if m := s.env.Connections; m.On() {
		rt.renew = newRenewal(m, rt)
	}
	if L.GetGlobal("thread_run").Type() == lua.LTFunction {
		return loopWorker{w}, nil
	}
	return w, nil
}

// SetInterruptible makes long-running Lua code stop when a run is forced
// to shut down. It costs a context check per VM instruction, so it is only
// on with --forced-shutdown.
func (s *Script) SetInterruptible(on bool) { s.forcedCtx = on }

func (w *worker) Init(ctx context.Context) error {
	if r := w.s.env.StatementRoom; r != nil {
		return r.threadInit(ctx, w.rt, w.init)
	}
	return w.init()
}

func (w *worker) init() error {
	_, _, err := callGlobal(w.L, "thread_init", w.tid)
	w.rt.settleFatal(err == nil)
	if err == nil {
		luajit.InternNames(w.L)
	}
	return err
}

// Done calls thread_done, its queries under ctx: the engine's for the
// worker's end, which --time's bound on events does not cut (a bulk
// insert's last rows).
func (w *worker) Done(ctx context.Context) error {
	w.rt.ctx = ctx
	defer func() { w.rt.ctx = nil }()
	_, _, err := callGlobal(w.L, "thread_done", w.tid)
	w.rt.settleFatal(err == nil)
	return err
}

func (w *worker) Close() {
	if w.rt.trace != nil {
		w.rt.trace.close()
	}
	w.rt.close() // closes a JSON array report_json opened here
	w.L.Close()
	if w.rt.statements != nil {
		w.s.statementsClosed(w.rt.statements)
	}
}

// isRestart reports whether a Lua error is the RESTART_EVENT descriptor.
func isRestart(err error) (*lua.LTable, bool) {
	var ae *lua.ApiError
	if !errors.As(err, &ae) {
		return nil, false
	}
	t, ok := ae.Object.(*lua.LTable)
	if !ok {
		return nil, false
	}
	if n, ok := t.RawGetString("errcode").(lua.LNumber); ok && int(n) == restartEvent {
		return t, true
	}
	return nil, false
}

// Event runs event(tid), restarting it after ignorable SQL errors.
func (w *worker) Event(ctx context.Context) (bool, error) {
	if w.rt.trace == nil {
		return w.runEvent(ctx)
	}
	w.rt.trace.begin()
	stop, err := w.runEvent(ctx)
	w.rt.trace.end(err)
	return stop, err
}

func (w *worker) runEvent(ctx context.Context) (bool, error) {
	L := w.L
	for tries := 1; ; tries++ {
		var err error
		if p := w.rt.plan; p != nil && p.event == w.event {
			// The bundled script's event, run by Go (see eventPlan).
			if e := p.run(L); e != nil {
				err = e
			} else {
				w.rt.settleFatal(true)
				return false, w.rt.eventEnded()
			}
		} else if err = w.rt.lj.Call(w.event, 1, w.tid); err == nil {
			w.rt.settleFatal(true)
			ret := L.Get(-1)
			L.Pop(1)
			return ret != lua.LNil && ret != lua.LFalse, w.rt.eventEnded()
		}
		desc, restart := isRestart(err)
		w.rt.settleFatal(restart)
		if restart && w.rt.trace != nil {
			w.rt.trace.note("an ignorable error: the event restarts")
		}
		if !restart {
			return false, &ScriptError{Msg: fmt.Sprintf("`thread_run' function failed: %s", luaError(err))}
		}
		// The hook runs after a failed last try too: it readies the
		// connection for the next event (a reconnect, statements
		// prepared again).
		failed := w.s.maxTries > 0 && tries >= w.s.maxTries
		if !failed && ctx.Err() != nil {
			// The run stopped or its time is up: no restart, and the
			// event ends uncounted (the errors it met are counted).
			return false, ctx.Err()
		}
		if st := w.rt.stats; st != nil {
			if failed {
				st.Fail(descCode(desc))
			} else {
				st.Retry(descCode(desc), tries == 1)
			}
		}
		if err := w.beforeRestart(ctx, desc); err != nil {
			return false, err
		}
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		if failed {
			return false, engine.ErrEventFailed
		}
	}
}

// descCode is the code of the error a RESTART_EVENT descriptor tells of:
// the driver's error number, else the SQLSTATE (drivers.Error.CodeName).
func descCode(desc *lua.LTable) string {
	if desc == nil {
		return ""
	}
	if n, ok := desc.RawGetString("sql_errno").(lua.LNumber); ok && n != 0 {
		return strconv.Itoa(int(n))
	}
	if s, ok := desc.RawGetString("sql_state").(lua.LString); ok {
		return string(s)
	}
	return ""
}

// beforeRestart calls sysbench.hooks.before_restart_event. An ignorable
// error inside the hook itself (the connection lost again while the hook
// re-prepares statements) calls the hook again with the new descriptor,
// until it succeeds or the run ends.
func (w *worker) beforeRestart(ctx context.Context, desc *lua.LTable) error {
	h, ok := getPath(w.L, "sysbench", "hooks", "before_restart_event").(*lua.LFunction)
	if !ok {
		return nil
	}
	for {
		err := luajit.CallProtected(w.L, h, 0, desc)
		if err == nil {
			return nil
		}
		next, restart := isRestart(err)
		if !restart {
			return &ScriptError{Msg: fmt.Sprintf("`thread_run' function failed: %s", luaError(err))}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		desc = next
	}
}

// RunLoop runs a script's own thread_run(tid); it drives the engine's loop
// through ffi.C.sb_more_events / sb_event_start / sb_event_stop.
func (w loopWorker) RunLoop(ctx context.Context, l *engine.Loop) error {
	w.rt.loop = l
	defer func() { w.rt.loop = nil }()
	_, _, err := callGlobal(w.L, "thread_run", w.tid)
	w.rt.settleFatal(err == nil)
	return err
}

// loopWorker is a worker whose script defines thread_run.
type loopWorker struct{ *worker }

var _ engine.LoopRunner = loopWorker{}

// Commands are the names of the commands the script defines in
// sysbench.cmdline.commands, sorted (for the shell's completion).
func (s *Script) Commands() []string {
	t, ok := getPath(s.master, "sysbench", "cmdline", "commands").(*lua.LTable)
	if !ok {
		return nil
	}
	var names []string
	t.ForEach(func(k, _ lua.LValue) {
		if name, ok := k.(lua.LString); ok {
			names = append(names, string(name))
		}
	})
	sort.Strings(names)
	return names
}
