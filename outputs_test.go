package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

// runStreams runs the command line in-process and returns its standard
// output and standard error apart.
func runStreams(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

// cpuRun is a short built-in run that needs no server.
var cpuRun = []string{"cpu", "--cpu-max-prime=100", "--events=200", "--time=0"}

// Issue 28, item 1: --results never replaces what is not a regular file.
// A device, a FIFO, a directory or /dev/stdout is refused with one line
// before the run (nothing measured is then lost to it), for a run and for
// report alike; a symbolic link is followed.
func TestOutputsRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "in.json")
	if _, _, code := runStreams(t, append(append([]string{}, cpuRun...), "--results="+in, "run")...); code != 0 {
		t.Fatal("the input run failed")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append(append([]string{}, cpuRun...), "--results=/dev/null", "run"),
			"FATAL: --results: cannot write '/dev/null': a character device, not a regular file (- writes to standard output)\n"},
		{append(append([]string{}, cpuRun...), "--intervals-csv="+fifo, "run"),
			"FATAL: --intervals-csv: cannot write '" + fifo + "': a named pipe, not a regular file (- writes to standard output)\n"},
		{append(append([]string{}, cpuRun...), "--results=/dev/stdout", "run"),
			"FATAL: --results: cannot write '/dev/stdout': a file descriptor's name, not a file (- writes to standard output)\n"},
		{append(append([]string{}, cpuRun...), "--results=-", "--intervals-csv=-", "run"),
			"FATAL: --results and --intervals-csv cannot both be standard output (-)\n"},
		{[]string{"report", "--results=" + dir, in},
			"FATAL: --results: cannot write '" + dir + "': a directory, not a regular file (- writes to standard output)\n"},
	} {
		stdout, stderr, code := runStreams(t, c.args...)
		if code != 1 || stdout+stderr != c.want {
			t.Errorf("%q: exit %d, output\n%s%s\nwant exit 1 and\n%s", c.args, code, stdout, stderr, c.want)
		}
	}
}

// A symbolic link as --results: its target is written, the link stays.
func TestResultsThroughLink(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "target.json"), filepath.Join(dir, "link.json")
	if err := os.Symlink("target.json", link); err != nil {
		t.Fatal(err)
	}
	if _, _, code := runStreams(t, append(append([]string{}, cpuRun...), "--results="+link, "run")...); code != 0 {
		t.Fatal("the run failed")
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is no longer a link (%v)", err)
	}
	readResults(t, target)
}

// --results=- writes the document to standard output, and the text
// report to standard error, so that it can be piped (| jq).
func TestResultsToStdout(t *testing.T) {
	for _, args := range [][]string{
		append(append([]string{}, cpuRun...), "--results=-", "run"),
		{"report", "--results=-", "IN"},
	} {
		dir := t.TempDir()
		in := filepath.Join(dir, "in.json")
		if _, _, code := runStreams(t, append(append([]string{}, cpuRun...), "--results="+in, "run")...); code != 0 {
			t.Fatal("the input run failed")
		}
		for i := range args {
			if args[i] == "IN" {
				args[i] = in
			}
		}
		stdout, stderr, code := runStreams(t, args...)
		if code != 0 {
			t.Fatalf("%q: exit %d\n%s", args, code, stderr)
		}
		if err := testenv.ValidateResults([]byte(stdout)); err != nil {
			t.Errorf("%q: standard output is not a results document: %v\n%s", args, err, stdout)
		}
		if !strings.Contains(stderr, "General statistics:") {
			t.Errorf("%q: the text report is not on standard error:\n%s", args, stderr)
		}
	}
}

// A reader of standard output that goes away (| head) does not lose the
// results file: report writes it, and a run stops as on SIGINT and writes
// it, instead of dying of SIGPIPE.
func TestResultsAfterBrokenPipe(t *testing.T) {
	bin := testenv.Binary(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "in.json")
	if _, _, code := runStreams(t, append(append([]string{}, cpuRun...), "--results="+in, "run")...); code != 0 {
		t.Fatal("the input run failed")
	}
	for _, c := range []struct {
		name, results string
		args          []string
		lines         int // read before going away
	}{
		// Gone before the first line: every write fails.
		{"report", "report.json", []string{"report", "--histogram", in}, 0},
		// Gone after the banner: the next interval's line fails.
		{"run", "run.json", []string{"cpu", "--cpu-max-prime=20000", "--time=30", "--report-interval=1", "run"}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			results := filepath.Join(dir, c.results)
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, append(c.args, "--results="+results)...)
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stdout = w
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if c.lines == 0 {
				r.Close()
			}
			err = cmd.Start()
			w.Close()
			if err != nil {
				t.Fatal(err)
			}
			if c.lines > 0 {
				br := bufio.NewReader(r)
				for range c.lines {
					br.ReadString('\n')
				}
				r.Close()
			}
			err = cmd.Wait()
			if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				t.Fatalf("killed by %v", ws.Signal())
			}
			if ctx.Err() != nil {
				t.Fatal("it did not stop when its reader went away")
			}
			res := readResults(t, results)
			if c.name == "run" && res.Exit.Reason != "interrupted" {
				t.Errorf("the run ended %q, want interrupted (%v)", res.Exit.Reason, err)
			}
			if c.name == "report" && err != nil {
				t.Errorf("report: %v\n%s", err, stderr.String())
			}
		})
	}
}
