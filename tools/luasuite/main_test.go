package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

// expected is how every implementation fares on the synthetic suites in
// testdata: the same under each, since they test the harness, not Lua.
var expected = map[string]Status{
	"lang/basic.lua --- passes":                     Pass,
	"lang/basic.lua --- fails on an assertion":      Fail,
	"lang/basic.lua --- has a prelude of its own 1": Pass,
	"lang/basic.lua --- has a prelude of its own 2": Pass,
	"lang/basic.lua --- returns early":              Pass,
	"lang/basic.lua --- only from LuaJIT 2.1 on":    Pass,
	"lang/globals.lua --- writes a global":          Pass,
	"lang/globals.lua --- sees the real globals":    Pass,
	"lib/bits.lua --- band":                         Pass,
	"events.lua":                                    Pass,
	"locals.lua":                                    Fail,
	"plain.lua":                                     Pass,
	"writes.lua":                                    Pass,
}

// runSuites runs the synthetic suites with args and returns the exit
// status, the printed tables and the results.
func runSuites(t *testing.T, args ...string) (int, string, map[string]Result, string) {
	t.Helper()
	out := t.TempDir()
	args = append([]string{"-luajit-tests", "testdata/luajit", "-lua51-tests", "testdata/lua51", "-out", out}, args...)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	if code == 2 {
		t.Fatalf("usage error: %s", stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatalf("results.json: %v (stderr %s)", err, stderr.String())
	}
	var rs []Result
	if err := json.Unmarshal(b, &rs); err != nil {
		t.Fatal(err)
	}
	byID := map[string]Result{}
	for _, r := range rs {
		byID[r.ID()] = r
	}
	if _, err := os.Stat("testdata/lua51/written.txt"); err == nil {
		os.Remove("testdata/lua51/written.txt")
		t.Error("writes.lua wrote into testdata, not into its own copy of the suite")
	}
	return code, stdout.String(), byID, out
}

func checkStatuses(t *testing.T, byID map[string]Result, impls ...string) {
	t.Helper()
	ran := 0
	for id, r := range byID {
		if !r.Ran() {
			if _, ok := expected[id]; ok {
				t.Errorf("%s did not run", id)
			}
			continue
		}
		ran++
		for _, im := range impls {
			if got := r.Outcomes[im].Status; got != expected[id] {
				t.Errorf("%s under %s: %s, want %s (%s)", id, im, got, expected[id], r.Outcomes[im].Error)
			}
		}
	}
	if ran != len(expected) {
		t.Errorf("%d tests ran, want %d", ran, len(expected))
	}
}

// TestEndToEndOurs runs the synthetic suites through sysbench-go alone.
func TestEndToEndOurs(t *testing.T) {
	bin := testenv.Binary(t)
	code, _, byID, out := runSuites(t, "-ours", bin, "-luajit", "none", "-sysbench", "none", "-lua5.1", "none")
	if code != 0 {
		t.Errorf("exit status %d", code)
	}
	checkStatuses(t, byID, "ours")
	r := byID["lang/basic.lua --- fails on an assertion"]
	o := r.Outcomes["ours"]
	if o.Error != "stdin:12: add is wrong" || o.Line != 12 || o.Source != `assert(add(1, 2) == 4, "add is wrong")` {
		t.Errorf("the failure is %q at line %d %q", o.Error, o.Line, o.Source)
	}
	text, err := os.ReadFile(filepath.Join(out, testDir(r), "ours.txt"))
	if err != nil || !strings.Contains(string(text), "status: fail\n") || !strings.Contains(string(text), "error: stdin:12: add is wrong\n") {
		t.Errorf("the block's results file: %v\n%s", err, text)
	}
	if chunk, err := os.ReadFile(filepath.Join(out, testDir(r), "chunk.lua")); err != nil || !strings.Contains(string(chunk), `"add is wrong"`) {
		t.Errorf("the block's chunk was not kept: %v\n%s", err, chunk)
	}
	if _, err := os.Stat(filepath.Join(out, "lua51-work")); err == nil {
		t.Error("the Lua 5.1 suite's copies were left in the results directory")
	}
}

// TestEndToEndTimeout runs a block that never ends with a short limit.
func TestEndToEndTimeout(t *testing.T) {
	bin := testenv.Binary(t)
	_, _, byID, _ := runSuites(t, "-ours", bin, "-luajit", "none", "-sysbench", "none", "-lua5.1", "none",
		"-tags", "+slow", "-run", "^slow.lua", "-timeout", "1s")
	if o := byID["slow.lua --- never ends"].Outcomes["ours"]; o.Status != Timeout {
		t.Errorf("a chunk that never ends: %s %q", o.Status, o.Error)
	}
	if r := byID["lang/basic.lua --- passes"]; r.Ran() || r.Deselect != "-run" {
		t.Errorf("-run left in a block it does not match")
	}
}

// TestEndToEndReferences runs the synthetic suites through every
// implementation: each must fare as expected, and the table count them.
func TestEndToEndReferences(t *testing.T) {
	bin := testenv.Binary(t)
	for _, tool := range []string{"luajit", "sysbench", "lua5.1"} {
		testenv.Tool(t, tool, "apt-get install "+tool)
	}
	code, table, byID, _ := runSuites(t, "-ours", bin)
	if code != 0 {
		t.Errorf("exit status %d", code)
	}
	checkStatuses(t, byID, "luajit", "sysbench", "ours")
	for _, id := range []string{"events.lua", "locals.lua", "plain.lua", "writes.lua"} {
		if got := byID[id].Outcomes["lua5.1"].Status; got != expected[id] {
			t.Errorf("%s under lua5.1: %s, want %s", id, got, expected[id])
		}
	}
	squeezed := strings.ReplaceAll(table, " ", "")
	for _, row := range []string{
		"|lang|8|7|7|7/7|0|7/7|",
		"|**total**|9|8|8|8/8|0|8/8|",
		"|**total**|3/4|3/4|3/4|3/4|",
		"|main.lua|notrun||||",
	} {
		if !strings.Contains(squeezed, row) {
			t.Errorf("the tables lack the row %s:\n%s", row, table)
		}
	}
}

// TestCheck gives the harness a reference that passes everything and an
// implementation that fails everything: -check must fail the run and the
// work list must name the promised tests.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	write := func(name, script string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+script), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	passing := write("passing", "cat >/dev/null\necho 'luasuite: pass'\n")
	failing := write("failing", "cat >/dev/null\necho banner; echo; echo 'FATAL: stdin:1: broken'\nexit 1\n")
	code, table, _, out := runSuites(t, "-ours", failing, "-luajit", passing, "-lua5.1", passing, "-sysbench", "none", "-check")
	if code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	if !strings.Contains(strings.ReplaceAll(table, " ", ""), "|**total**|9|9|-|0/9|0|0/9|") {
		t.Errorf("the table does not count the reference's passes:\n%s", table)
	}
	work, err := os.ReadFile(filepath.Join(out, "failures.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"lang/basic.lua --- passes", "events.lua"} {
		if !strings.Contains(string(work), id+"\n\tstdin:1: broken\n") {
			t.Errorf("failures.txt lacks %s:\n%s", id, work)
		}
	}
	if got := strings.Count(string(work), "\tstdin:1: broken\n"); got != 9+4 {
		t.Errorf("failures.txt lists %d tests, want 13", got)
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"-luajit-tests", "testdata/lua51"},
		{"-lua51-tests", "testdata/luajit"},
		{"-luajit-tests", "testdata/luajit", "extra"},
		{"-luajit-tests", "testdata/luajit", "-run", "("},
		{"-luajit-tests", "testdata/luajit", "-tags", "slow"},
		{"-luajit-tests", "testdata/luajit", "-ours", filepath.Join(t.TempDir(), "none")},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "usage: luasuite") {
			t.Errorf("%q: exit status %d, stderr %q; want 2 and the usage", args, code, stderr.String())
		}
	}
}
