package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

// signalled starts the program with args, reads its standard output until
// a line starting with after, sends it sig, and returns all it printed
// (standard output, then standard error) and its exit status. The process
// must end by itself: it is killed (and the test fails) after a minute.
func signalled(t *testing.T, sig syscall.Signal, after string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, testenv.Binary(t), args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	br := bufio.NewReader(stdout)
	for {
		line, err := br.ReadString('\n')
		out.WriteString(line)
		if strings.HasPrefix(line, after) {
			break
		}
		if err != nil {
			_ = cmd.Wait()
			t.Fatalf("no line starting with %q before the end:\n%s%s", after, out.String(), stderr.String())
		}
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(br)
	out.Write(rest)
	err = cmd.Wait()
	if ctx.Err() != nil {
		t.Fatalf("still running a minute after %v:\n%s%s", sig, out.String(), stderr.String())
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		t.Fatalf("killed by %v instead of exiting:\n%s%s", ws.Signal(), out.String(), stderr.String())
	}
	return out.String() + stderr.String(), cmd.ProcessState.ExitCode()
}

// TestSignalEndsRun: a run that SIGINT or SIGTERM cuts short prints and
// records what it measured, says on a line of its own that it was
// interrupted, and exits with the shell's status for the signal (128 + its
// number), which a script tells from success. The results file keeps every
// reason that applies: interrupted first, and the threshold it missed.
func TestSignalEndsRun(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		sig  syscall.Signal
		name string
		code int
	}{
		{syscall.SIGINT, "SIGINT", 130},
		{syscall.SIGTERM, "SIGTERM", 143},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "r.json")
			out, code := signalled(t, c.sig, "[ 1s ]", "cpu", "--cpu-max-prime=2000", "--rate=100", "--time=60", "--report-interval=1",
				"--threshold=tps>1000000000", "--results="+path, "run")
			noPanic(t, out)
			if code != c.code {
				t.Errorf("exit %d, want %d\n%s", code, c.code, out)
			}
			line := "\nThe run was interrupted by " + c.name + ": the report covers what it measured until then\n"
			if !strings.Contains(out, line) {
				t.Errorf("no line %q:\n%s", strings.TrimSpace(line), out)
			}
			if !strings.Contains(out, "General statistics:") || strings.Contains(out, "FATAL") {
				t.Errorf("want the final report and no FATAL line:\n%s", out)
			}
			res := readResults(t, path)
			want := []string{"interrupted", "thresholds_failed"}
			if res.Exit.Status != c.code || res.Exit.Reason != "interrupted" || !slices.Equal(res.Exit.Reasons, want) {
				t.Errorf("results file's exit %+v, want status %d and reasons %q", res.Exit, c.code, want)
			}
			if res.Total == nil || res.Total.Counters.Events == 0 {
				t.Errorf("the results file lacks what the run measured: %+v", res.Total)
			}
		})
	}
}

// TestSignalEndsPrepare: SIGINT during a prepare's bulk insert says the
// command was interrupted, in one line, and exits 130: no FATAL line that
// reads as a database fault (it was "db_bulk_insert_next() failed").
func TestSignalEndsPrepare(t *testing.T) {
	t.Parallel()
	for _, db := range []string{"mysql", "pgsql"} {
		t.Run(db, func(t *testing.T) {
			t.Parallel()
			f := newFaultDB(t, db)
			args := append([]string{"oltp_read_write", "--table-size=10000000"}, f.args...)
			out, code := signalled(t, syscall.SIGINT, "Inserting ", append(args, "prepare")...)
			noPanic(t, out)
			if code != 130 || strings.Contains(out, "FATAL") {
				t.Errorf("exit %d, want 130 and no FATAL line\n%s", code, out)
			}
			if !strings.HasSuffix(out, "\nThe 'prepare' command was interrupted by SIGINT\n") {
				t.Errorf("the last line does not say the prepare was interrupted:\n%s", out)
			}
		})
	}
}

// TestSignalBeforeStart: a signal while thread_init waits for the server
// cancels its query; the run says it was interrupted before it started,
// exits with the signal's status, and is not recorded as failed (no
// FATAL line for the query the signal cancelled).
func TestSignalBeforeStart(t *testing.T) {
	t.Parallel()
	for _, db := range []string{"mysql", "pgsql"} {
		t.Run(db, func(t *testing.T) {
			t.Parallel()
			srv := testenv.RequireServer(t, db)
			path := filepath.Join(t.TempDir(), "r.json")
			args := append([]string{"testdata/scripts/slow_init.lua", "--results=" + path}, srv.Args()...)
			out, code := signalled(t, syscall.SIGTERM, "thread_init waits", append(args, "run")...)
			noPanic(t, out)
			if code != 143 || strings.Contains(out, "FATAL") {
				t.Errorf("exit %d, want 143 and no FATAL line\n%s", code, out)
			}
			if !strings.HasSuffix(out, "\nThe run was interrupted by SIGTERM before it started\n") {
				t.Errorf("the last line does not say the run was interrupted before it started:\n%s", out)
			}
			res := readResults(t, path)
			if res.Exit.Status != 143 || !slices.Equal(res.Exit.Reasons, []string{"interrupted"}) || res.Total != nil {
				t.Errorf("results file's exit %+v, total %v: want 143, interrupted only, no total", res.Exit, res.Total)
			}
		})
	}
}

// ourRun is one of our commands run as a process, its standard output
// and standard error apart, the lines of standard error seen as they come.
type ourRun struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer
	mu     sync.Mutex
	stderr strings.Builder
	lines  chan string
	done   chan struct{}
}

func startOurs(t *testing.T, args ...string) *ourRun {
	t.Helper()
	r := &ourRun{cmd: exec.Command(testenv.Binary(t), args...), lines: make(chan string, 100), done: make(chan struct{})}
	r.cmd.Stdout = &r.stdout
	pipe, err := r.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.cmd.Process.Kill() })
	go func() {
		defer close(r.done)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			r.mu.Lock()
			r.stderr.WriteString(sc.Text() + "\n")
			r.mu.Unlock()
			select {
			case r.lines <- sc.Text():
			default:
			}
		}
	}()
	return r
}

// waitLine waits for a line of standard error that starts with s.
func (r *ourRun) waitLine(t *testing.T, s string) {
	t.Helper()
	timeout := time.After(time.Minute)
	for {
		select {
		case l := <-r.lines:
			if strings.HasPrefix(l, s) {
				return
			}
		case <-timeout:
			t.Fatalf("no line starting with %q within a minute:\n%s", s, r.errText())
		}
	}
}

func (r *ourRun) errText() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stderr.String()
}

// signal sends sig and returns the exit status, which must come within
// a minute and not be a death by the signal.
func (r *ourRun) signal(t *testing.T, sig syscall.Signal) int {
	t.Helper()
	if err := r.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() { <-r.done; ended <- r.cmd.Wait() }()
	select {
	case <-ended:
	case <-time.After(time.Minute):
		t.Fatalf("still running a minute after %v:\n%s", sig, r.errText())
	}
	if ws, ok := r.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		t.Fatalf("killed by %v instead of exiting:\n%s", ws.Signal(), r.errText())
	}
	return r.cmd.ProcessState.ExitCode()
}

// fifo makes a named pipe and returns its path and a function that
// waits until the program has opened it for reading (it then waits for
// data that never comes: a file on a stalled disk or network share).
func fifo(t *testing.T, name string) (string, func()) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, func() {
		t.Helper()
		opened := make(chan *os.File, 1)
		go func() {
			// Blocks until a reader opens it.
			if f, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
				opened <- f
			}
		}()
		select {
		case f := <-opened:
			t.Cleanup(func() { f.Close() })
		case <-time.After(time.Minute):
			t.Fatalf("the program did not open %s within a minute", path)
		}
	}
}

// TestSignalEndsOurCommands: a signal that cuts one of our commands short
// ends it with 128 + the signal's number and one line on standard error
// saying so, whatever it was waiting for: a results file that does not
// come (report, the gate), a script file (deploy), instances that are not
// ready (start), a running cell (compare; TestCompareMatrix has the first
// SIGINT's stop after the cell). Nothing on standard output (issue 48,
// item 3: compare exited 1).
func TestSignalEndsOurCommands(t *testing.T) {
	t.Parallel()
	t.Run("report", func(t *testing.T) {
		t.Parallel()
		path, opened := fifo(t, "r.json")
		r := startOurs(t, "report", path)
		opened()
		checkOursInterrupted(t, r, syscall.SIGINT, "The 'report' command was interrupted by SIGINT")
	})
	t.Run("gate", func(t *testing.T) {
		t.Parallel()
		path, opened := fifo(t, "base.json")
		r := startOurs(t, "report", "--baseline="+path, filepath.Join(t.TempDir(), "new.json"))
		opened()
		checkOursInterrupted(t, r, syscall.SIGTERM, "The 'report' command was interrupted by SIGTERM")
	})
	t.Run("deploy", func(t *testing.T) {
		t.Parallel()
		path, opened := fifo(t, "mine.lua")
		r := startOurs(t, "deploy", "kubernetes", "--instances=2", path, "--time=10", "run")
		opened()
		checkOursInterrupted(t, r, syscall.SIGINT, "The 'deploy' command was interrupted by SIGINT")
	})
	t.Run("start", func(t *testing.T) {
		t.Parallel()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		url := "http://" + ln.Addr().String()
		ln.Close() // refused: never ready
		r := startOurs(t, "start", "--ready-timeout=600", url)
		r.waitLine(t, "Waiting at most 10m0s for 1 instances to be ready")
		checkOursInterrupted(t, r, syscall.SIGINT, "The 'start' command was interrupted by SIGINT")
	})
	t.Run("compare", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		matrix := filepath.Join(dir, "m.toml")
		doc := fmt.Sprintf("time = 60\nthreads = [1]\n\n[[target]]\nname = \"lite\"\ndriver = \"sqlite\"\noptions = { sqlite-db = %q }\n\n"+
			"[[workload]]\nname = \"ps\"\nscript = \"oltp_point_select\"\noptions = { tables = 1, table-size = 100, rate = 50 }\n", filepath.Join(dir, "a.db"))
		if err := os.WriteFile(matrix, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		r := startOurs(t, "compare", "--matrix="+matrix, "--dir="+filepath.Join(dir, "cmp"))
		r.waitLine(t, "compare: cell 1 of 1")
		checkOursInterrupted(t, r, syscall.SIGTERM, "The comparison was interrupted by SIGTERM: 1 of 1 cells not done; run the same command again to resume")
		if !strings.Contains(r.stdout.String(), "\nReports: ") {
			t.Errorf("no tables of what was done:\n%s", r.stdout.String())
		}
	})
	// The reader of the output went away (| head): 141, and no line.
	for _, args := range [][]string{{"man"}, {"completion", "bash"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			rd, wr, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			rd.Close()
			cmd := exec.Command(testenv.Binary(t), args...)
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = wr, &stderr
			err = cmd.Run()
			wr.Close()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 141 || stderr.Len() > 0 {
				t.Errorf("exit %v, want 141 and nothing on standard error:\n%s", err, stderr.String())
			}
		})
	}
}

// checkOursInterrupted sends sig to r and wants the exit status of the
// signal, line as the last of standard error and no FATAL line; nothing
// on standard output but compare's tables of what it did until then.
func checkOursInterrupted(t *testing.T, r *ourRun, sig syscall.Signal, line string) {
	t.Helper()
	code := r.signal(t, sig)
	errText := r.errText()
	noPanic(t, errText)
	if want := 128 + int(sig); code != want {
		t.Errorf("exit %d, want %d\n%s", code, want, errText)
	}
	if !strings.HasSuffix(errText, "\n"+line+"\n") && errText != line+"\n" {
		t.Errorf("standard error does not end with %q:\n%s", line, errText)
	}
	out := r.stdout.String()
	if strings.Contains(errText+out, "FATAL") || (r.cmd.Args[1] != "compare" && out != "") {
		t.Errorf("a FATAL line, or something on standard output:\n%s\n%s", out, errText)
	}
}
