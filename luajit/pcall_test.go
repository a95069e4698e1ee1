package luajit

import (
	"io"
	"os/exec"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

// languageCases are chunks whose output is LuaJIT's, recorded with luajit
// 2.1 and checked against it again when luajit is installed: protected
// calls, error messages and levels, coroutines and call depth, where
// gopher-lua's own functions differ or crash.
var languageCases = []struct{ name, src, want string }{
	{"upvalues outside a pcall stay shared after an error",
		`local n = 0 local function inc() n = n + 1 end
pcall(error, "x") inc() print(n)`, "1"},
	{"and after an error in an outer pcall following an inner one",
		`local n = 0 local function inc() n = n + 1 end
pcall(function() pcall(error, "a") error("b") end) inc() print(n)`, "1"},
	{"a closure of a frame an error unwound keeps its values",
		`local keep
local function f(a) local b = a * 2 keep = function() return a, b end error("x") end
print(pcall(f, 21))
local function g(...) local x, y, z = 10, 20, 30 return ... end
g(7, 8, 9)
print(xpcall(keep, debug.traceback))`, "false\tstdin:2: x\ntrue\t21\t42"},
	{"messages name the variable",
		`local function try(f) print(select(2, pcall(f))) end
try(function() local a; a.b = 1 end)
try(function() local t = {} return t.x.y end)
try(function() return undefinedglobal.x end)
try(function() local up = nil return (function() return up.x end)() end)
try(function() local f = 5; f() end)
try(function() local t = {} t:nope() end)
try(function() return math.nope() end)
try(function() local s = "x" return -s end)
try(function() local a = {} return #nil end)
try(function() return 1 + {} end)
try(function() local t = {} return t.n .. "x" end)
try(function() return {} < {} end)
try(function() return 1 < "x" end)
try(function() for i = 1, nil do end end)
try(function() for i = nil, 1 do end end)
try(function() for i = 1, 2, {} do end end)
try(function() for x in nil do end end)`,
		`stdin:2: attempt to index local 'a' (a nil value)
stdin:3: attempt to index field 'x' (a nil value)
stdin:4: attempt to index global 'undefinedglobal' (a nil value)
stdin:5: attempt to index upvalue 'up' (a nil value)
stdin:6: attempt to call local 'f' (a number value)
stdin:7: attempt to call method 'nope' (a nil value)
stdin:8: attempt to call field 'nope' (a nil value)
stdin:9: attempt to perform arithmetic on local 's' (a string value)
stdin:10: attempt to get length of a nil value
stdin:11: attempt to perform arithmetic on a table value
stdin:12: attempt to concatenate field 'n' (a nil value)
stdin:13: attempt to compare two table values
stdin:14: attempt to compare number with string
stdin:15: 'for' limit must be a number
stdin:16: 'for' initial value must be a number
stdin:17: 'for' step must be a number
stdin:18: attempt to call a nil value`},
	{"error levels and values",
		`print(pcall(error, "m"))
print(pcall(error))
print(pcall(error, "m", 0))
local function f() error("deep", 2) end
print(pcall(function() f() end))
print(select('#', pcall(error)), type(select(2, pcall(error, {}))))`,
		"false\tm\nfalse\tnil\nfalse\tm\nfalse\tstdin:5: deep\n2\ttable"},
	{"xpcall's handler runs above the raising frame",
		`local ok, msg = xpcall(function()
  local x
  error("emsg")
end, function(m)
  return (debug.getlocal(3, 1)) .. " " .. m
end)
print(ok, msg)
print(xpcall(function(a, b) return a + b end, print, 1, 2))`,
		"false\tx stdin:3: emsg\ntrue\t3"},
	{"yield across pcall, xpcall, an iterator and a metamethod",
		`local function all(f, ...)
  local co, out = coroutine.create(f), {}
  local args = {...}
  while true do
    local ok, v = coroutine.resume(co, unpack(args))
    if not ok then out[#out + 1] = "error " .. v break end
    out[#out + 1] = tostring(v)
    if coroutine.status(co) == "dead" then break end
  end
  print(table.concat(out, " "))
end
all(function(x) pcall(coroutine.yield, x) return 99 end, 42)
all(function(x) pcall(function(y) coroutine.yield(y) end, x) return 99 end, 42)
all(function(x) xpcall(coroutine.yield, debug.traceback, x) return 99 end, 42)
all(function(x, y)
  for i in function(o, k) coroutine.yield(o + k) if k ~= 0 then return k - 1 end end, x, y do end
  return 99
end, 42, 3)
all(function(x)
  local o = setmetatable({x}, {__add = function(a, b) coroutine.yield(a[1] + b[1]) return 99 end})
  return o + o
end, 42)
all(function() local ok, e = pcall(function() coroutine.yield(1) error("after") end) coroutine.yield(e) return "end" end)
all(function() error("inside") end)`,
		"42 99\n42 99\n42 99\n45 44 43 42 99\n84 99\n1 stdin:23: after end\nerror stdin:24: inside"},
	{"coroutine status, running, wrap",
		`local co
co = coroutine.create(function()
  print(coroutine.status(co), coroutine.running() == co)
  coroutine.yield()
end)
print(coroutine.status(co), coroutine.running())
coroutine.resume(co)
print(coroutine.status(co), coroutine.resume(co))
print(coroutine.status(co), coroutine.resume(co))
local gen = coroutine.wrap(function() for i = 1, 3 do coroutine.yield(i) end end)
print(gen(), gen(), gen())
local bad = coroutine.wrap(function() error("w") end)
print(pcall(bad))
print(pcall(bad))`,
		"suspended\tnil\nrunning\ttrue\nsuspended\ttrue\ndead\tfalse\tcannot resume dead coroutine\n1\t2\t3\nfalse\tstdin:12: w\nfalse\tcannot resume dead coroutine"},
	{"calls nest some 16,000 deep, then overflow",
		`local function depth(n) if n == 0 then return 0 end return 1 + depth(n - 1) end
print(depth(15000))
print(pcall(depth, 1e6))
local t = setmetatable({}, {__index = function(t, k) return t[k] end})
print(pcall(function() return t.x end))`,
		"15000\nfalse\tstack overflow\nfalse\tstack overflow"},
}

func TestLanguageAsLuaJIT(t *testing.T) {
	for _, tc := range languageCases {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.TrimSuffix(runStdinScript(t, tc.src), "\n")
			if got != tc.want {
				t.Errorf("got:\n%s\nLuaJIT:\n%s", got, tc.want)
			}
		})
	}
}

// TestLanguageCasesAreLuaJIT: the recorded outputs are luajit's, but for
// the call stack's overflow, which ours reports without the position of
// the call (docs/differences.md).
func TestLanguageCasesAreLuaJIT(t *testing.T) {
	bin := testenv.Tool(t, "luajit", "apt-get install luajit")
	for _, tc := range languageCases {
		cmd := exec.Command(bin, "-")
		cmd.Stdin = strings.NewReader(tc.src)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: luajit: %v\n%s", tc.name, err, out)
		}
		got := strings.TrimSuffix(string(out), "\n")
		want := strings.Replace(tc.want, "false\tstack overflow", "false\tstdin:1: stack overflow", 1)
		want = strings.Replace(want, "false\tstack overflow", "false\tstdin:4: stack overflow", 1)
		if got != want {
			t.Errorf("%s: the table says:\n%s\nluajit:\n%s", tc.name, want, got)
		}
	}
}

// runStdinScript runs src as a script read from standard input (chunk
// name "stdin") in a state of NewState with OpenLuaJIT, as a host runs a
// script's main chunk, and returns what it printed.
func runStdinScript(t *testing.T, src string) string {
	t.Helper()
	var out strings.Builder
	st := startStdinScript(t, &out, src)
	st.Close()
	st.L.Close()
	return out.String()
}

// startStdinScript runs src's main chunk in a new state and returns the
// state, open.
func startStdinScript(t *testing.T, out io.Writer, src string) *State {
	t.Helper()
	st := NewState(out, nil)
	st.OpenLuaJIT()
	p, err := Compile(strings.NewReader(src), "=stdin")
	if err == nil {
		err = CallProtected(st.L, st.L.NewFunctionFromProto(p), 0)
	}
	if err != nil {
		t.Fatalf("%v\noutput so far:\n%v", err, out)
	}
	return st
}

// TestAbandonedCoroutinesEnd: coroutines left suspended and dropped by
// the script end with their goroutines once collected.
func TestAbandonedCoroutinesEnd(t *testing.T) {
	before := goruntime.NumGoroutine()
	src := `for i = 1, 200 do
  local gen = coroutine.wrap(function() for k = 1, 10 do coroutine.yield(k) end end)
  gen() gen()
end
held = coroutine.create(function() coroutine.yield() end)
coroutine.resume(held)`
	st := startStdinScript(t, io.Discard, src)
	// The collector runs the handles' cleanups on a goroutine of its own.
	deadline := time.Now().Add(10 * time.Second)
	for goruntime.NumGoroutine() > before+10 && time.Now().Before(deadline) {
		goruntime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if n := goruntime.NumGoroutine(); n > before+10 {
		t.Errorf("%d goroutines after the abandoned coroutines were collected, %d before", n, before)
	}
	// The one the script still holds ends when its state closes.
	st.Close()
	st.L.Close()
	deadline = time.Now().Add(10 * time.Second)
	for goruntime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := goruntime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after the state closed, %d before", n, before)
	}
}
