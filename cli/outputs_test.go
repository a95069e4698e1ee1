package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
// it, instead of dying of SIGPIPE; both exit with its status (141).
func TestResultsAfterBrokenPipe(t *testing.T) {
	t.Parallel()
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
			// Its output was cut short: SIGPIPE's status, as a run's.
			if ee := (*exec.ExitError)(nil); c.name == "report" && (!errors.As(err, &ee) || ee.ExitCode() != 141) {
				t.Errorf("report: %v, want exit status 141\n%s", err, stderr.String())
			}
		})
	}
}

// Issue 37 item 5: no command writes over one of its own inputs, whatever
// the name the output is given (the same path, ./, a symbolic link, a
// hard link): refused with one line and exit 1, the input left as it was.
func TestOutputIsNotAnInput(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, f := range []string{"c1.json", "c2.json"} {
		if _, _, code := runStreams(t, append(append([]string{}, cpuRun...), "--results="+f, "run")...); code != 0 {
			t.Fatal("the input run failed")
		}
	}
	if err := os.Symlink("c1.json", "link.json"); err != nil {
		t.Fatal(err)
	}
	if err := os.Link("c1.json", "hard.json"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir("parts", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link("c2.json", "parts/p.json"); err != nil {
		t.Fatal(err)
	}
	script := "#!/usr/bin/env sysbench-go\nfunction event() end\n"
	for name, body := range map[string]string{"noop": script, "opts": "threads=1\n", "sbtest": "not a database\n"} {
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := map[string][]byte{}
	for _, f := range []string{"c1.json", "c2.json", "noop", "opts", "sbtest"} {
		before[f], _ = os.ReadFile(f)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "--results=c1.json", "c1.json", "c2.json"},
			"FATAL: --results: cannot write 'c1.json': it is a results file this command reads\n"},
		{[]string{"report", "--results=./c2.json", "c1.json", "c2.json"},
			"FATAL: --results: cannot write './c2.json': it is 'c2.json', a results file this command reads\n"},
		{[]string{"report", "--results=link.json", "c1.json", "c2.json"},
			"FATAL: --results: cannot write 'link.json': it is 'c1.json', a results file this command reads\n"},
		{[]string{"report", "--results=hard.json", "c2.json", "c1.json"},
			"FATAL: --results: cannot write 'hard.json': it is 'c1.json', a results file this command reads\n"},
		{[]string{"report", "--results=" + dir + "/c2.json", "parts"},
			"FATAL: --results: cannot write '" + dir + "/c2.json': it is 'parts/p.json', a results file this command reads\n"},
		{[]string{"./noop", "--time=1", "--results=noop", "run"},
			"FATAL: --results: cannot write 'noop': it is './noop', the script this command reads\n"},
		{append(append([]string{}, cpuRun...), "--config-file=opts", "--intervals-csv=./opts", "run"),
			"FATAL: --intervals-csv: cannot write './opts': it is 'opts', the --config-file this command reads\n"},
		{[]string{"oltp_point_select", "--db-driver=sqlite", "--sqlite-db=sbtest", "--time=1", "--results=sbtest", "run"},
			"FATAL: --results: cannot write 'sbtest': it is the SQLite database (--sqlite-db) this command reads\n"},
		{append(append([]string{}, cpuRun...), "--results=out", "--intervals-csv=./out", "run"),
			"FATAL: --results and --intervals-csv name the same file ('out', './out')\n"},
	} {
		stdout, stderr, code := runStreams(t, c.args...)
		if code != 1 || stdout+stderr != c.want {
			t.Errorf("%q: exit %d, output\n%s%s\nwant exit 1 and\n%s", c.args, code, stdout, stderr, c.want)
		}
	}
	for f, b := range before {
		if now, _ := os.ReadFile(f); !bytes.Equal(now, b) {
			t.Errorf("%s was changed", f)
		}
	}
	if _, err := os.Stat("out"); err == nil {
		t.Error("a refused run made its output")
	}
	// A merged file written into the directory it read is no input: the
	// merge step of a distributed run does that.
	if _, stderr, code := runStreams(t, "report", "--results=parts/merged.json", "parts"); code != 0 {
		t.Errorf("report into the directory it read: exit %d\n%s", code, stderr)
	}
}

// Issue 37 item 11: a file name whose extension promises a format gets
// that format or a refusal before the run: --results and report's
// --results write JSON (x.json, or a name without an extension),
// --intervals-csv CSV (x.csv, or none).
func TestOutputExtensions(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if _, _, code := runStreams(t, append(append([]string{}, cpuRun...), "--results=in.json", "run")...); code != 0 {
		t.Fatal("the input run failed")
	}
	for _, c := range []struct {
		args []string
		want string // "" for a run that writes its outputs
	}{
		{append(append([]string{}, cpuRun...), "--results=x.csv", "run"),
			"FATAL: --results: cannot write JSON to 'x.csv': its name promises CSV (name it .json, or with no extension)\n"},
		{append(append([]string{}, cpuRun...), "--results=x.txt", "run"),
			"FATAL: --results: cannot write JSON to 'x.txt': its name promises text (name it .json, or with no extension)\n"},
		{append(append([]string{}, cpuRun...), "--results=x.res", "run"),
			"FATAL: --results: cannot write JSON to 'x.res': its extension .res is not .json (name it .json, or with no extension)\n"},
		{append(append([]string{}, cpuRun...), "--intervals-csv=x.json", "run"),
			"FATAL: --intervals-csv: cannot write CSV to 'x.json': its name promises JSON (name it .csv, or with no extension)\n"},
		{[]string{"report", "--results=m.csv", "in.json"},
			"FATAL: --results: cannot write JSON to 'm.csv': its name promises CSV (name it .json, or with no extension)\n"},
		{append(append([]string{}, cpuRun...), "--results=a.JSON", "--intervals-csv=a.csv", "run"), ""},
		{append(append([]string{}, cpuRun...), "--results=b", "--intervals-csv=c", "run"), ""},
		{append(append([]string{}, cpuRun...), "--results=round.3", "run"), ""},
		{[]string{"report", "--results=merged", "in.json"}, ""},
	} {
		stdout, stderr, code := runStreams(t, c.args...)
		if c.want == "" {
			if code != 0 {
				t.Errorf("%q: exit %d\n%s", c.args, code, stderr)
			}
			continue
		}
		if code != 1 || stdout+stderr != c.want {
			t.Errorf("%q: exit %d, output\n%s%s\nwant exit 1 and\n%s", c.args, code, stdout, stderr, c.want)
		}
	}
	for _, f := range []string{"x.csv", "x.txt", "x.res", "x.json", "m.csv"} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("a refused command made %s", f)
		}
	}
	for _, f := range []string{"a.JSON", "b", "round.3", "merged"} {
		readResults(t, f)
	}
}
