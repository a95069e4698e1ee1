package parse

import (
	"bytes"
	"testing"

	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

// luajitProbe loads chunks given as "<length>\n<bytes>" records and answers
// each with a record holding "" (it loads) or LuaJIT's message; with "run"
// it also runs each chunk and answers the message of the error it raises.
const luajitProbe = `
local f = assert(io.open(arg[1], "rb"))
local run = arg[2] == "run"
while true do
  local n = f:read("*l")
  if not n then break end
  local src = f:read(tonumber(n)) or ""
  local fn, err = loadstring(src, "@x.lua")
  local r = fn and "" or err
  if fn and run then
    local ok, e = pcall(fn)
    r = ok and "" or tostring(e)
  end
  io.write(#r, "\n", r)
end
`

// luajitLoad asks LuaJIT (the luajit binary, which settles how a script
// parses) to load each source as chunk "x.lua". It skips the test when
// luajit is not installed.
func luajitLoad(t testing.TB, sources []string) []string {
	t.Helper()
	return luajit(t, sources, "load")
}

// luajitRun is luajitLoad that also runs each chunk: the answer is the
// load error, or the message of the error the chunk raises, or "".
func luajitRun(t testing.TB, sources []string) []string {
	t.Helper()
	return luajit(t, sources, "run")
}

func luajit(t testing.TB, sources []string, mode string) []string {
	t.Helper()
	return testenv.LuaJITRecords(t, luajitProbe, []string{"--", mode}, sources)
}

// ourLoad is ours in luajitLoad's terms: "" or the error text.
func ourLoad(src string) string {
	_, err := Parse(bytes.NewReader([]byte(src)), "x.lua")
	if err != nil {
		return err.Error()
	}
	return ""
}
