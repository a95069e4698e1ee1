package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// lua51File says how one file of the Lua 5.1 test suite is run: skipped
// with a reason, or through a few lines of Lua that do what the suite's
// driver (all.lua) does with it, checking the same return values.
type lua51File struct {
	Name string
	Skip string // why the file is not run
	Run  string // the Lua that runs it; `dofile "name"` when empty
}

// lua51Files are the files that are skipped or that all.lua runs in a way
// of their own; every other .lua file of the suite runs with dofile.
var lua51Files = []lua51File{
	{Name: "all.lua", Skip: "the suite's driver: it runs every other file in one state, " +
		"through string.dump, and ends by clearing the globals; here each file runs on its own, as all.lua runs it"},
	{Name: "api.lua", Skip: "tests the C API through the T (testC) library of a debug build of Lua; without T it returns at its first line"},
	{Name: "code.lua", Skip: "tests the code generator's opcodes through the T library; without T it returns at its first line"},
	{Name: "checktable.lua", Skip: "a helper the other files require (table statistics through the T library), not a test"},
	{Name: "main.lua", Skip: "tests the standalone lua interpreter's command line (-e, -l, -i, LUA_INIT, arg) " +
		"by running it through os.execute: neither sysbench nor sysbench-go has that command line"},
	{Name: "big.lua", Skip: "its first test expects the concatenation of 129 strings of 32 MiB to overflow a 32-bit length; " +
		"on 64 bits lua5.1 and sysbench-go build the 4 GiB string instead (minutes and gigabytes), LuaJIT refuses it"},
	{Name: "calls.lua", Run: `assert(dofile("calls.lua") == deep and deep)`},
	{Name: "attrib.lua", Run: `assert(dofile("attrib.lua") == 27)`},
	{Name: "locals.lua", Run: `assert(dofile("locals.lua") == 5)`},
	{Name: "events.lua", Run: `assert(dofile("events.lua") == 12)`},
	{Name: "verybig.lua", Run: `assert(dofile("verybig.lua") == 10)`},
}

// Lua51Case is one file of the Lua 5.1 suite and the chunk that runs it.
type Lua51Case struct {
	File  string
	Skip  string
	Chunk string
}

// LoadLua51Suite lists the suite's .lua files in dir (gopher-lua's
// _lua5.1-tests) with the chunk that runs each.
func LoadLua51Suite(dir string) ([]Lua51Case, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.lua"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: no .lua files", dir)
	}
	special := map[string]lua51File{}
	for _, f := range lua51Files {
		special[f.Name] = f
	}
	var out []Lua51Case
	for _, n := range names {
		name := filepath.Base(n)
		f := special[name]
		c := Lua51Case{File: name, Skip: f.Skip}
		if c.Skip == "" {
			run := f.Run
			if run == "" {
				run = fmt.Sprintf("dofile(%q)", name)
			}
			c.Chunk = run + "\nprint(\"" + passLine + "\")\n"
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].File < out[j].File })
	return out, nil
}

// copyDir makes dst a copy of the suite to run one file in, so that a
// file that writes next to itself (attrib.lua writes libs/) touches neither
// the checkout nor another run.
func copyDir(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}
