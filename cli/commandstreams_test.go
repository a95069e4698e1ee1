package cli

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sysbench-go/sysbench-go/builtin"
	"github.com/sysbench-go/sysbench-go/lua"
)

// runToFile runs the program in-process with standard output redirected
// to a file, as `sysbench-go ... > out` does, and returns what the file
// holds, what went to standard error and the exit status.
func runToFile(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(""), f, &errb)
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(b), errb.String(), code
}

// TestOurCommandsDiagnosticsOnStderr: every command of ours puts what it
// is asked to produce on standard output and every diagnostic (FATAL and
// WARNING lines, a usage printed for a mistake, what it is doing) on
// standard error, so that `deploy ... > run.yaml` shows its error on the
// terminal and never writes it into the file (issue 48, item 2). The
// sysbench drop-in keeps the reference's streams (TestReferenceShapes).
func TestOurCommandsDiagnosticsOnStderr(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	matrix := filepath.Join(dir, "m.toml")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String() // nothing listens there once closed
	ln.Close()
	doc := fmt.Sprintf("threads = [1]\n\n[[target]]\nname = \"gone\"\ndriver = \"pgsql\"\noptions = { pgsql-host = \"127.0.0.1\", pgsql-port = %s }\n\n[[workload]]\nname = \"ps\"\nscript = \"oltp_point_select\"\n",
		closed[strings.LastIndex(closed, ":")+1:])
	if err := os.WriteFile(matrix, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "none.json")
	for _, c := range []struct {
		name string
		args []string
		// stderr holds these; output is what standard output may hold
		// besides (nothing when empty)
		stderr []string
		output string
	}{
		{"report no file", []string{"report"}, []string{"FATAL: report: no results file given"}, ""},
		{"report missing file", []string{"report", missing}, []string{"FATAL: cannot read '" + missing + "'"}, ""},
		{"report bad option", []string{"report", "--bogus", missing}, []string{"invalid option: --bogus"}, ""},
		{"gate missing baseline", []string{"report", "--baseline=" + missing, missing}, []string{"FATAL: --baseline: cannot read"}, ""},
		{"gate option without baseline", []string{"report", "--gate=tps", missing}, []string{"FATAL: report: --gate needs --baseline"}, ""},
		{"compare no matrix", []string{"compare"}, []string{"FATAL: compare: --matrix=FILE and --dir=DIR are needed"}, ""},
		{"compare no comparison", []string{"compare", "--report", "--dir=" + dir}, []string{"FATAL: compare: no comparison in"}, ""},
		{"compare bad format", []string{"compare", "--format=html", "--report", "--dir=" + dir}, []string{"FATAL: compare: --format must be text or markdown"}, ""},
		{"compare unreachable target", []string{"compare", "--matrix=" + matrix, "--plan"}, []string{`target "gone": not reachable`}, ""},
		{"start no endpoint", []string{"start"}, []string{"FATAL: start: no instance endpoint given"}, ""},
		{"start bad option", []string{"start", "--instances=x", "http://" + closed}, []string{"FATAL: start: Invalid value for --instances"}, ""},
		{"start unreachable", []string{"start", "--ready-timeout=1", "http://" + closed},
			[]string{"Waiting at most 1s for 1 instances to be ready...", "FATAL: start: 1 of 1 instances not ready after 1s"}, ""},
		{"deploy no target", []string{"deploy"}, []string{"Usage:", "deploy kubernetes --instances=N"}, ""},
		{"deploy other target", []string{"deploy", "docker", "--instances=2", "cpu", "run"}, []string{"FATAL: deploy: 'docker': the only target is kubernetes"}, ""},
		{"deploy password", []string{"deploy", "kubernetes", "--instances=2", "oltp_read_write", "--db-driver=pgsql", "--pgsql-password=secret", "run"},
			[]string{"FATAL: deploy: --pgsql-password would be written in the manifests"}, ""},
		{"deploy mistyped option", []string{"deploy", "kubernetes", "--instances=2", "oltp_read_write", "--tablez=1", "run"}, []string{"FATAL: deploy: invalid option: --tablez=1"}, ""},
		{"deploy bad value", []string{"deploy", "kubernetes", "--instances=2", "cpu", "--threads=x", "run"}, []string{"FATAL: Invalid value for the 'threads' option: 'x'"}, ""},
		// Made, with a warning about the run's options: the manifests
		// alone are the output.
		{"deploy with a warning", []string{"deploy", "kubernetes", "--instances=2", "cpu", "--max-time=10", "run"}, []string{"WARNING: "}, "kind: Job"},
		{"completion no shell", []string{"completion"}, []string{"Usage:", "completion bash|zsh"}, ""},
		{"completion other shell", []string{"completion", "fish"}, []string{"FATAL: completion: the shells are bash and zsh, not 'fish'"}, ""},
		{"completion bad option", []string{"completion", "--bogus"}, []string{"invalid option: --bogus"}, ""},
		{"man extra argument", []string{"man", "extra"}, []string{"FATAL: man: unexpected argument 'extra'"}, ""},
		{"man bad option", []string{"man", "--bogus"}, []string{"invalid option: --bogus"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			stdout, stderr, code := runToFile(t, c.args...)
			if (code == 0) != (c.output != "") {
				t.Errorf("exit %d", code)
			}
			for _, want := range c.stderr {
				if !strings.Contains(stderr, want) {
					t.Errorf("standard error lacks %q:\n%s", want, stderr)
				}
				if strings.Contains(stdout, want) {
					t.Errorf("standard output holds %q:\n%s", want, stdout)
				}
			}
			if c.output == "" && stdout != "" {
				t.Errorf("standard output holds something, want nothing:\n%s", stdout)
			}
			if c.output != "" && !strings.Contains(stdout, c.output) {
				t.Errorf("standard output lacks %q:\n%s", c.output, stdout)
			}
			for _, diag := range []string{"FATAL", "WARNING", "invalid option", "Usage:"} {
				if strings.Contains(stdout, diag) {
					t.Errorf("a diagnostic (%s) on standard output:\n%s", diag, stdout)
				}
			}
		})
	}
}

// placeholderRE matches what a help text shows when a name or value was
// not filled in: the shell's $0, a Go format verb left as is or its
// complaint (%!s(MISSING)), a template's own placeholders.
var placeholderRE = regexp.MustCompile(`\$0|%!|%(\[\d+\])?[-+# 0]*\d*(\.\d+)?[sdvqxXfgeT]\b|PROG_NAME|_PROG_FUNC|\{\{`)

// TestHelpHasNoPlaceholders: the manual page and every help text are made
// from the same tables with the program's name filled in: none shows a
// literal $0 (the manual page did, five times), a format verb or a
// template's placeholder, under either name (issue 48, item 5).
func TestHelpHasNoPlaceholders(t *testing.T) {
	t.Parallel()
	cases := [][]string{{"--help"}, {"--db-driver=help"}, {"man"}, {"man", "--help"}, {"deploy"}, {"deploy", "--help"},
		{"completion"}, {"completion", "--help"}, {"completion", "bash"}, {"completion", "zsh"}, {"__complete", ""}}
	for _, c := range ourCommands() {
		cases = append(cases, []string{c.name, "--help"})
	}
	for _, w := range lua.Workloads {
		cases = append(cases, []string{w.Name, "help"})
	}
	for _, b := range builtin.Tests() {
		cases = append(cases, []string{b.Name, "help"})
	}
	for _, argv0 := range []string{"/usr/bin/sysbench-go", "/usr/local/bin/sysbench"} {
		for _, args := range cases {
			t.Run(filepath.Base(argv0)+" "+strings.Join(args, " "), func(t *testing.T) {
				t.Parallel()
				var out bytes.Buffer
				Run(context.Background(), argv0, args, strings.NewReader(""), &out, &out)
				if out.Len() == 0 {
					t.Fatal("no output")
				}
				for _, m := range placeholderRE.FindAllString(out.String(), -1) {
					t.Errorf("%q left in:\n%s", m, out.String())
				}
			})
		}
	}
}
