package luajit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// runLoaderScript runs src in a state of NewState with OpenLuaJIT whose
// package.path is dir's files, and returns what it printed.
func runLoaderScript(t *testing.T, dir, src string) string {
	t.Helper()
	var out strings.Builder
	st := NewState(&out, nil)
	defer st.L.Close()
	defer st.Close()
	st.OpenLuaJIT()
	st.L.SetField(st.L.GetGlobal("package"), "path", lua.LString(dir+"/?.lua"))
	p, err := Compile(strings.NewReader(src), "@"+filepath.Join(dir, "main.lua"))
	if err == nil {
		err = CallProtected(st.L, st.L.NewFunctionFromProto(p), 0)
	}
	if err != nil {
		t.Fatalf("%v\noutput so far:\n%s", err, out.String())
	}
	return out.String()
}

// TestRuntimeLoaders: chunks loaded at run time compile as the script does
// (LuaJIT's dialect) and fail with LuaJIT's messages. The expected lines
// are what luajit 2.1 printed for the same calls.
func TestRuntimeLoaders(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"badmod.lua":  "x=\n",
		"goodmod.lua": "local t = {v = 0x10} ::top:: return t\n", // a label: LuaJIT syntax
		"hexmod.lua":  "return \"\\x41\\z\n    B\"\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := runLoaderScript(t, dir, `
print(loadstring("x="))
print(loadstring("x=", "=mine"))
print(loadstring("x=", "@f.lua"))
print(loadstring(string.rep("a", 80) .. "="))
print(loadstring("x=", string.rep("b", 48)))
print(loadstring("x=", string.rep("b", 40) .. "\n"))
print(load("x="))
local i = 0
print(load(function() i = i + 1; if i == 1 then return "return " elseif i == 2 then return "42" end end)())
print(pcall(loadstring("error('boom')")))
print(loadfile("nonexist.lua"))
print(pcall(dofile, "nonexist.lua"))
print(pcall(require, "badmod"))
print(require("goodmod").v, require("hexmod"))
print(require("goodmod") == require("goodmod"))
package.preload.pm = function(n) return {n = n} end
print(require("pm").n)
local ok, err = pcall(require, "nomod")
print(ok, (err:match("^[^\n]*")))
`)
	dirDisp := dir + "/"
	want := strings.Join([]string{
		`nil	[string "x="]:1: unexpected symbol near '<eof>'`,
		`nil	mine:1: unexpected symbol near '<eof>'`,
		`nil	f.lua:1: unexpected symbol near '<eof>'`,
		`nil	[string "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa..."]:1: unexpected symbol near '<eof>'`,
		`nil	[string "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"]:1: unexpected symbol near '<eof>'`,
		`nil	[string "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb..."]:1: unexpected symbol near '<eof>'`,
		`nil	[string "x="]:1: unexpected symbol near '<eof>'`,
		`42`,
		`false	[string "error('boom')"]:1: boom`,
		`nil	cannot open nonexist.lua: No such file or directory`,
		`false	cannot open nonexist.lua: No such file or directory`,
		"false	error loading module 'badmod' from file '" + dirDisp + "badmod.lua':\n\t" + dirDisp + "badmod.lua:2: unexpected symbol near '<eof>'",
		`16	AB`,
		`true`,
		`pm`,
		`false	module 'nomod' not found:`,
	}, "\n") + "\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
