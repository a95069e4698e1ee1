package cli

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sysbench-go/sysbench-go/internal/testenv"
	"github.com/sysbench-go/sysbench-go/report"
)

// conflictRun prepares testdata/scripts/conflict.lua on db, in a database
// of the test's own, and runs it with args; it returns the output, the
// exit code and the results file.
func conflictRun(t *testing.T, db string, args ...string) (string, int, *report.Results) {
	t.Helper()
	script := append([]string{"testdata/scripts/conflict.lua"}, testenv.OwnDatabase(t, db).Args()...)
	if out, code := runCLI(t, append(script, "prepare")...); code != 0 {
		t.Fatalf("prepare: exit %d\n%s", code, out)
	}
	path := filepath.Join(t.TempDir(), "r.json")
	out, code := runCLI(t, append(append(script, args...), "--time=0", "--results="+path, "run")...)
	return out, code, readResults(t, path)
}

// Real deadlocks (MariaDB, PostgreSQL) and serialization failures
// (PostgreSQL, REPEATABLE READ): with --max-tries=1 every victim is a
// failed event, kept out of the latency statistics and counted by its
// code; with more tries the victims are retried.
func TestMaxTries(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, db, code string
		args           []string
	}{
		{"mysql deadlock", "mysql", "1213", []string{"--mode=deadlock"}},
		{"pgsql deadlock", "pgsql", "40P01", []string{"--mode=deadlock", "--pause=0.2"}},
		{"pgsql serialization", "pgsql", "40001", []string{"--mode=serialize"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			events := "40"
			if c.code == "40P01" {
				events = "6" // PostgreSQL finds each deadlock after deadlock_timeout (1 s)
			}
			out, code, res := conflictRun(t, c.db, append(c.args, "--threads=2", "--events="+events, "--max-tries=1", "--failures-detailed")...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, out)
			}
			w := res.Total
			f := w.Failures[c.code]
			if w.Counters.FailedEvents == 0 || f.Failed != w.Counters.FailedEvents || f.Retries != 0 || w.Counters.Retries != 0 {
				t.Fatalf("counters %+v, failures %v: want failed events of %s and no retry\n%s", w.Counters, w.Failures, c.code, out)
			}
			// Failed events are not timed: the latency covers the
			// transactions only, and the two add up to --events.
			if w.Latency.Events != w.Counters.Events || w.Latency.Histogram.Count != int64(w.Counters.Events) ||
				itoa(w.Counters.Events+w.Counters.FailedEvents) != events {
				t.Errorf("%d timed, %d in the histogram, %d transactions + %d failed, want %s in all",
					w.Latency.Events, w.Latency.Histogram.Count, w.Counters.Events, w.Counters.FailedEvents, events)
			}
			if n := counter(t, out, "failed events"); uint64(n) != w.Counters.FailedEvents {
				t.Errorf("report: %d failed events, results %d\n%s", n, w.Counters.FailedEvents, out)
			}
			label := report.ErrorLabel(c.code)
			if !strings.Contains(out, "Failures by error:\n    "+label+":") || label == c.code {
				t.Errorf("no line for %s in:\n%s", label, out)
			}

			out, code, res = conflictRun(t, c.db, append(c.args, "--threads=2", "--events="+events, "--max-tries=50")...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, out)
			}
			w = res.Total
			if w.Counters.Retries == 0 || w.Failures[c.code].Retries != w.Counters.Retries || w.Counters.RetriedEvents == 0 ||
				w.Counters.RetriedEvents > w.Counters.Retries || w.Counters.FailedEvents != 0 || itoa(w.Counters.Events) != events {
				t.Errorf("counters %+v, failures %v: want every event done, some after retries of %s\n%s", w.Counters, w.Failures, c.code, out)
			}
		})
	}
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

// Without --max-tries the report is the reference's: no lines of ours,
// however many events were restarted.
func TestDefaultReportWithoutRetryLines(t *testing.T) {
	t.Parallel()
	out, code, res := conflictRun(t, "mysql", "--threads=2", "--events=20")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if res.Total.Counters.Retries == 0 {
		t.Skipf("no deadlock this time:\n%s", out)
	}
	for _, l := range []string{"failed events:", "retried events:", "retries:", "Failures by error:"} {
		if strings.Contains(out, l) {
			t.Errorf("the default report has %q:\n%s", l, out)
		}
	}
}

// --threshold: a run that misses one exits 99 with the Thresholds block;
// one that meets all exits 0; a malformed one is refused before the run.
func TestThresholdExit(t *testing.T) {
	t.Parallel()
	base := []string{"cpu", "--events=200", "--time=0"}
	out, code := runCLI(t, append(base, "--threshold=tps>0", "--threshold=max<1h", "run")...)
	if code != 1 || !strings.Contains(out, "unit 'h' is not one of us, ms, s") || strings.Contains(out, "Threads started!") {
		t.Errorf("malformed: exit %d\n%s", code, out)
	}
	out, code = runCLI(t, append(base, "--threshold=tps>0", "--threshold=p99<60s", "--threshold=errors==0", "run")...)
	if code != 0 || !strings.Contains(out, "Thresholds:\n    tps>0 ") || strings.Count(out, " pass  (") != 3 {
		t.Errorf("passing: exit %d\n%s", code, out)
	}
	path := filepath.Join(t.TempDir(), "r.json")
	out, code = runCLI(t, append(base, "--threshold=tps>0", "--threshold=p50<1us", "--results="+path, "run")...)
	if code != report.ThresholdsFailed || !strings.Contains(out, "    p50<1us                          FAIL  (p50 = ") {
		t.Errorf("failing: exit %d\n%s", code, out)
	}
	res := readResults(t, path)
	if res.Exit.Status != 99 || res.Exit.Reason != "thresholds_failed" || len(res.Thresholds) != 2 || !res.Thresholds[0].Pass || res.Thresholds[1].Pass {
		t.Errorf("results: %+v %+v", res.Exit, res.Thresholds)
	}
}
