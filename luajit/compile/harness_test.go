package compile

import (
	"fmt"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/internal/testenv"
	"github.com/sysbench-go/sysbench-go/luajit/parse"
)

// A chunk's result, the same shape from LuaJIT and from ours: what it
// printed, then "error: <message>" if it raised one. Numbers print as
// LuaJIT's tostring writes them, in both.

// compileChunk parses and compiles src as chunk "x.lua".
func compileChunk(t testing.TB, src string) *lua.FunctionProto {
	t.Helper()
	chunk, err := parse.Parse(strings.NewReader(src), "x.lua")
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	p, err := Compile(chunk, "x.lua")
	if err != nil {
		t.Fatalf("compile: %v\n%s", err, src)
	}
	if err := verify(p); err != nil {
		t.Fatalf("verify: %v\n%s", err, Listing(p))
	}
	return p
}

// runOurs compiles src with our compiler and runs it in a fresh gopher-lua
// state.
func runOurs(t testing.TB, src string) string {
	t.Helper()
	p := compileChunk(t, src)
	L := lua.NewState(lua.Options{CallStackSize: 1000})
	defer L.Close()
	var out strings.Builder
	text := func(v lua.LValue) string {
		if n, ok := v.(lua.LNumber); ok {
			return string(appendNumber(nil, float64(n)))
		}
		return L.ToStringMeta(v).String()
	}
	L.SetGlobal("tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString(text(L.CheckAny(1))))
		return 1
	}))
	L.SetGlobal("print", L.NewFunction(func(L *lua.LState) int {
		for i := 1; i <= L.GetTop(); i++ {
			if i > 1 {
				out.WriteByte('\t')
			}
			out.WriteString(text(L.Get(i)))
		}
		out.WriteByte('\n')
		return 0
	}))
	L.Push(L.NewFunctionFromProto(p))
	if err := L.PCall(0, 0, nil); err != nil {
		msg := err.Error()
		if ae, ok := err.(*lua.ApiError); ok {
			msg = ae.Object.String()
		}
		fmt.Fprintf(&out, "error: %s", msg)
	}
	return out.String()
}

// luajitProbe runs chunks given as "<length>\n<bytes>" records, each in
// an environment of its own with a print that collects its output, and
// answers each with a record of the same shape as runOurs.
const luajitProbe = `
local f = assert(io.open(arg[1], "rb"))
while true do
  local n = f:read("*l")
  if not n then break end
  local src = f:read(tonumber(n)) or ""
  local out = {}
  local env = setmetatable({}, {__index = _G})
  env.print = function(...)
    local t = {}
    for i = 1, select('#', ...) do t[i] = tostring((select(i, ...))) end
    out[#out + 1] = table.concat(t, "\t") .. "\n"
  end
  local fn, err = loadstring(src, "@x.lua")
  if fn then
    setfenv(fn, env)
    local ok, e = pcall(fn)
    if not ok then out[#out + 1] = "error: " .. tostring(e) end
  else
    out[#out + 1] = "error: " .. err
  end
  local r = table.concat(out)
  io.write(#r, "\n", r)
end
`

// runLuaJIT runs each source under luajit (skipping the test when it is
// not installed).
func runLuaJIT(t testing.TB, sources []string) []string {
	t.Helper()
	return testenv.LuaJITRecords(t, luajitProbe, []string{"-joff"}, sources)
}

// compareWithLuaJIT runs every source under both and reports each
// difference; errorsMatch compares error messages too, else only that
// both raise one after the same output.
func compareWithLuaJIT(t *testing.T, names, sources []string, errorsMatch bool) {
	t.Helper()
	want := runLuaJIT(t, sources)
	failed := 0
	for i, src := range sources {
		got := runOurs(t, src)
		w := want[i]
		if !errorsMatch {
			got, w = cutError(got), cutError(w)
		}
		if got != w {
			failed++
			if failed <= 10 {
				t.Errorf("%s:\n%s\n--- ours:\n%s\n--- LuaJIT:\n%s", names[i], src, got, w)
			}
		}
	}
	if failed > 10 {
		t.Errorf("... %d of %d differ", failed, len(sources))
	}
}

func cutError(s string) string {
	if i := strings.Index(s, "error: "); i >= 0 {
		return s[:i] + "error"
	}
	return s
}
