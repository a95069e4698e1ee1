package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Result is one test — a block of LuaJIT's suite or a file of Lua 5.1's —
// and its outcome under each implementation.
type Result struct {
	Suite    string `json:"suite"` // "luajit" or "lua5.1"
	File     string `json:"file"`
	Name     string `json:"name,omitempty"` // the block's name
	Index    int    `json:"index,omitempty"`
	Line     int    `json:"line,omitempty"`
	Meta     string `json:"meta,omitempty"`
	Selected bool   `json:"selected"`
	Deselect string `json:"deselected_by,omitempty"`
	Skip     string `json:"skipped,omitempty"` // a Lua 5.1 file not run, and why
	Category string `json:"not_promised,omitempty"`
	Reason   string `json:"reason,omitempty"`
	Chunk    string `json:"-"`
	// Outcomes by implementation name.
	Outcomes map[string]Outcome `json:"outcomes,omitempty"`
}

// ID names the test: "lang/assignment.lua --- local", "db.lua".
func (r Result) ID() string {
	if r.Name == "" {
		return r.File
	}
	return r.File + " --- " + r.Name
}

// Ran reports whether the test was run.
func (r Result) Ran() bool { return r.Selected && r.Skip == "" }

// passes reports whether impl passed the test.
func (r Result) passes(impl string) bool { return r.Outcomes[impl].Status == Pass }

// referencePasses is what ours is measured against: a LuaJIT block that
// sysbench passes (luajit when sysbench is left out); a Lua 5.1 file that
// lua5.1 passes and LuaJIT agrees with (sysbench, else luajit).
func (r Result) referencePasses(impls map[string]Impl) bool {
	luaJIT := "sysbench"
	if impls[luaJIT].Path == "" {
		luaJIT = "luajit"
	}
	if r.Suite == "lua5.1" && !r.passes("lua5.1") {
		return false
	}
	return r.passes(luaJIT)
}

// luajitResults loads and classifies the LuaJIT suite's blocks, filtered
// by -run (a block -run leaves out is not selected).
func luajitResults(cfg config) ([]Result, error) {
	blocks, err := LoadLuaJITSuite(cfg.luajitTests, cfg.tags)
	if err != nil {
		return nil, err
	}
	var rs []Result
	for _, b := range blocks {
		r := Result{Suite: "luajit", File: b.File, Name: b.Name, Index: b.Index, Line: b.Line,
			Meta: b.Meta, Selected: b.Selected, Deselect: b.Deselect, Chunk: b.Chunk}
		if r.Selected && cfg.run != nil && !cfg.run.MatchString(r.ID()) {
			r.Selected, r.Deselect = false, "-run"
		}
		if e, ok := notPromisedFor(r.File, r.Name); ok {
			r.Category, r.Reason = e.Category, e.Reason
		}
		rs = append(rs, r)
	}
	return rs, nil
}

// runLuaJITSuite runs every selected block through each implementation,
// from the suite's directory so that `require "common.x"` resolves.
func runLuaJITSuite(ctx context.Context, cfg config, stderr io.Writer) ([]Result, error) {
	rs, err := luajitResults(cfg)
	if err != nil {
		return nil, err
	}
	// Entries that match nothing are stale after a change of the suite;
	// when none matches, this is another suite (a test's own).
	if unused := unusedNotPromised(rs); len(unused) < len(notPromised) {
		for _, e := range unused {
			fmt.Fprintf(stderr, "luasuite: warning: the not-promised entry %q matches no block of the suite\n", e.Match)
		}
	}
	// Relative, so that errors in common/ modules name files under dir.
	env := []string{"LUA_PATH=./?.lua;;"}
	place := func(Result, string) (string, []string, error) { return cfg.luajitTests, env, nil }
	return rs, runTests(ctx, cfg, rs, []string{"luajit", "sysbench", "ours"}, place, stderr)
}

// runLua51Suite runs every Lua 5.1 file through each implementation, each
// run in a fresh copy of the suite; LUA_PATH is what the suite's README
// asks for.
func runLua51Suite(ctx context.Context, cfg config, stderr io.Writer) ([]Result, error) {
	cases, err := LoadLua51Suite(cfg.lua51Tests)
	if err != nil {
		return nil, err
	}
	rs := make([]Result, 0, len(cases))
	for _, c := range cases {
		r := Result{Suite: "lua5.1", File: c.File, Selected: true, Skip: c.Skip, Chunk: c.Chunk}
		if cfg.run != nil && !cfg.run.MatchString(r.ID()) {
			r.Selected, r.Deselect = false, "-run"
		}
		rs = append(rs, r)
	}
	work := filepath.Join(cfg.out, "lua51-work")
	env := []string{"LUA_PATH=?;./?.lua;;"}
	place := func(r Result, impl string) (string, []string, error) {
		dir := filepath.Join(work, r.File, impl)
		return dir, env, copyDir(cfg.lua51Tests, dir)
	}
	err = runTests(ctx, cfg, rs, []string{"lua5.1", "luajit", "sysbench", "ours"}, place, stderr)
	if err != nil {
		return nil, err
	}
	return rs, os.RemoveAll(work) // the chunks and outputs are kept; the copies are not
}

// runTests runs the tests that are to run through impls, concurrently
// within -jobs, and stores the outcomes in rs. place prepares a test's
// working directory for an implementation and gives its environment.
func runTests(ctx context.Context, cfg config, rs []Result, impls []string,
	place func(r Result, impl string) (dir string, env []string, err error), stderr io.Writer) error {
	type ref struct{ test, impl int }
	var jobs []Job
	var refs []ref
	for i, r := range rs {
		if !r.Ran() {
			continue
		}
		rs[i].Outcomes = map[string]Outcome{}
		for k, name := range impls {
			im := cfg.impls[name]
			var dir string
			var env []string
			if im.Path != "" {
				var err error
				if dir, env, err = place(r, name); err != nil {
					return err
				}
			}
			jobs = append(jobs, Job{Impl: im, Chunk: r.Chunk, Dir: dir, Env: env})
			refs = append(refs, ref{i, k})
		}
	}
	suite := "LuaJIT"
	if len(rs) > 0 && rs[0].Suite == "lua5.1" {
		suite = "Lua 5.1"
	}
	fmt.Fprintf(stderr, "luasuite: %s suite: %d runs (%s), %d at a time\n", suite, len(jobs), strings.Join(impls, ", "), cfg.parallel)
	start := time.Now()
	last := start
	outs := RunAll(ctx, jobs, cfg.parallel, cfg.timeout, func(done int) {
		if time.Since(last) >= 15*time.Second && done < len(jobs) {
			last = time.Now()
			fmt.Fprintf(stderr, "luasuite: %d/%d after %s\n", done, len(jobs), time.Since(start).Round(time.Second))
		}
	})
	for j, o := range outs {
		rs[refs[j].test].Outcomes[impls[refs[j].impl]] = o
	}
	fmt.Fprintf(stderr, "luasuite: %s suite done in %s\n", suite, time.Since(start).Round(time.Second))
	return nil
}

// regressions are the promised tests the reference passes and ours fails.
func regressions(rs []Result, impls map[string]Impl) []Result {
	var out []Result
	for _, r := range rs {
		if r.Ran() && r.Category == "" && r.referencePasses(impls) && !r.passes("ours") {
			out = append(out, r)
		}
	}
	return out
}

// writeResults writes the results directory: results.json, failures.txt
// (the work list: what the reference passes and we fail), and for each
// test its chunk and each implementation's output.
func writeResults(cfg config, rs []Result) error {
	b, err := json.MarshalIndent(rs, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(cfg.out, "results.json"), b, 0o644); err != nil {
		return err
	}
	var fl strings.Builder
	for _, r := range regressions(rs, cfg.impls) {
		o := r.Outcomes["ours"]
		fmt.Fprintf(&fl, "%s\n\t%s\n", r.ID(), o.Error)
		if o.Source != "" {
			fmt.Fprintf(&fl, "\tline %d: %s\n", o.Line, o.Source)
		}
	}
	if err := os.WriteFile(filepath.Join(cfg.out, "failures.txt"), []byte(fl.String()), 0o644); err != nil {
		return err
	}
	if cfg.luajitTests != "" {
		var byFile strings.Builder
		printLuaJITRows(&byFile, cfg, rs, func(r Result) string { return r.File })
		if err := os.WriteFile(filepath.Join(cfg.out, "table-by-file.md"), []byte(byFile.String()), 0o644); err != nil {
			return err
		}
	}
	for _, r := range rs {
		if !r.Ran() {
			continue
		}
		if err := writeTest(filepath.Join(cfg.out, testDir(r)), r); err != nil {
			return err
		}
	}
	return nil
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// testDir is where a test's chunk and outputs go in the results directory.
func testDir(r Result) string {
	if r.Suite == "lua5.1" {
		return path.Join("lua51", r.File)
	}
	slug := strings.Trim(unsafeName.ReplaceAllString(r.Name, "_"), "_")
	if len(slug) > 60 {
		slug = slug[:60]
	}
	return path.Join("luajit", r.File, fmt.Sprintf("%03d-%s", r.Index, slug))
}

func writeTest(dir string, r Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "chunk.lua"), []byte(r.Chunk), 0o644); err != nil {
		return err
	}
	names := make([]string, 0, len(r.Outcomes))
	for name := range r.Outcomes {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		o := r.Outcomes[name]
		if o.Status == NotRun {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "status: %s\nexit: %d\nelapsed: %s\n", o.Status, o.Exit, o.Elapsed.Round(time.Millisecond))
		if o.Error != "" {
			fmt.Fprintf(&b, "error: %s\n", o.Error)
		}
		if o.Source != "" {
			fmt.Fprintf(&b, "line %d: %s\n", o.Line, o.Source)
		}
		fmt.Fprintf(&b, "--- stdout\n%s--- stderr\n%s", o.Stdout, o.Stderr)
		if err := os.WriteFile(filepath.Join(dir, name+".txt"), []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}
