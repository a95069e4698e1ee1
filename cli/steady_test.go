package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sysbench-go/sysbench-go/report"
)

// stamps are the intermediate lines' "[ ... ]" prefixes, in order.
func stamps(out string) []string {
	return regexp.MustCompile(`(?m)^\[ ((?:warmup )?\d+s) \] thds:`).FindAllString(out, -1)
}

// The measured window's intervals count from the warm-up's end, each a
// whole interval, and the warm-up's last interval is reported (shorter
// when the warm-up ends between two ticks): no "[ 0s ]" at the reset, no
// warm-up interval lost, no measured interval cut short. The old engine
// kept ticking from the run's start: a warm-up of 3 s with 2 s intervals
// gave "[ warmup 2s ]", then "[ 1s ]" of 1 s, "[ 3s ]"; and with 1 s of
// each, in about 2 runs of 5, "[ 0s ]" of 0 s.
func TestWarmupIntervalsCountFromItsEnd(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		warmup, interval, time string
		want                   []string
		durations              []float64
	}{
		{"1", "1", "2", []string{"warmup 1s", "1s", "2s"}, []float64{1, 1, 1}},
		{"3", "2", "4", []string{"warmup 2s", "warmup 3s", "2s", "4s"}, []float64{2, 1, 2, 2}},
	} {
		res := filepath.Join(t.TempDir(), "r.json")
		// Events that wait 1 ms, on a fake clock (runSimulated): the
		// warm-up's end, the ticks and --time fall where they are due,
		// however busy the machine (a tick late by more than the
		// tolerance below failed the test on the wall clock).
		out, code := runSimulated(t, "testdata/scripts/wait.lua", "--wait=1000", "--time="+c.time, "--warmup-time="+c.warmup,
			"--report-interval="+c.interval, "--results="+res, "run")
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, out)
		}
		var want []string
		for _, w := range c.want {
			want = append(want, "[ "+w+" ] thds:")
		}
		if got := stamps(out); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Fatalf("--warmup-time=%s --report-interval=%s: interval lines %q, want %q\n%s", c.warmup, c.interval, got, want, out)
		}
		r := readResults(t, res)
		warm, _ := strconv.ParseFloat(c.warmup, 64)
		if r.Warmup == nil || r.Warmup.Auto || r.Warmup.EndedSeconds < warm || r.Warmup.EndedSeconds > warm+0.002 {
			t.Fatalf("warmup %+v, want a fixed warm-up ended at %s s", r.Warmup, c.warmup)
		}
		// An event of 1 ms may straddle a tick: a millisecond either way.
		for i, iv := range r.Intervals {
			if i < len(c.durations) && math.Abs(iv.Duration-c.durations[i]) > 0.002 {
				t.Errorf("interval at %.3f s (warm-up %v) lasted %.3f s, want %g s", iv.Time, iv.Warmup, iv.Duration, c.durations[i])
			}
		}
		if tm, _ := strconv.ParseFloat(c.time, 64); r.Total == nil || r.Total.Duration < tm-0.002 || r.Total.Duration > tm+0.002 {
			t.Errorf("measured window %+v, want the %s s of --time", r.Total, c.time)
		}
	}
}

// A script's own report_intermediate is not called during the warm-up (as
// sysbench 1.1), and report_default prints every --percentile as the
// built-in line does: the first in the reference's place, the others
// appended. On the fake clock (runSimulated): on a loaded machine the
// real one let the warm-up's end come late and the run end before its
// second interval.
func TestWarmupScriptHookAndReportDefault(t *testing.T) {
	t.Parallel()
	out, code := runSimulated(t, "testdata/scripts/report_hooks.lua", "--format=default", "--percentile=99.9,50",
		"--pause=1000", "--warmup-time=1", "--time=2", "--report-interval=1", "run")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	want := []string{"[ 1s ] thds:", "[ 2s ] thds:"}
	if got := stamps(out); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("interval lines %q, want %q (none of the warm-up's)\n%s", got, want, out)
	}
	line := regexp.MustCompile(`(?m)^\[ 1s \] thds: 1 tps: [\d.]+ qps: [\d.]+ \(r/w/o: [\d./]+\) lat \(ms,99\.9%\): [\d.]+ err/s [\d.]+ reconn/s: [\d.]+ lat \(ms,50%\): [\d.]+$`)
	if !line.MatchString(out) {
		t.Errorf("report_default's line is not the reference's with 99.9%% first and 50%% appended:\n%s", out)
	}
}

// --warmup-time=auto on a run slow by construction for its first 3 s
// (by the script's clock, from thread_init, so at most 3 s after the
// workers start): the measured window begins after the slow part, and its
// intervals all run at the fast rate.
func TestWarmupAuto(t *testing.T) {
	// On a fake clock: slow_start.lua's seconds hold what it paces into
	// them, whatever runs beside (runSimulated).
	t.Parallel()
	res := filepath.Join(t.TempDir(), "r.json")
	out, code := runSimulated(t, "testdata/scripts/slow_start.lua", "--slow=3", "--warmup-time=auto:30", "--time=2",
		"--report-interval=1", "--results="+res, "run")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	r := readResults(t, res)
	w := r.Warmup
	if w == nil || !w.Auto || !w.Steady || w.MaxSeconds != 30 {
		t.Fatalf("warmup %+v, want an automatic one ended steady\n%s", w, out)
	}
	// The slow part ends by 3 s; MSER-5 needs 6 s of samples.
	if w.EndedSeconds < 3 || w.EndedSeconds >= 30 {
		t.Errorf("the measured window began at %.2f s, want after the slow first 3 s and before the 30 s maximum", w.EndedSeconds)
	}
	if !strings.Contains(out, "Warm-up ended at ") || !strings.Contains(out, " s: throughput steady\n") {
		t.Errorf("no 'Warm-up ended at N s: throughput steady' line:\n%s", out)
	}
	// The slow part runs a tenth of the fast rate: a measured interval
	// with any of it would run at well under the fast rate.
	var slow, fast []float64
	for _, iv := range r.Intervals {
		if iv.Warmup && iv.Time <= 2 {
			slow = append(slow, iv.TPS)
		} else if !iv.Warmup {
			fast = append(fast, iv.TPS)
		}
	}
	if len(slow) == 0 || len(fast) != 2 {
		t.Fatalf("intervals %+v: want warm-up ones and 2 measured", r.Intervals)
	}
	for _, f := range fast {
		if f < 4*slow[0] {
			t.Errorf("a measured interval ran %.1f tps against the slow start's %.1f: the window holds slow events\n%s", f, slow[0], out)
		}
	}

	// A maximum too short for MSER-5 ends the warm-up there, saying so.
	res2 := filepath.Join(t.TempDir(), "r2.json")
	out, code = runSimulated(t, "testdata/scripts/slow_start.lua", "--warmup-time=auto:2", "--time=1", "--results="+res2, "run")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	r = readResults(t, res2)
	if w := r.Warmup; w == nil || w.Steady || w.EndedSeconds < 2 || w.EndedSeconds > 2.5 {
		t.Errorf("warmup %+v (ended at %.3f s), want ended at the 2 s maximum, not steady", w, w.EndedSeconds)
	}
	if !strings.Contains(out, "Warm-up ended at the 2 s maximum: not steady (too short to tell") {
		t.Errorf("no line saying the warm-up ended at its maximum:\n%s", out)
	}
}

// Bad --warmup-time values: one FATAL line, exit 1.
func TestWarmupTimeInvalid(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"auto:", "auto:0", "auto:x", "soon", "-1"} {
		out, code := runCLI(t, "cpu", "--time=1", "--warmup-time="+v, "run")
		if code != 1 || len(fatalLines(out)) != 1 || !strings.Contains(out, "--warmup-time") && !strings.Contains(out, "warmup") {
			t.Errorf("--warmup-time=%s: exit %d\n%s", v, code, out)
		}
	}
	// --start-at fixes when the window begins: auto would move it.
	at := strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)
	out, code := runCLI(t, "cpu", "--time=1", "--warmup-time=auto", "--start-at="+at, "run")
	if code != 1 || len(fatalLines(out)) != 1 || !strings.Contains(out, "--warmup-time=auto cannot be combined with --start-at") {
		t.Errorf("--warmup-time=auto --start-at: exit %d\n%s", code, out)
	}
}

// A stretch of slow events 4 s to 7 s after thread_init (by the script's
// clock, whose seconds the run's follow) is the run's longest dip below
// half the median.
func TestVariationDip(t *testing.T) {
	// On a fake clock: slow_start.lua's seconds hold what it paces into
	// them, whatever runs beside (runSimulated).
	t.Parallel()
	res := filepath.Join(t.TempDir(), "r.json")
	out, code := runSimulated(t, "testdata/scripts/slow_start.lua", "--dip-at=4", "--dip-for=3", "--time=10",
		"--report-interval=1", "--results="+res, "run")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	r := readResults(t, res)
	v := r.Variation
	if v == nil {
		t.Fatalf("no variation in the results\n%s", out)
	}
	// Tolerance: 1 s (one interval) either way for the start and the
	// length; the dip goes down to a tenth of the median.
	if d := v.Dip; d.StartSeconds < 2.5 || d.StartSeconds > 5 || d.Seconds < 2 || d.Seconds > 4 || d.Depth < 0.7 {
		t.Errorf("dip %+v, want about 3 s from about 4 s, down to about a tenth", d)
	}
	if v.CV < 0.3 {
		t.Errorf("CV %.3f: a tenth of the rate for 3 s of 10 gives more", v.CV)
	}
	if r.Steady != nil || strings.Contains(out, "Steady state:") {
		t.Errorf("10 intervals are too few for a steady-state verdict, got %+v", r.Steady)
	}
}

// A run slow for its first 10 s (by the script's clock) and steady after
// it: the steady state begins there, within one MSER-5 batch (5 s), said
// after the final report and in the results file. The run is as short as
// the verdict allows: 12 batches of 5 one-second intervals.
func TestSteadyStateReported(t *testing.T) {
	// On a fake clock (runSimulated): the minute passes in a second, and
	// a busy machine cannot shorten slow_start.lua's fast seconds (on the
	// wall clock they fell short and moved the steady start 15 s late).
	t.Parallel()
	res := filepath.Join(t.TempDir(), "r.json")
	out, code := runSimulated(t, "testdata/scripts/slow_start.lua", "--slow=10", "--time=61", "--report-interval=1",
		"--results="+res, "run")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	r := readResults(t, res)
	s := r.Steady
	if s == nil || !s.Steady {
		t.Fatalf("steady %+v, want steady\n%s", s, out)
	}
	if s.StartSeconds < 5 || s.StartSeconds > 15 || s.WarmupDifference > -0.5 {
		t.Errorf("steady %+v: want from about 10 s, the start well below", s)
	}
	if r.Variation == nil || r.Variation.From != s.Start {
		t.Errorf("variation %+v, want measured from the steady start %d", r.Variation, s.Start)
	}
	line := regexp.MustCompile(`(?m)^Steady state: from (\d+) s; the first (\d+) s ran \d+\.\d% below\nVariation: CV \d+\.\d%; `)
	m := line.FindStringSubmatch(out)
	if m == nil || m[1] != m[2] {
		t.Errorf("no steady-state and variation lines after the final report:\n%s", out)
	}
	if i, j := strings.Index(out, "Threads fairness:"), strings.Index(out, "Steady state:"); i < 0 || j < i {
		t.Errorf("the steady-state line is not after the final report:\n%s", out)
	}
}

// TestReportPrintsSteadiness: report prints a results file's steady state
// and variation after its final report, as the run did, computed from the
// run's intervals (stats) and kept in the file.
func TestReportPrintsSteadiness(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	if out, code := runCLI(t, "cpu", "--cpu-max-prime=100", "--time=1", "--results="+path, "run"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	r := readResults(t, path)
	// A run of 60 intervals, 10 of them slow, stands in for a minute's
	// run: what the run would have written.
	tps := make([]float64, 60)
	for i := range tps {
		tps[i] = 1000 + float64(i%3)
		if i < 10 {
			tps[i] = 500
		}
	}
	s := report.MeasureSteadiness(tps, 1)
	if s.Steady == nil || !s.Steady.Steady || s.Steady.Start != 10 {
		t.Fatalf("the constructed run: %+v", s.Steady)
	}
	r.Steady, r.Variation = s.Steady, s.Variation
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runStreams(t, "report", path)
	if code != 0 {
		t.Fatalf("report: exit %d\n%s%s", code, stdout, stderr)
	}
	want := "Steady state: from 10 s; the first 10 s ran 50.1% below\nVariation: CV "
	if i, j := strings.Index(stdout, "Threads fairness:"), strings.Index(stdout, want); i < 0 || j < i {
		t.Errorf("report does not print %q after the final report:\n%s", want, stdout)
	}
}
