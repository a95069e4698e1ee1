package authoring

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sysbench-go/sysbench-go/lua"
	"github.com/sysbench-go/sysbench-go/options"
)

var update = flag.Bool("update", false, "rewrite the expected findings of testdata/check")

// testConfig knows two of a run's own options, as the command line's
// general options would (cli passes them all).
var testConfig = Config{Bundled: lua.Scripts, Options: []options.Option{{Name: "threads"}, {Name: "time"}}}

// TestCheckKinds: each kind of finding has a script of its own in
// testdata/check, named after it, and its findings are the ones in the
// .txt beside it (go test -update rewrites them), the kind named among
// them.
func TestCheckKinds(t *testing.T) {
	t.Parallel()
	for _, kind := range Kinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			script := filepath.Join("testdata", "check", string(kind)+".lua")
			rep, err := Check(testConfig, []string{script})
			if err != nil || len(rep.Errors) > 0 {
				t.Fatal(err, rep.Errors)
			}
			var got bytes.Buffer
			if err := rep.WriteText(&got); err != nil {
				t.Fatal(err)
			}
			golden := strings.TrimSuffix(script, ".lua") + ".txt"
			if *update {
				if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != string(want) {
				t.Errorf("findings of %s:\n%s\nwant:\n%s", script, got.String(), want)
			}
			if !slices.ContainsFunc(rep.Findings, func(f Finding) bool { return f.Kind == kind }) {
				t.Errorf("%s has no finding of its kind %s", script, kind)
			}
		})
	}
}

// TestCheckClean: the shapes real scripts are written in give no finding.
func TestCheckClean(t *testing.T) {
	t.Parallel()
	rep, err := Check(testConfig, []string{"testdata/check/clean.lua"})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	_ = rep.WriteText(&out)
	if len(rep.Findings) > 0 || len(rep.Errors) > 0 {
		t.Errorf("findings in clean.lua:\n%s%v", out.String(), rep.Errors)
	}
	if rep.Scripts != 1 || rep.Lines != 64 {
		t.Errorf("scripts %d, lines %d; want 1, 64", rep.Scripts, rep.Lines)
	}
}

// TestCheckModules: a module is judged within the scripts beside it that
// load it (a global it reads is defined by them), a script with the
// modules it loads (findings in them included, once), and a bundled
// workload by its name.
func TestCheckModules(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	common := write("common.lua", "sysbench.cmdline.options = {rows = {'rows', 1}}\n"+
		"function thread_init() con = sysbench.sql.driver():connect(); prepare_statements() end\n"+
		"function helper() return sysbench.rand.unifrom(1, sysbench.opt.rows) end\n")
	script := write("a.lua", "require('common')\nfunction prepare_statements() end\nfunction event() helper() end\n")
	write("b.lua", "require('common')\nfunction prepare_statements() end\nfunction event() con:query('SELECT 1') end\n")
	want := common + ":3:40: sysbench.rand has no function 'unifrom' (did you mean 'uniform'?) [unknown-field]\n"
	for _, names := range [][]string{{common}, {script}, {script, common}} {
		rep, err := Check(testConfig, names)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		_ = rep.WriteText(&out)
		if out.String() != want {
			t.Errorf("check %v:\n%s\nwant:\n%s", names, out.String(), want)
		}
	}
	rep, err := Check(testConfig, []string{"oltp_read_write", "no_such_workload"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Scripts != 1 || len(rep.Findings) != 0 || len(rep.Errors) != 1 ||
		rep.Errors[0].Error() != "no_such_workload: no such file or bundled workload" {
		t.Errorf("bundled: %+v", rep)
	}
}

// TestCheckJSON: the JSON document's shape (docs/writing-workloads.md).
func TestCheckJSON(t *testing.T) {
	t.Parallel()
	rep, err := Check(testConfig, []string{"testdata/check/arity.lua", "missing.lua"})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := rep.WriteJSON(&out); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Version  int `json:"version"`
		Scripts  int `json:"scripts"`
		Lines    int `json:"lines"`
		Findings []struct {
			File    string `json:"file"`
			Line    int    `json:"line"`
			Column  int    `json:"column"`
			Kind    string `json:"kind"`
			Message string `json:"message"`
		} `json:"findings"`
		Errors []string `json:"errors"`
	}
	dec := json.NewDecoder(&out)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != 1 || doc.Scripts != 1 || len(doc.Findings) != 5 || len(doc.Errors) != 1 {
		t.Fatalf("%+v", doc)
	}
	f := doc.Findings[0]
	if f.File != "testdata/check/arity.lua" || f.Line != 7 || f.Column != 24 || f.Kind != "arity" ||
		f.Message != "sql_statement:bind_create takes 1 or 2 arguments, given 0" {
		t.Errorf("first finding %+v", f)
	}
}
