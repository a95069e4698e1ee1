package cli

import (
	"context"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sysbench-go/sysbench-go/report"
)

var longRunIntervals = flag.Int("longrun-intervals", 0, "report intervals of TestLongRunConstantMemory (default 5000, 1000 under -race; 86400: a day of 1 s intervals, as make soak runs it)")

// heapBound is how much the live heap may grow between the early
// intervals of a long run and its end, whatever their number: a run
// holding anything per interval grows by that times the count (a kept
// interval is some 500 bytes: 440 KiB at 1000 intervals, 40 MiB in a day).
const heapBound = 256 << 10

// liveHeap is the heap in use after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// longRunChild names the environment variable that makes the test binary
// run TestLongRunConstantMemory's body: the test runs it in a process of
// its own.
const longRunChild = "SBTEST_LONGRUN_CHILD"

// A run of thousands of 1 s report intervals, under a test clock
// (testing/synctest: the fake clock moves on whenever every goroutine of
// the run waits), keeps its heap within a fixed bound of what it was after
// its first intervals; its results file, written as the intervals come,
// validates against the schema, holds every interval and merges with
// another run's.
//
// The heap measured is the whole process's: the test runs the run in a
// child process (the test binary itself, running this test alone), so
// that the other tests can run beside it.
func TestLongRunConstantMemory(t *testing.T) {
	if os.Getenv(longRunChild) == "" {
		t.Parallel()
		args := []string{"-test.run=^TestLongRunConstantMemory$", "-test.count=1", "-test.v",
			"-test.timeout=" + flag.Lookup("test.timeout").Value.String(),
			"-longrun-intervals=" + strconv.Itoa(*longRunIntervals)}
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), longRunChild+"=1")
		out, err := cmd.CombinedOutput()
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if l = strings.TrimSpace(l); strings.HasPrefix(l, "longrun_test.go:") {
				t.Log(l)
			}
		}
		if err != nil || !strings.Contains(string(out), "--- PASS: TestLongRunConstantMemory") {
			t.Fatalf("the run in a process of its own: %v\n%s", err, out)
		}
		return
	}
	n := *longRunIntervals
	if n == 0 {
		n = 5000
		if raceEnabled {
			n = 1000
		}
	}
	dir := t.TempDir()
	long, short := filepath.Join(dir, "long.json"), filepath.Join(dir, "short.json")
	var early, late uint64
	var code, shortCode int
	var partial int64 = -1
	synctest.Test(t, func(t *testing.T) {
		go func() {
			// Heap in use after the first 100 intervals and near the
			// end; the file being written meanwhile (beside the target,
			// put in place at the end) already holds the intervals.
			time.Sleep(100*time.Second + 500*time.Millisecond)
			early = liveHeap()
			time.Sleep(time.Duration(n-110) * time.Second)
			late = liveHeap()
			if m, _ := filepath.Glob(filepath.Join(dir, ".long.json.*")); len(m) == 1 {
				if fi, err := os.Stat(m[0]); err == nil {
					partial = fi.Size()
				}
			}
		}()
		code = run(context.Background(), []string{"testdata/scripts/slow_event.lua", "--threads=2",
			"--time=" + strconv.Itoa(n), "--report-interval=1", "--percentile=50,95,99.9", "--results=" + long, "run"},
			strings.NewReader(""), io.Discard, io.Discard)
		shortCode = run(context.Background(), []string{"testdata/scripts/slow_event.lua", "--threads=2",
			"--time=5", "--report-interval=1", "--results=" + short, "run"},
			strings.NewReader(""), io.Discard, io.Discard)
	})
	if code != 0 || shortCode != 0 {
		t.Fatalf("exit status %d and %d", code, shortCode)
	}
	t.Logf("%d intervals: live heap %d KiB after 100, %d KiB near the end", n, early>>10, late>>10)
	if late > early+heapBound {
		t.Errorf("the live heap grew by %d KiB over %d intervals (bound %d KiB)", (late-early)>>10, n-110, heapBound>>10)
	}
	if partial < int64(n-110)*400 {
		t.Errorf("the results file held %d bytes near the end of the run: its intervals are not written as they come", partial)
	}
	r, err := report.ReadFile(long) // checks it against the schema
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Intervals) < n-1 || len(r.Intervals) > n || r.Total == nil || r.Exit.Reason != "completed" {
		t.Fatalf("%d intervals, total %v, exit %+v", len(r.Intervals), r.Total != nil, r.Exit)
	}
	var events uint64
	for i, iv := range r.Intervals {
		// 2 threads, 4 events a second each; those ending as an
		// interval ends fall on either side of it.
		if (iv.Counters.Events < 6 || iv.Counters.Events > 10) && i < len(r.Intervals)-1 {
			t.Fatalf("interval %d at %g s: %d events, want 8", i, iv.Time, iv.Counters.Events)
		}
		events += iv.Counters.Events
	}
	if total := r.Total.Counters.Events; total < events || total > events+10 { // the last second: one interval at most
		t.Errorf("%d events in the total, %d in the intervals", total, events)
	}
	merged := filepath.Join(dir, "merged.json")
	if out, code := runCLI(t, "report", "--results="+merged, long, short); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, out)
	}
	m, err := report.ReadFile(merged)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := report.ReadFile(short)
	if want := r.Total.Counters.Events + s.Total.Counters.Events; m.Total.Counters.Events != want || len(m.Parts) != 2 {
		t.Errorf("merged %d events of %d parts, want %d of 2", m.Total.Counters.Events, len(m.Parts), want)
	}
}

// A results file that the disk cannot hold — the intervals written as
// they come meet a full disk mid-run — costs the file, not the run: the
// run prints its whole report, then one FATAL line, and exits 1; nothing
// is left where the file was to be. (Needs root, for a tmpfs of 8 KiB.)
func TestResultsOnAFullDisk(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "full")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=8k", "tmpfs", dir).CombinedOutput(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("cannot mount a tmpfs (CI runs as root): %v %s", err, out)
		}
		t.Skipf("cannot mount a tmpfs (not root?): %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", dir).Run() })
	res := filepath.Join(dir, "r.json")
	out, code := runCLI(t, "cpu", "--cpu-max-prime=2000", "--threads=2", "--rate=100", "--time=3", "--report-interval=1",
		"--results="+res, "run")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	fatals := fatalLines(out)
	want := "FATAL: cannot write the results file '" + res + "': no space left on device"
	if len(fatals) != 1 || fatals[0] != want || !strings.Contains(out, "Threads fairness") {
		t.Errorf("FATAL lines %q, want [%q] after the report\n%s", fatals, want, out)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left on the disk: %v", left)
	}
}
