package luaapi

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/logging"
	"github.com/sysbench-go/sysbench-go/luajit"
	"github.com/sysbench-go/sysbench-go/luajit/number"
	"github.com/sysbench-go/sysbench-go/metrics"
	"github.com/sysbench-go/sysbench-go/options"
	"github.com/sysbench-go/sysbench-go/sbrand"
)

// Env is what every Lua state of a run shares (read-only after Load).
type Env struct {
	Values       *options.Values
	Drivers      []drivers.Factory
	DriverName   string // --db-driver
	DriverConfig drivers.Config
	// DriverConfigErr is what is wrong with the database options
	// (--db-ps-mode): the first driver the script creates fails with it.
	DriverConfigErr error
	// Log is the run's logger; Out is what scripts print (the logger's
	// output, whatever the verbosity).
	Log     *logging.Logger
	Out     io.Writer
	Rand    sbrand.Config
	Threads int
	// TidOffset is the first worker's sysbench.tid: --instance=K/N makes
	// it K*threads, so that instances' thread ids are disjoint.
	TidOffset     int
	Argv          []string
	Command       string
	VersionString string
	Bundled       fs.FS // embedded lua/ scripts
	// Background is the number of helper threads the reference seeds
	// before the workers (report, --rate generator, checkpoints).
	Background int
	// Declared lists every option known outside the script (general,
	// driver) so sysbench.opt gets typed values.
	Declared []options.Option
	// Context for prepare/cleanup/custom commands.
	Ctx context.Context
	// RecordServerVersion asks the first connection of the run for its
	// server's version (for the results file).
	RecordServerVersion bool
	// StatementStats times every statement the workers run
	// (--statement-stats).
	StatementStats bool
	// Trace, when set, prints the first events of each worker statement
	// by statement (--trace).
	Trace *Trace
	// Connections is how threads renew their connections (--reconnect,
	// --conn-lifetime); StatementRoom, when set, refuses a run whose
	// threads would prepare more statements than the server allows.
	Connections   ConnectionModel
	StatementRoom *StatementRoom
	held          heldConnections
	// Rows, when set, counts what commands load (the rows of bulk
	// inserts by table, queries) and what the script says they will
	// (sysbench.progress.expect): a command's progress reads it.
	Rows *metrics.Rows

	// Generators: one seeder per run hands out per-thread states in the
	// reference's order so --rand-seed reproduces a run.
	seedOnce sync.Once
	seeder   *sbrand.Seeder
	unique   *sbrand.UniqueSeq
	rands    []*sbrand.Rand // per worker thread, made in thread order

	mu            sync.Mutex
	opened        map[string]drivers.Driver
	usedSQL       bool
	used          []string // the drivers opened in the run, in order
	serverVersion string
	versionAsked  bool
	protos        sync.Map // module name -> *lua.FunctionProto
	files         sync.Map // path of a Lua file loaded at run time -> *lua.FunctionProto
	sandbox       *sandbox // set by ReadDeclarations: main chunks run in it
}

// ScriptError is a Lua load or run failure, already worded as the
// reference's FATAL message (without the "FATAL: " prefix).
type ScriptError struct{ Msg string }

func (e *ScriptError) Error() string { return e.Msg }

// ErrNotFound is returned when no script or module of that name exists.
var ErrNotFound = errors.New("not found")

// Script is a loaded Lua test.
type Script struct {
	env      *Env
	name     string // basename, as the reference's sname
	path     string // file path or bundled module name
	dir      string // directory of a file script, "" for bundled
	bundled  bool
	noPath   bool // read from standard input
	proto    *lua.FunctionProto
	master   *lua.LState
	masterRT *runtime
	options  []options.Option // declared by sysbench.cmdline.options
	declared bool

	reportMu sync.Mutex // report hooks run in the master state
	hookKind reportKind // the report a hook is making (under reportMu)
	jsonOpen [reportKinds]bool
	rate     bool
	maxTries int // --max-tries, 0 for no limit

	// The workers' --statement-stats; a worker's set is complete once
	// its worker closed.
	stmtMu    sync.Mutex
	stmtSets  map[*metrics.Statements]bool // -> closed
	forcedCtx bool
}

// compileChunk compiles Lua source as LuaJIT 2.1 reads it (see
// luajit.Compile), its errors a ScriptError.
func compileChunk(src io.Reader, source string) (*lua.FunctionProto, error) {
	p, err := luajit.Compile(src, source)
	if err != nil {
		return nil, &ScriptError{Msg: err.Error()}
	}
	return p, nil
}

// Load finds a script by path or module name, compiles it and runs its
// main chunk in the master state so its options and commands are known.
func Load(env *Env, testname string) (*Script, error) {
	s := &Script{env: env, path: testname, name: filepath.Base(testname)}
	if f, err := os.Open(testname); err == nil {
		defer f.Close()
		if st, err := f.Stat(); err == nil && !st.IsDir() {
			s.dir = filepath.Dir(testname)
			p, err := compileChunk(f, "@"+testname)
			if err != nil {
				return nil, err
			}
			s.proto = p
		}
	}
	if s.proto == nil {
		// A module name: next to the working directory, on LUA_PATH, or bundled.
		mod := strings.TrimSuffix(testname, ".lua")
		if path := searchPath(mod); path != "" {
			f, err := os.Open(path)
			if err == nil {
				defer f.Close()
				s.dir = filepath.Dir(path)
				s.path = path
				p, err := compileChunk(f, "@"+path)
				if err != nil {
					return nil, err
				}
				s.proto = p
			}
		}
		if s.proto == nil {
			p, err := env.bundledProto(mod)
			if err != nil {
				return nil, err
			}
			if p == nil {
				return nil, &ScriptError{Msg: fmt.Sprintf("Cannot find benchmark '%s': no such built-in test, file or module", testname)}
			}
			s.proto, s.bundled, s.path = p, true, mod
		}
	}
	return s.start()
}

// stdinChunk is the name errors give a script read from standard input,
// as LuaJIT names it there.
const stdinChunk = "stdin"

// LoadReader compiles a script read from r (standard input) and runs its
// main chunk. The script has no path (sysbench.cmdline.script_path is nil).
func LoadReader(env *Env, r io.Reader) (*Script, error) {
	s := &Script{env: env, name: stdinChunk, noPath: true}
	p, err := compileChunk(r, "="+stdinChunk)
	if err != nil {
		return nil, err
	}
	s.proto = p
	return s.start()
}

// start runs the main chunk in the master state and reads the options the
// script declares.
func (s *Script) start() (*Script, error) {
	env := s.env
	if env.opened == nil {
		env.opened = map[string]drivers.Driver{}
	}
	L, rt, err := s.newState(-1, nil)
	if err != nil {
		return nil, err
	}
	s.master, s.masterRT = L, rt
	if err := s.readOptions(); err != nil {
		return nil, err
	}
	return s, nil
}

// searchPath looks a module up in the working directory and LUA_PATH.
func searchPath(mod string) string {
	paths := []string{"./?.lua", "./?/init.lua"}
	if lp := os.Getenv("LUA_PATH"); lp != "" {
		paths = append(strings.Split(strings.ReplaceAll(lp, ";;", ";"), ";"), paths...)
	}
	paths = append(paths, "/usr/local/share/lua/5.1/?.lua", "/usr/share/lua/5.1/?.lua")
	name := strings.ReplaceAll(mod, ".", "/")
	for _, p := range paths {
		if p == "" {
			continue
		}
		cand := strings.ReplaceAll(p, "?", name)
		if st, err := os.Stat(cand); err == nil && !st.IsDir() {
			return cand
		}
	}
	return ""
}

// seed creates the run's seeder and the workers' generators, in the
// order the reference seeds its threads: the report thread, the --rate
// generator, the checkpoint thread, then workers 0..n-1.
func (env *Env) seed() {
	env.seedOnce.Do(func() {
		env.seeder = env.Rand.Seeder()
		for i := 0; i < env.Background; i++ {
			env.seeder.Thread()
		}
		env.rands = make([]*sbrand.Rand, env.Threads)
		for i := range env.rands {
			env.rands[i] = env.seeder.Thread()
		}
		// Drawn after the workers' states so those match the reference's.
		env.unique = env.seeder.Unique()
		for _, r := range env.rands {
			_ = r.SetConfig(env.Rand)
			r.SetUnique(env.unique)
		}
	})
}

// threadRand returns thread tid's generator (tid -1: the main thread's).
func (env *Env) threadRand(tid int) *sbrand.Rand {
	env.seed()
	if tid >= 0 && tid < len(env.rands) {
		return env.rands[tid]
	}
	r := env.seeder.Thread()
	_ = r.SetConfig(env.Rand)
	r.SetUnique(env.unique)
	return r
}

// bundledProto compiles (once) an embedded script or module.
func (env *Env) bundledProto(mod string) (*lua.FunctionProto, error) {
	if p, ok := env.protos.Load(mod); ok {
		return p.(*lua.FunctionProto), nil
	}
	if env.Bundled == nil {
		return nil, nil
	}
	// Files embedded in the binary never change: their compiled chunks
	// serve every run of the process (a comparison's or a capacity
	// search's steps, the tests' runs), as they serve each run's threads.
	embedded, isEmbed := env.Bundled.(embed.FS)
	key := embeddedChunk{embedded, mod}
	if isEmbed {
		if p, ok := embeddedChunks.Load(key); ok {
			env.protos.Store(mod, p)
			return p.(*lua.FunctionProto), nil
		}
	}
	f, err := env.Bundled.Open(mod + ".lua")
	if err != nil {
		return nil, nil
	}
	defer f.Close()
	p, err := compileChunk(f, "@"+mod+".lua")
	if err != nil {
		return nil, err
	}
	if isEmbed {
		embeddedChunks.Store(key, p)
	}
	env.protos.Store(mod, p)
	return p, nil
}

// embeddedChunks are the compiled chunks of embedded scripts and modules,
// by file system and module name, for the life of the process.
var embeddedChunks sync.Map // embeddedChunk -> *lua.FunctionProto

type embeddedChunk struct {
	fsys embed.FS
	mod  string
}

// Name is the test name as sysbench prints it.
func (s *Script) Name() string { return s.name }

// Options returns the options the script declares, sorted by name as the
// reference prints them; nil when it declares none.
func (s *Script) Options() []options.Option { return s.options }

// DeclaresOptions reports whether the script has sysbench.cmdline.options;
// scripts that do not get every unknown option exported as a global.
func (s *Script) DeclaresOptions() bool { return s.declared }

// readOptions converts sysbench.cmdline.options into option declarations,
// with the reference's checks and messages.
func (s *Script) readOptions() error {
	L := s.master
	cmdline := getPath(L, "sysbench", "cmdline")
	t, ok := cmdline.(*lua.LTable)
	if !ok {
		return nil
	}
	ov := t.RawGetString("options")
	if ov == lua.LNil {
		return nil
	}
	opts, ok := ov.(*lua.LTable)
	if !ok {
		return optionsError(optionsTypeLine, "wrong type for sysbench.cmdline.options: "+ov.Type().String())
	}
	s.declared = true
	// In name order, as the reference reads them (its first error wins).
	var names []string
	var bad error
	opts.ForEach(func(k, v lua.LValue) {
		name, ok1 := k.(lua.LString)
		_, ok2 := v.(*lua.LTable)
		if !ok1 || !ok2 {
			if bad == nil {
				bad = optionsError(optionsStructLine, "wrong table structure in sysbench.cmdline.options")
			}
			return
		}
		names = append(names, string(name))
	})
	if bad != nil {
		return bad
	}
	sort.Strings(names)
	for _, name := range names {
		o, err := declaredOption(name, opts.RawGetString(name).(*lua.LTable))
		if err != nil {
			return err
		}
		s.options = append(s.options, o)
	}
	return nil
}

// Where the reference's option reader raises its errors; scripts and
// tests match the messages, line numbers included.
const (
	optionsTypeLine   = 120
	optionsStructLine = 132
	optionsDescLine   = 137
	optionsListLine   = 141
	optionsKindLine   = 166
)

// optionsError is an error of the option reader, worded as the reference's.
func optionsError(line int, msg string) error {
	return &ScriptError{Msg: fmt.Sprintf("`sysbench.cmdline.read_cmdline_options' function failed: [string \"sysbench.cmdline.lua\"]:%d: %s", line, msg)}
}

// declaredOption reads one {description, default, type} declaration.
func declaredOption(name string, def *lua.LTable) (options.Option, error) {
	o := options.Option{Name: name}
	desc := def.RawGetInt(1)
	if desc == lua.LNil {
		return o, optionsError(optionsDescLine, "nil description for option "+name)
	}
	o.Desc = desc.String()
	kind := def.RawGetInt(3)
	switch d := def.RawGetInt(2).(type) {
	case *lua.LTable:
		if kind != lua.LNil {
			// The reference accepts no explicit type with a list default.
			return o, optionsError(optionsListLine, "wrong type for list option "+name)
		}
		var parts []string
		for i := 1; i <= d.Len(); i++ {
			parts = append(parts, d.RawGetInt(i).String())
		}
		o.Default, o.Kind = strings.Join(parts, ","), options.List
	case lua.LBool:
		o.Kind = options.Bool
		o.Default = "off"
		if d {
			o.Default = "on"
		}
	case lua.LNumber:
		o.Kind, o.Default = options.Float, number.Format(float64(d))
	case lua.LString:
		o.Kind, o.Default = options.String, string(d)
	case *lua.LNilType:
		o.Kind, o.NoDefault = options.String, true
	default:
		if kind == lua.LNil {
			return o, optionsError(optionsKindLine, "cannot determine type for option "+name)
		}
		o.Default = d.String()
	}
	if n, ok := kind.(lua.LNumber); ok {
		o.Kind = argKind(int(n))
	}
	return o, nil
}

// argKind maps sysbench.cmdline.ARG_* to option kinds.
func argKind(n int) options.Kind {
	switch n {
	case argBool:
		return options.Bool
	case argInt:
		return options.Int
	case argSize:
		return options.Size
	case argDouble:
		return options.Float
	case argList:
		return options.List
	case argFile:
		return options.File
	}
	return options.String
}

// Values of sysbench.cmdline.ARG_*, as the reference numbers them.
const (
	argNull = iota
	argBool
	argInt
	argSize
	argDouble
	argString
	argList
	argFile
	argMax
)

func getPath(L *lua.LState, names ...string) lua.LValue {
	v := L.GetGlobal(names[0])
	for _, n := range names[1:] {
		t, ok := v.(*lua.LTable)
		if !ok {
			return lua.LNil
		}
		v = t.RawGetString(n)
	}
	return v
}

// luaError turns an error from a protected call into "file:line: msg".
// An error object that is neither a string nor a number (a table, nil,
// a boolean) has no text: the reference says "(not a string)" for it.
func luaError(err error) string {
	var ae *lua.ApiError
	if !errors.As(err, &ae) {
		return err.Error()
	}
	switch v := ae.Object.(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return number.Format(float64(v))
	case *lua.LTable:
		if m, ok := v.RawGetString("sql_errmsg").(lua.LString); ok {
			return string(m)
		}
	case nil:
		// A Go-side failure (a cancelled context, a VM error): its text.
		return ae.Error()
	}
	return notAString
}

// notAString is the reference's text for an error object without one.
const notAString = "(not a string)"

// callGlobal calls a global function if it exists. It reports whether it
// existed and the first return value.
func callGlobal(L *lua.LState, name string, args ...lua.LValue) (bool, lua.LValue, error) {
	fn := L.GetGlobal(name)
	if fn.Type() != lua.LTFunction {
		return false, lua.LNil, nil
	}
	if err := luajit.CallProtected(L, fn, 1, args...); err != nil {
		return true, lua.LNil, &ScriptError{Msg: fmt.Sprintf("`%s' function failed: %s", name, luaError(err))}
	}
	ret := L.Get(-1)
	L.Pop(1)
	return true, ret, nil
}

// Close releases the master state.
func (s *Script) Close() {
	if s.master != nil {
		s.masterRT.close()
		s.master.Close()
		s.master = nil
	}
}

// Drivers opened for this run are closed when the run ends.
func (env *Env) closeDrivers() {
	env.mu.Lock()
	defer env.mu.Unlock()
	for k, d := range env.opened {
		_ = d.Close()
		delete(env.opened, k)
	}
}

// openDriver returns the shared driver of that name, opening it once.
func (env *Env) openDriver(name string) (drivers.Driver, string, error) {
	if env.DriverConfigErr != nil {
		// The reference reads the database options as it creates its
		// first driver.
		return nil, name, env.DriverConfigErr
	}
	if name == "" {
		name = env.DriverName
	}
	if name == "" {
		if len(env.Drivers) != 1 {
			return nil, name, errors.New("Multiple DB drivers are available. Use --db-driver=name to specify which one to use")
		}
		name = env.Drivers[0].Name
	}
	env.mu.Lock()
	defer env.mu.Unlock()
	env.usedSQL = true
	if d, ok := env.opened[name]; ok {
		if !slices.Contains(env.used, name) {
			env.used = append(env.used, name)
		}
		return d, name, nil
	}
	for _, f := range env.Drivers {
		if f.Name == name {
			d, err := f.Open(env.DriverConfig)
			if err != nil {
				return nil, name, err
			}
			env.opened[name] = d
			if !slices.Contains(env.used, name) {
				env.used = append(env.used, name)
			}
			return d, name, nil
		}
	}
	return nil, name, fmt.Errorf("invalid database driver name: '%s'", name)
}

// UseDriver makes d the run's driver name, opened by main (for
// --server-stats) instead of on the script's first use.
func (env *Env) UseDriver(name string, d drivers.Driver) {
	env.mu.Lock()
	defer env.mu.Unlock()
	if env.opened == nil {
		env.opened = map[string]drivers.Driver{}
	}
	env.opened[name] = d
}

// noteServer records the server version of the run's first connection
// when RecordServerVersion is set.
func (env *Env) noteServer(ctx context.Context, c drivers.Conn) {
	if !env.RecordServerVersion {
		return
	}
	env.mu.Lock()
	asked := env.versionAsked
	env.versionAsked = true
	env.mu.Unlock()
	sv, ok := c.(drivers.ServerVersioner)
	if asked || !ok {
		return
	}
	if v, err := sv.ServerVersion(ctx); err == nil {
		env.mu.Lock()
		env.serverVersion = v
		env.mu.Unlock()
	}
}

// Server is the drivers the run opened, in order, and the server version
// of its first connection ("" when not recorded or unknown).
func (env *Env) Server() (drivers []string, version string) {
	env.mu.Lock()
	defer env.mu.Unlock()
	return slices.Clone(env.used), env.serverVersion
}

// UsedSQL reports whether any state asked for a database driver: the
// reports then include the SQL statistics, as the reference's.
func (env *Env) UsedSQL() bool {
	env.mu.Lock()
	defer env.mu.Unlock()
	return env.usedSQL
}
