package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// checkDoc is check's --format=json document.
type checkDoc struct {
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

// runCheck runs check --format=json over files and decodes its document.
func runCheck(t *testing.T, files []string) (checkDoc, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"check", "--format=json"}, files...), strings.NewReader(""), &out, &errb)
	var doc checkDoc
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("check's JSON: %v\n%s%s", err, out.String(), errb.String())
	}
	return doc, code
}

func globAll(t *testing.T, patterns ...string) []string {
	t.Helper()
	var files []string
	for _, p := range patterns {
		m, err := filepath.Glob(p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	return files
}

// TestCheckNoFalseAlarm runs check over the bundled workloads, sysbench's
// own scripts (/usr/share/sysbench, from the sysbench package CI
// installs; with SYSBENCH_SRC=<checkout of sysbench 1.0.20>, its test
// suite's scripts too) and the community-style scripts of our testdata.
// Its findings must be exactly these, each a real defect
// (docs/writing-workloads.md, "What check finds in real scripts"): the
// reference's oltp_common.lua reads its --pgsql-variant option as a
// global, which a script that declares options never gets (its Redshift
// branch is dead); our testdata's deliberate mistakes (a syntax error, a
// script without event, SQL API misuse, options a completion fixture
// declares and never reads), and param_table.lua, which binds two
// parameters to a statement with one placeholder.
func TestCheckNoFalseAlarm(t *testing.T) {
	t.Parallel()
	type set struct {
		name  string
		files []string
		want  []string // base name:line:column kind
	}
	sets := []set{
		{"bundled workloads", globAll(t, "../lua/*.lua"), nil},
		{"community-style testdata", globAll(t, "testdata/scripts/*.lua", "testdata/complete/*.lua",
			"testdata/lua-kernels/*.lua", "../luaapi/testdata/*.lua"), []string{
			"bad_syntax.lua:3:5 syntax",
			"no_event.lua:1:1 no-event",
			"param_table.lua:10:6 parameter-count",
			"fails.lua:2:29 unused-option",
			"loops.lua:3:29 unused-option",
			"side_effects.lua:20:3 unused-option",
			"sql_misuse.lua:32:29 parameter-count",
			"sql_misuse.lua:114:25 parameter-count",
		}},
	}
	if sys := globAll(t, "/usr/share/sysbench/*.lua"); len(sys) > 0 {
		sets = append(sets, set{"sysbench's scripts", sys, []string{"oltp_common.lua:176:14 undefined-global"}})
	} else if os.Getenv("CI") == "true" {
		t.Error("no /usr/share/sysbench/*.lua: CI installs the sysbench package")
	}
	if src := os.Getenv("SYSBENCH_SRC"); src != "" {
		files := append(globAll(t, filepath.Join(src, "tests/include/*.lua"), filepath.Join(src, "tests/include/oltp_legacy/*.lua")),
			testSuiteScripts(t, src)...)
		sets = append(sets, set{"sysbench's test suite", files, []string{
			"api_basic.t-4.lua:2:1 syntax",       // a script of "foo" (deliberate)
			"cmdline.t-2.lua:10:3 unused-option", // --int-opt3, never printed
		}})
	}
	for _, s := range sets {
		doc, code := runCheck(t, s.files)
		var got []string
		for _, f := range doc.Findings {
			got = append(got, fmt.Sprintf("%s:%d:%d %s", filepath.Base(f.File), f.Line, f.Column, f.Kind))
		}
		if !slices.Equal(got, s.want) || len(doc.Errors) > 0 || code != min(len(got), 1) {
			t.Errorf("%s: status %d, findings:\n%s\nwant:\n%s\nerrors: %v", s.name, code,
				strings.Join(got, "\n"), strings.Join(s.want, "\n"), doc.Errors)
		}
		t.Logf("%s: %d scripts, %d lines, %d findings", s.name, doc.Scripts, doc.Lines, len(doc.Findings))
	}
}

// testSuiteScripts writes the Lua scripts sysbench's cram tests hold in
// here-documents (cat >x.lua <<EOF ... EOF) to files of their own,
// NAME.t-N.lua for the N-th of NAME.t, and returns them.
func testSuiteScripts(t *testing.T, src string) []string {
	t.Helper()
	start := regexp.MustCompile(`^\s*\$ cat\s*>\s*\S+\.lua\s*<<\s*['"]?(\w+)['"]?\s*$`)
	dir := t.TempDir()
	var files []string
	for _, tf := range globAll(t, filepath.Join(src, "tests/t/*.t")) {
		b, err := os.ReadFile(tf)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		n := 0
		for i := 0; i < len(lines); i++ {
			m := start.FindStringSubmatch(lines[i])
			if m == nil {
				continue
			}
			end := regexp.MustCompile(`^\s*>\s*` + m[1] + `\s*$`)
			var body []string
			for i++; i < len(lines) && !end.MatchString(lines[i]); i++ {
				body = append(body, regexp.MustCompile(`^\s*> ?`).ReplaceAllString(lines[i], ""))
			}
			n++
			f := filepath.Join(dir, fmt.Sprintf("%s-%d.lua", filepath.Base(tf), n))
			if err := os.WriteFile(f, []byte(strings.Join(body, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
	}
	return files
}

// TestCheckStatus: check's exit statuses (0 nothing found, 1 findings,
// 2 a script it could not check or a wrong command line), its text lines
// and where its errors go.
func TestCheckStatus(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.lua")
	bad := filepath.Join(dir, "bad.lua")
	for f, src := range map[string]string{
		good: "function event() sysbench.rand.uniform(1, 2) end\n",
		bad:  "function event()\n  sysbench.rand.uniform(1)\nend\n",
	} {
		if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		args         []string
		code         int
		stdout, errs string
	}{
		{[]string{good}, 0, "", "check: 1 script, 1 line: nothing found\n"},
		{[]string{good, bad}, 1, bad + ":2:17: sysbench.rand.uniform takes 2 arguments, given 1 [arity]\n",
			"check: 2 scripts, 4 lines: 1 finding\n"},
		{[]string{good, filepath.Join(dir, "none.lua")}, 2, "",
			"FATAL: check: " + filepath.Join(dir, "none.lua") + ": no such file or bundled workload\n"},
		{nil, 2, "", "FATAL: check: no script given (usage: sysbench-go check [--format=json] SCRIPT...)\n"},
		{[]string{"--format=xml", good}, 2, "", "FATAL: check: --format must be text or json, not 'xml'\n"},
		{[]string{"--no-such-option", good}, 2, "", "invalid option: --no-such-option\n"},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), append([]string{"check"}, c.args...), strings.NewReader(""), &out, &errb)
		if code != c.code || out.String() != c.stdout || errb.String() != c.errs {
			t.Errorf("check %v: status %d\nstdout:\n%s\nstderr:\n%s\nwant %d\nstdout:\n%s\nstderr:\n%s", c.args, code,
				out.String(), errb.String(), c.code, c.stdout, c.errs)
		}
	}
}
