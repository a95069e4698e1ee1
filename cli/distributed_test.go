package cli

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/sysbench-go/sysbench-go/internal/testenv"
	"github.com/sysbench-go/sysbench-go/report"
)

// Three instances of oltp_read_write as separate processes, on each real
// server, with a common --start-at; their results merged by 'report'. The
// instances' threads have disjoint ids, their seeds differ, the merge sums
// their counters, its percentiles are those of all their latencies
// together, and the windows line up.
func TestDistributedInstances(t *testing.T) {
	t.Parallel()
	for _, db := range []string{"mysql", "pgsql"} {
		t.Run(db, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			common := preparedOLTP(t, db, dir)
			common[0] = filepath.Join("testdata", "scripts", "rw_tids.lua")
			const n, threads = 3, 2
			// Far enough for three processes to start, connect and be
			// ready on a loaded machine (they wait idle): an instance not
			// ready at --start-at begins late, which is not what this
			// test is about.
			startAt := time.Now().Add(10 * time.Second).UTC().Truncate(time.Millisecond)
			tidFile := filepath.Join(dir, "tids")
			cmds := make([]*exec.Cmd, n)
			outs := make([]strings.Builder, n)
			files := make([]string, n)
			for k := range n {
				files[k] = filepath.Join(dir, fmt.Sprintf("i%d.json", k))
				cmds[k] = exec.Command(testenv.Binary(t), append(slices.Clone(common), fmt.Sprintf("--instance=%d/%d", k, n),
					"--start-at="+startAt.Format(time.RFC3339Nano), "--time=3", "--rate=150", "--rand-seed=7",
					"--results="+files[k], "--tid-file="+tidFile, "run")...)
				cmds[k].Stdout, cmds[k].Stderr = &outs[k], &outs[k]
				if err := cmds[k].Start(); err != nil {
					t.Fatal(err)
				}
			}
			rs := make([]*report.Results, n)
			for k, cmd := range cmds {
				if err := cmd.Wait(); err != nil {
					t.Fatalf("instance %d: %v\n%s", k, err, outs[k].String())
				}
			}
			tids := threadIDs(t, tidFile)
			for k, cmd := range cmds {
				rs[k] = readResults(t, files[k])
				checkInstance(t, tids[cmd.Process.Pid], k, n, threads, rs[k], startAt)
			}
			if rs[0].Settings.RandSeed == rs[1].Settings.RandSeed || rs[1].Settings.RandSeed == rs[2].Settings.RandSeed {
				t.Errorf("instances seeded alike: %d %d %d", rs[0].Settings.RandSeed, rs[1].Settings.RandSeed, rs[2].Settings.RandSeed)
			}

			merged := filepath.Join(dir, "merged.json")
			out, code := runCLI(t, append([]string{"report", "--percentile=50,95,99", "--results=" + merged}, files...)...)
			if code != 0 {
				t.Fatalf("report: exit %d\n%s", code, out)
			}
			m := readResults(t, merged)
			checkMerged(t, rs, m)
			if !strings.Contains(out, "Measured windows: starts within ") {
				t.Errorf("report does not say how the windows line up:\n%s", out)
			}
			// A directory stands for its results files, the merge left out.
			again, code := runCLI(t, "report", "--percentile=50,95,99", dir)
			if code != 0 || finalReport(t, again) != finalReport(t, out) {
				t.Errorf("report of the directory (exit %d) differs from the files':\n%s", code, testenv.LineDiff(out, again))
			}
		})
	}
}

// threadIDs reads the "PID TID" lines rw_tids.lua's threads wrote: the
// thread ids of each process, sorted.
func threadIDs(t *testing.T, path string) map[int][]int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int][]int{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var pid, tid int
		if _, err := fmt.Sscanf(l, "%d %d", &pid, &tid); err != nil {
			t.Fatalf("tid file line %q: %v", l, err)
		}
		out[pid] = append(out[pid], tid)
	}
	for _, ids := range out {
		slices.Sort(ids)
	}
	return out
}

// checkInstance checks instance k's thread ids, results record and window.
func checkInstance(t *testing.T, tids []int, k, n, threads int, r *report.Results, startAt time.Time) {
	t.Helper()
	var want []int
	for i := range threads {
		want = append(want, k*threads+i)
	}
	if !slices.Equal(tids, want) {
		t.Errorf("instance %d's threads had ids %v, want %v", k, tids, want)
	}
	if in := r.Instance; in == nil || in.Index != k || in.Count != n || in.FirstThread != k*threads {
		t.Errorf("instance %d recorded as %+v", k, r.Instance)
	}
	if r.Settings.StartAt == nil || !r.Settings.StartAt.Equal(startAt) {
		t.Errorf("instance %d: start_at %v, want %v", k, r.Settings.StartAt, startAt)
	}
	// The window begins at --start-at: within the timer's and the
	// scheduler's latency, far under the 10 s it waited.
	if late := r.Total.Start.Sub(startAt); late < 0 || late > 500*time.Millisecond {
		t.Errorf("instance %d's window began %v after --start-at", k, late)
	}
}

// checkMerged checks the merge against the instances: counters summed,
// threads concatenated, percentiles of all the latencies recorded.
func checkMerged(t *testing.T, rs []*report.Results, m *report.Results) {
	t.Helper()
	var events, reads, writes uint64
	hists := make([]*hdr.Histogram, len(rs))
	for i, r := range rs {
		events, reads, writes = events+r.Total.Counters.Events, reads+r.Total.Counters.Reads, writes+r.Total.Counters.Writes
		h, err := hdr.Decode([]byte(r.Total.Latency.Histogram.Encoded))
		if err != nil {
			t.Fatal(err)
		}
		hists[i] = h
	}
	c := m.Total.Counters
	if c.Events != events || c.Reads != reads || c.Writes != writes || len(m.Total.Threads) != 6 || m.Settings.Threads != 6 {
		t.Errorf("merged counters %+v, %d threads; want events %d reads %d writes %d, 6 threads", c, len(m.Total.Threads), events, reads, writes)
	}
	for _, p := range []float64{50, 95, 99} {
		want := percentileOfAll(hists, p)
		got := m.Total.Latency.Percentiles[report.PercentileKey(p)]
		if math.Abs(got-want) > 0.01*want {
			t.Errorf("merged p%v %.4f ms, of all recorded latencies %.4f ms", p, got, want)
		}
	}
	if a := m.Alignment; a == nil || a.StartSpreadS > 0.5 || a.OverlapS < 2 {
		t.Errorf("alignment %+v: the windows should start together and overlap", m.Alignment)
	}
}

// percentileOfAll is the p-th percentile (ms) of every latency the
// histograms recorded, counted value by value: the smallest recorded value
// (at the histograms' precision) with at least p% of all at or below it.
func percentileOfAll(hists []*hdr.Histogram, p float64) float64 {
	type bar struct{ to, count int64 }
	var bars []bar
	var total int64
	for _, h := range hists {
		for _, b := range h.Distribution() {
			if b.Count > 0 {
				bars = append(bars, bar{b.To, b.Count})
				total += b.Count
			}
		}
	}
	slices.SortFunc(bars, func(a, b bar) int { return int(a.to - b.to) })
	need := int64(math.Max(1, math.Round(p/100*float64(total))))
	var seen int64
	for _, b := range bars {
		if seen += b.count; seen >= need {
			return float64(b.to) / 1000
		}
	}
	return 0
}
