package luaapi

import (
	"context"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/engine"
	"github.com/sysbench-go/sysbench-go/luajit"
	"github.com/sysbench-go/sysbench-go/metrics"
	"github.com/sysbench-go/sysbench-go/options"
	"github.com/sysbench-go/sysbench-go/sbrand"
)

// runtime is the Go side of one Lua state: its thread id, generator,
// statistics handle and the connections it opened.
type runtime struct {
	env    *Env
	script *Script
	L      *lua.LState
	tid    int
	rand   *sbrand.Rand
	stats  *metrics.Handle // nil outside a run
	// rows is what the state loads in a command, for its progress; nil
	// until first counted, and when Env.Rows is nil (rowsHandle).
	rows *metrics.RowsHandle
	// statements are the worker's --statement-stats, nil without.
	statements *metrics.Statements
	trace      *threadTrace // the worker's --trace, nil without
	loop       *engine.Loop // set while a custom thread_run runs
	conns      []*sqlConn
	// paramRandStr is every parameter's set_rand_str.
	paramRandStr *lua.LFunction
	legacy       *sqlConn // the 0.5-era API's implicit connection
	// jsonOpen is set once report_json printed its opening bracket in
	// this state (see jsonArray).
	jsonOpen bool
	lj       *luajit.State // the language's side of the state
	plan     *eventPlan    // run in place of its event function (see eventPlan)
	renew    *renewal      // --reconnect, --conn-lifetime; nil without
	// ctx, when set, is what the call running now queries under, in
	// place of the run's (env.Ctx): thread_done's, which --time's bound
	// on events does not cut.
	ctx context.Context
	// fatal is the code of a fatal query error not counted yet, while
	// fatalPending (see countFailure).
	fatal        string
	fatalPending bool
}

func (rt *runtime) close() {
	rt.lj.Close()
	closeJSON(rt.env.Out, &rt.jsonOpen)
	for _, c := range rt.conns {
		c.close()
	}
	rt.conns = nil
}

// count adds to a statistics counter when the state belongs to a worker,
// and counts a query for a command's progress when one is read.
func (rt *runtime) count(c metrics.Counter) {
	if rt.stats != nil {
		rt.stats.Inc(c)
		return
	}
	if c <= metrics.CntWrite {
		if h := rt.rowsHandle(); h != nil {
			h.Query()
		}
	}
}

// queryCtx is the context the state's queries run under.
func (rt *runtime) queryCtx() context.Context {
	switch {
	case rt.ctx != nil:
		return rt.ctx
	case rt.env.Ctx != nil:
		return rt.env.Ctx
	}
	return context.Background()
}

// countFailure counts a failed query as the reference's drivers do: a
// lost connection that was re-established as a reconnect, anything else
// as an error, kept by its code. A fatal error waits (settleFatal): the
// reference counts it among the errors the run went on after, which is
// true when the script caught it (pcall), and false when it ended the
// thread's call, and with it the run, whose report we print all the same.
func (rt *runtime) countFailure(de *drivers.Error) {
	switch {
	case rt.stats == nil:
	case de.Kind == drivers.Reconnect:
		rt.stats.Inc(metrics.CntReconnect)
	case de.Kind == drivers.Ignorable:
		rt.stats.Error(de.CodeName())
	default:
		rt.settleFatal(true) // the script went on after the one before
		rt.fatal, rt.fatalPending = de.CodeName(), true
	}
}

// settleFatal counts the fatal error that waits, if any, when the script
// went on after it (went is true), and drops it when it ended the call.
func (rt *runtime) settleFatal(went bool) {
	if rt.fatalPending {
		if went {
			rt.stats.Error(rt.fatal)
		}
		rt.fatalPending = false
	}
}

// getRuntime is the runtime of L or of one of its coroutines.
func getRuntime(L *lua.LState) *runtime {
	return luajit.Of(L).Host.(*runtime)
}

// newState creates a Lua state with the sysbench API and runs the script's
// main chunk in it. tid is -1 for the master state.
func (s *Script) newState(tid int, st *metrics.Handle) (*lua.LState, *runtime, error) {
	lj := luajit.NewState(s.env.Out, &s.env.files)
	if s.env.Ctx != nil {
		lj.Interrupted = s.env.Ctx.Done()
	}
	L := lj.L
	rtTid := tid
	if rtTid < 0 {
		rtTid = 0
	}
	rt := &runtime{env: s.env, script: s, L: L, tid: rtTid, stats: st, rand: s.env.threadRand(tid), lj: lj}
	lj.Host = rt
	if st != nil && s.env.StatementStats {
		rt.statements = s.newStatements()
	}
	if st != nil && s.env.Trace != nil {
		rt.trace = s.env.Trace.newThreadTrace(tid+s.env.TidOffset, s.env.DriverConfig)
	}

	sb := L.CreateTable(0, 16)
	L.SetGlobal("sysbench", sb)
	sb.RawSetString("tid", lua.LNumber(tid+s.env.TidOffset))
	if tid < 0 {
		sb.RawSetString("tid", lua.LNumber(0))
	}
	sb.RawSetString("version", lua.LString(apiVersion))
	sb.RawSetString("version_string", lua.LString(s.env.VersionString))
	errT := L.CreateTable(0, 2)
	errT.RawSetString("NONE", lua.LNumber(0))
	errT.RawSetString("RESTART_EVENT", lua.LNumber(restartEvent))
	sb.RawSetString("error", errT)
	sb.RawSetString("hooks", L.CreateTable(0, 4))
	sb.RawSetString("opt", L.CreateTable(0, 0))
	registerCmdline(L, sb, s)
	registerReports(L, sb)
	registerHistogram(L, sb)
	RegisterRand(L, sb, func(*lua.LState) *sbrand.Rand { return rt.rand })
	registerSQL(L, sb)
	registerPlan(L, sb)
	registerProgress(L, sb)
	lj.FFIC = ffiC(L)
	lj.OpenLuaJIT()
	s.setRequirePaths(L)
	if err := luajit.CallProtected(L, L.NewFunctionFromProto(preludeProto()), 0); err != nil {
		L.Close()
		return nil, nil, &ScriptError{Msg: luaError(err)}
	}
	if s.env.sandbox != nil {
		s.env.sandbox.enter(L, s)
	}
	if err := luajit.CallProtected(L, L.NewFunctionFromProto(s.proto), 0); err != nil {
		rt.close()
		L.Close()
		return nil, nil, &ScriptError{Msg: luaError(err)}
	}
	return L, rt, nil
}

// Tables are made with CreateTable and the number of entries they will
// hold: gopher-lua's NewTable reserves room for 32 array items and 32 keys
// (some 2 KiB), which over hundreds of Lua states was a fifth of a run's
// memory.

// funcTable returns a table of the Go functions fns.
func funcTable(L *lua.LState, fns map[string]lua.LGFunction) *lua.LTable {
	return L.SetFuncs(L.CreateTable(0, len(fns)), fns)
}

// exportOptions fills sysbench.opt with typed values, and for scripts that
// declare no options also sets every option as a global (0.5-era API).
func (s *Script) exportOptions(L *lua.LState) error {
	env := s.env
	names := env.Values.Names()
	optT := L.CreateTable(0, len(names))
	kinds := map[string]options.Kind{}
	for _, o := range env.Declared {
		kinds[options.Canonical(o.Name)] = o.Kind
	}
	for _, o := range s.options {
		kinds[options.Canonical(o.Name)] = o.Kind
	}
	for _, name := range names {
		raw, _ := env.Values.Raw(name)
		kind, known := kinds[name]
		if !known {
			kind = options.String
		}
		var v lua.LValue
		switch kind {
		case options.Bool:
			v = lua.LBool(env.Values.Bool(name))
		case options.Int:
			n, err := env.Values.Int(name)
			if err != nil {
				return err
			}
			v = lua.LNumber(n)
		case options.Float:
			// A number option reads as the reference's strtod: "abc" is 0.
			v = lua.LNumber(env.Values.Double(name))
		case options.Size:
			v = lua.LNumber(env.Values.Size(name))
		case options.List:
			items := options.SplitList(raw)
			t := L.CreateTable(len(items), 0)
			for _, item := range items {
				t.Append(lua.LString(item))
			}
			v = t
		case options.File:
			continue
		default:
			v = lua.LString(raw)
		}
		optT.RawSetString(name, v)
		if !s.declared {
			if L.GetGlobal(name).Type() != lua.LTFunction {
				L.SetGlobal(name, v)
			}
		}
	}
	// A declared option without a default that was not given still has a
	// value of its kind, as in the reference (a flag is on).
	for _, o := range s.options {
		if !o.NoDefault || env.Values.Has(o.Name) {
			continue
		}
		var v lua.LValue
		switch o.Kind {
		case options.Bool:
			v = lua.LTrue
		case options.Int, options.Float, options.Size:
			v = lua.LNumber(0)
		case options.List:
			v = L.CreateTable(0, 0)
		case options.File:
			continue
		default:
			v = lua.LString("")
		}
		optT.RawSetString(options.Canonical(o.Name), v)
	}
	L.SetField(L.GetGlobal("sysbench"), "opt", optT)
	return nil
}

// preludeProto compiles compatPrelude once per process.
var preludeProto = sync.OnceValue(func() *lua.FunctionProto {
	p, err := compileChunk(strings.NewReader(compatPrelude), "=<sysbench>")
	if err != nil {
		panic("sysbench-go: built-in Lua prelude does not compile: " + err.Error())
	}
	return p
})

// apiVersion is the sysbench API level we implement.
const apiVersion = "1.0.20"

// restartEvent is sysbench.error.RESTART_EVENT.
const restartEvent = 1

// compatPrelude is Lua run in every state before the script: the parts of
// the API that are simplest in Lua, and the 0.5-era globals.
const compatPrelude = `
local sb = sysbench
function sb.cmdline.command_defined(name)
  local c = sb.cmdline.commands
  return type(c) == "table" and c[name] ~= nil and c[name][1] ~= nil
end
function sb.cmdline.command_parallel(name)
  return sb.cmdline.command_defined(name) and
    sb.cmdline.commands[name][2] == sb.cmdline.PARALLEL_COMMAND
end
function sb.cmdline.call_command(name)
  if not sb.cmdline.command_defined(name) then return false end
  local rc = sb.cmdline.commands[name][1]()
  if rc == nil then return true end
  return rc and true or false
end
thread_id = sb.tid
test = sb.cmdline.script_path
for k, v in pairs(sb.db) do
  if type(v) == "function" then _G["db_" .. k] = v end
end
DB_ERROR_NONE = sb.db.DB_ERROR_NONE
DB_ERROR_RESTART_TRANSACTION = sb.db.DB_ERROR_RESTART_TRANSACTION
DB_ERROR_FAILED = sb.db.DB_ERROR_FAILED
mysql_table_engine = mysql_table_engine or "innodb"
myisam_max_rows = 1000000
`
