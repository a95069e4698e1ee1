package luajit

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// The LuaJIT compatibility tests are tables of a Lua expression and what
// it gives, as recorded with luajit 2.1.0-beta3 (Debian's 2022 build,
// which sysbench 1.0.20 runs on) through luajitHarness: numbers as %.14g
// (LuaJIT's tostring), strings quoted with %q, cdata through tostring
// with addresses shown as ADDR, errors as "error: " and the message
// without its position. Each table runs against our libraries and, when
// luajit is installed, against luajit too, so the recorded values are
// checked to be LuaJIT's.

type luajitCase struct{ expr, want string }

// luajitHarness defines render and run in both engines. LL"5" and ULL"5"
// stand for the literals 5LL and 5ULL, which gopher-lua's parser does not
// read (ours compiles them to __sysbench_int64 calls).
const luajitHarness = `
ffi = require "ffi"
if jit and jit.status() then
  function LL(s) return loadstring("return " .. s .. "LL")() end
  function ULL(s) return loadstring("return " .. s .. "ULL")() end
else
  function LL(s) return __sysbench_int64(s, "LL") end
  function ULL(s) return __sysbench_int64(s, "ULL") end
end
local function render1(v)
  local t = type(v)
  if t == "number" then return string.format("%.14g", v) end
  if t == "string" then return string.format("%q", v) end
  if t == "cdata" then return (tostring(v):gsub("0x%x+", "ADDR")) end
  return tostring(v)
end
function render(...)
  local out = {}
  for i = 1, select("#", ...) do out[i] = render1((select(i, ...))) end
  return table.concat(out, ", ")
end
function run(expr)
  local f, err = loadstring("return render(" .. expr .. ")")
  if not f then return "compile error: " .. err end
  local ok, r = pcall(f)
  if ok then return r end
  return "error: " .. (tostring(r):gsub("^.-:%d+: ", ""))
end
`

// newLuaJITState is a Lua state with the standard libraries and the
// LuaJIT ones as NewState and OpenLuaJIT register them; what it prints
// goes to a buffer (testOutput).
func newLuaJITState(t testing.TB) *lua.LState {
	t.Helper()
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	st := &State{L: L, Out: &bytes.Buffer{}, Files: &sync.Map{}}
	st.register()
	t.Cleanup(func() {
		closeFiles(L)
		L.Close()
	})
	openLibs(L)
	openLuaJITLibs(L)
	if err := L.DoString(luajitHarness); err != nil {
		t.Fatal(err)
	}
	return L
}

// runLuaJITCases checks each case in a fresh state of ours and then, when
// luajit is installed, all of them in luajit.
func runLuaJITCases(t *testing.T, cases []luajitCase) {
	t.Helper()
	runLuaJITCasesOurs(t, cases)
	checkRecordedWithLuaJIT(t, cases)
}

// runLuaJITCasesOurs checks cases whose values are ours, not LuaJIT's
// (documented differences), in the same harness.
func runLuaJITCasesOurs(t *testing.T, cases []luajitCase) {
	t.Helper()
	for _, tc := range cases {
		L := newLuaJITState(t)
		got := evalCase(t, L, tc.expr)
		if got != tc.want {
			t.Errorf("%s\n got: %s\nwant: %s", tc.expr, got, tc.want)
		}
	}
}

func evalCase(t *testing.T, L *lua.LState, expr string) string {
	t.Helper()
	if err := L.CallByParam(lua.P{Fn: L.GetGlobal("run"), NRet: 1, Protect: true}, lua.LString(expr)); err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	v := L.Get(-1)
	L.Pop(1)
	return v.String()
}

// testOutput is what a state of newLuaJITState printed so far.
func testOutput(L *lua.LState) string {
	return Of(L).Out.(*bytes.Buffer).String()
}

// luajitBatch runs each case in one luajit process, with math.random's
// generator put back in its initial state (seed 0) before each, as ours
// run in fresh states. Cases are read as "<length>\n<expr>" records and
// answered the same way.
const luajitBatch = `
while true do
  local n = io.read("*l")
  if not n then break end
  local expr = io.read(tonumber(n))
  math.randomseed(0)
  local r = run(expr)
  io.write(#r, "\n", r)
end
`

// luajitToRecheck finds luajit to check recorded values with: without it
// they are not re-checked, a failure under CI=true.
func luajitToRecheck(t *testing.T) (string, bool) {
	t.Helper()
	bin, err := exec.LookPath("luajit")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("luajit not installed (CI=true): %v", err)
		}
		t.Log("luajit not installed: recorded values not re-checked")
		return "", false
	}
	return bin, true
}

// checkRecordedWithLuaJIT runs the cases in luajit and compares.
func checkRecordedWithLuaJIT(t *testing.T, cases []luajitCase) {
	t.Helper()
	bin, ok := luajitToRecheck(t)
	if !ok {
		return
	}
	script := filepath.Join(t.TempDir(), "case.lua")
	if err := os.WriteFile(script, []byte(luajitHarness+luajitBatch), 0o644); err != nil {
		t.Fatal(err)
	}
	var in bytes.Buffer
	for _, tc := range cases {
		fmt.Fprintf(&in, "%d\n%s", len(tc.expr), tc.expr)
	}
	cmd := exec.Command(bin, script)
	cmd.Dir = t.TempDir()
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("luajit: %v", err)
	}
	r := bufio.NewReader(bytes.NewReader(out))
	for _, tc := range cases {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("luajit answered %q last", tc.expr)
		}
		n, _ := strconv.Atoi(strings.TrimSpace(line))
		got := make([]byte, n)
		if _, err := io.ReadFull(r, got); err != nil {
			t.Fatal(err)
		}
		if string(got) != tc.want {
			t.Errorf("recorded value is not luajit's: %s\nluajit: %s\nrecorded: %s", tc.expr, got, tc.want)
		}
	}
}
