package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
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
			out, code := signalled(t, c.sig, "[ 1s ]", "cpu", "--cpu-max-prime=2000", "--time=60", "--report-interval=1",
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
