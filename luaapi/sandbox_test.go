package luaapi

import (
	"errors"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/options"
)

// readDeclarations reads the declarations of a script made of src.
func readDeclarations(t *testing.T, src string) (Declarations, error) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "script.lua")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "beside.lua"), []byte("return 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return ReadDeclarations(&Env{Values: options.NewValues()}, path, 5*time.Second)
}

// TestSandboxRefuses calls, in a sandboxed main chunk, each function that
// reaches outside the Lua state, and declares an option for each call
// that was not refused; the pure functions must work.
func TestSandboxRefuses(t *testing.T) {
	d, err := readDeclarations(t, `
local refused = {
  io_open = function() return io.open("/dev/null") end,
  io_popen = function() return io.popen("true") end,
  io_write = function() io.write("x") end,
  io_read = function() return io.read() end,
  io_lines = function() for l in io.lines("/etc/hostname") do end end,
  io_stderr = function() io.stderr:write("x") end,
  io_tmpfile = function() return io.tmpfile() end,
  os_execute = function() return os.execute("true") end,
  os_remove = function() return os.remove("/nonexistent") end,
  os_rename = function() return os.rename("/nonexistent", "/nonexistent2") end,
  os_tmpname = function() return os.tmpname() end,
  os_exit = function() os.exit(3) end,
  os_time = function() return os.time() end,
  os_clock = function() return os.clock() end,
  os_date = function() return os.date() end,
  dofile_elsewhere = function() return dofile("/etc/hostname") end,
  loadfile_elsewhere = function() return assert(loadfile("/etc/hostname")) end,
  dofile_stdin = function() return dofile() end,
  ffi_usleep = function() return ffi.C.usleep(1) end,
  ffi_load = function() return ffi.load("c") end,
  sql_driver = function() return sysbench.sql.driver() end,
  db_connect = function() return db_connect() end,
  loaded_io = function() return package.loaded.io.open("/dev/null") end,
  registry = function() return debug.getregistry() end,
  debug_debug = function() debug.debug() end,
  report = function() sysbench.report_default({}) end,
  print_options = function() sysbench.cmdline.print_test_options() end,
}
local opts = {}
for name, f in pairs(refused) do
  if pcall(f) then opts["not_refused_" .. name] = {"x", 1} end
end
print("print writes nothing")
local pure = {
  string = string.format("%d", 5) == "5" and ("abc"):upper() == "ABC",
  math = math.floor(2.5) == 2,
  bit = bit.band(3, 1) == 1,
  rand = type(sysbench.rand.uniform(1, 10)) == "number" and type(sb_rand(1, 2)) == "number",
  int64 = tostring(5LL) == "5LL",
  getenv = os.getenv("PATH") ~= nil,
  loadstring = loadstring("return 1")() == 1,
  dofile_beside = dofile(sysbench.cmdline.script_path:match("(.*/)") .. "beside.lua") == 7,
  coroutine = coroutine.wrap(function() coroutine.yield(1) end)() == 1,
  ffi = pcall(ffi.cdef, "int usleep(unsigned int);"),
}
for name, ok in pairs(pure) do
  if ok then opts["pure_" .. name] = {"x", 1} end
end
sysbench.cmdline.options = opts
`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range d.Options {
		got = append(got, o.Name)
	}
	want := []string{"pure_bit", "pure_coroutine", "pure_dofile_beside", "pure_ffi", "pure_getenv",
		"pure_int64", "pure_loadstring", "pure_math", "pure_rand", "pure_string"}
	if !slices.Equal(got, want) {
		t.Errorf("options declared: %q\nwant %q", got, want)
	}
}

// TestSandboxEnds: a main chunk that fails on a refusal, or that does
// not end, reads as ErrNeedsRun; one that fails on its own keeps its
// error.
func TestSandboxEnds(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want string
	}{
		{"os.execute('true')", ErrNeedsRun.Error()},
		{"while true do end", ErrNeedsRun.Error()},
		{"local s = 'x' while true do s = s:rep(2):sub(1, 100) end", ErrNeedsRun.Error()},
		{"error('own failure')", "own failure"},
	} {
		_, err := ReadDeclarations(&Env{Values: options.NewValues()}, writeScript(t, tc.src), 200*time.Millisecond)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.src, err, tc.want)
		}
		if tc.want == ErrNeedsRun.Error() && !errors.Is(err, ErrNeedsRun) {
			t.Errorf("%s: %v is not ErrNeedsRun", tc.src, err)
		}
	}
}

func writeScript(t *testing.T, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "script.lua")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSandboxRefusesUnknown: a Go function the allow list does not name,
// wherever it is reachable (a global, a userdata type's method), is
// refused; one it names under any of its names keeps working.
func TestSandboxRefusesUnknown(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	called := 0
	count := func(*lua.LState) int { called++; return 0 }
	L.SetGlobal("new_api", L.NewFunction(count))
	alias := L.NewFunction(count)
	L.SetGlobal("alias", alias)
	L.SetField(L.GetGlobal("string"), "alias", alias) // under an allowed table
	mt := L.NewTypeMetatable("new_type")
	L.SetField(mt, "__index", L.NewFunction(count))
	sb := &sandbox{}
	sb.refuseUnsafe(L)
	reg := L.Get(lua.RegistryIndex).(*lua.LTable)
	for _, tc := range []struct {
		fn      lua.LValue
		name    string
		allowed bool
	}{
		{L.GetGlobal("new_api"), "new_api", false},
		{L.GetField(reg.RawGetString("new_type"), "__index"), "new_type's __index", false},
		{L.GetGlobal("alias"), "alias", true},
		{L.GetField(L.GetGlobal("string"), "alias"), "string.alias", true},
	} {
		before := called
		L.Push(tc.fn)
		err := L.PCall(0, 0, nil)
		if ran := called > before; ran != tc.allowed || (err == nil) != tc.allowed {
			t.Errorf("%s: ran %v, error %v; want allowed %v", tc.name, ran, err, tc.allowed)
		}
		if err != nil && !strings.Contains(err.Error(), "not available") {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	if !sb.refused.Load() {
		t.Error("the refusals were not recorded")
	}
}

// TestSandboxBudgetIsCPU: the budget is the chunk's CPU time, not the wall
// clock's. A chunk that needs some CPU declares its option with a budget
// of twice that, while two goroutines that never block share the one
// processor with it: it waits for its turns twice as long as it runs,
// which a budget on the wall clock cuts short.
func TestSandboxBudgetIsCPU(t *testing.T) {
	if _, ok := newThreadClock().used(); !ok {
		t.Skip("no thread CPU clock here: the budget is the wall clock's")
	}
	path := writeScript(t, "local n = 0 for i = 1, 50000 do n = n + i end\n"+
		"sysbench.cmdline.options = {counted = {'after a loop', n}}\n")
	read := func(budget time.Duration) (Declarations, error) {
		return ReadDeclarations(&Env{Values: options.NewValues()}, path, budget)
	}
	// The chunk's CPU time, alone: the least wall time of three reads.
	alone := time.Duration(1<<63 - 1)
	for range 3 {
		start := time.Now()
		if _, err := read(time.Minute); err != nil {
			t.Fatal(err)
		}
		alone = min(alone, time.Since(start))
	}
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(1))
	var stop atomic.Bool
	var spinning sync.WaitGroup
	for range 2 {
		spinning.Add(1)
		go func() {
			defer spinning.Done()
			for !stop.Load() {
			}
		}()
	}
	start := time.Now()
	d, err := read(2 * alone)
	took := time.Since(start)
	stop.Store(true)
	spinning.Wait()
	if err != nil || len(d.Options) != 1 || d.Options[0].Name != "counted" {
		t.Fatalf("with a budget of %s (the chunk alone took %s), sharing a processor (%s): %+v, %v", 2*alone, alone, took, d, err)
	}
	if took <= 2*alone {
		t.Logf("the read took %s, within the budget even on the wall clock: the processor was not shared as meant", took)
	}
}
