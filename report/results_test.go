package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sysbench-go/sysbench-go/metrics"
)

var t0 = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

// sampleRun records a small deterministic run: two threads, three
// one-second ticks, ignored errors by code.
func sampleRun() (intervals []*metrics.Snapshot, whole *metrics.Snapshot) {
	reg := metrics.NewRegistry(2, 2, t0)
	whole = metrics.Empty(t0, 2)
	for tick := 1; tick <= 3; tick++ {
		for tid := range 2 {
			h := reg.Handle(tid)
			for i := range 50 * tick {
				h.Add(metrics.CntRead, 10)
				h.Add(metrics.CntWrite, 4)
				h.Inc(metrics.CntOther)
				h.RecordEvent(int64(900_000 + 37_000*i + 250_000*tid))
			}
			h.Error("1213")
			h.Retry("1213", true)
			if tid == 1 {
				h.Error("40001")
				h.Fail("40001")
				h.Inc(metrics.CntReconnect)
			}
			h.Flush()
		}
		d := reg.Tick(t0.Add(time.Duration(tick) * time.Second))
		intervals = append(intervals, d)
		whole = whole.Add(d)
	}
	return intervals, whole
}

func sampleResults(t *testing.T) *Results {
	t.Helper()
	ivs, whole := sampleRun()
	pcts := []float64{50, 95, 99.9}
	rec := &Recorder{Percentiles: pcts}
	var intervals []Interval
	for i, iv := range ivs {
		s := NewStat(iv, pcts)
		s.ThreadsRunning, s.TimeTotal = 2, float64(i+1)
		intervals = append(intervals, NewInterval(s, false))
	}
	rec.Report(&Report{Kind: Checkpoint, Stat: NewStat(ivs[0], pcts), Window: ivs[0], Run: ivs[0]})
	rec.Report(&Report{Kind: Final, Stat: NewStat(whole, pcts), Window: whole, Run: whole})
	if rec.Err != nil {
		t.Fatal(rec.Err)
	}
	return &Results{
		SchemaVersion: SchemaVersion,
		Tool:          Tool{Name: "sysbench-go", Version: "test", API: "sysbench 1.0.20", Lua: "gopher-lua"},
		Host:          Host{Name: "client-1", CPUs: 2, OS: "linux", Arch: "amd64"},
		Start:         t0, End: t0.Add(3 * time.Second),
		CommandLine: []string{"--threads=2", "--mysql-password=<redacted>", "oltp_read_write", "run"},
		Options:     map[string]string{"threads": "2", "mysql-password": "<redacted>", "tables": "1"},
		Workload:    Workload{Test: "oltp_read_write", Command: "run", Driver: "mysql", Options: map[string]string{"tables": "1"}},
		Driver:      &Driver{Name: "mysql", ServerVersion: "10.11.6-MariaDB"},
		Settings:    Settings{Threads: 2, TimeSeconds: 3, ReportIntervalSec: 1, Percentiles: pcts, Checkpoints: []float64{1}},
		Intervals:   intervals, Checkpoints: rec.Checkpoints, Total: rec.Total,
		Exit:       Exit{Status: 0, Reason: "completed", Fatal: []string{}},
		Thresholds: []ThresholdResult{{Expr: "p95<5ms", Measured: "p95 = 3.100 ms", Value: 3.1e6, Pass: true}},
	}
}

func encode(t *testing.T, r *Results) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "r.json")
	o, err := CheckOutput(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Write(o, nil); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The results file as written: golden, and valid against the schema.
func TestResultsFile(t *testing.T) {
	b := encode(t, sampleResults(t))
	golden(t, "results.json", b)
	if err := ValidateSchema(b); err != nil {
		t.Fatalf("the file does not validate against docs/results.schema.json: %v", err)
	}
}

// A window read back is the snapshot it was made of: every counter, the
// exact latency figures, and the whole histogram.
func TestWindowRoundTrip(t *testing.T) {
	_, whole := sampleRun()
	w, err := NewWindow(whole, []float64{95})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	var back Window
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	s, err := back.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if s.Counters != whole.Counters || s.Latency != whole.Latency || !s.Histogram.Equals(whole.Histogram) ||
		s.Duration() != whole.Duration() || len(s.Threads) != 2 || s.Threads[1] != whole.Threads[1] ||
		s.Errors["40001"] != 3 || s.Errors["1213"] != 6 {
		t.Errorf("read back %+v\nwrote %+v", s, whole)
	}
}

// The text report of a results file equals the report of the run.
func TestReportOfWindowIsTheRunReport(t *testing.T) {
	_, whole := sampleRun()
	pcts := []float64{95, 99}
	var run, again bytes.Buffer
	s := NewStat(whole, pcts)
	s.TimeTotal = s.TimeInterval
	WriteSQLStatistics(&run, s)
	WriteGeneralStatistics(&run, s)
	w, _ := NewWindow(whole, pcts)
	b, _ := json.Marshal(w)
	var back Window
	_ = json.Unmarshal(b, &back)
	snap, err := back.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	s2 := NewStat(snap, pcts)
	s2.TimeTotal = s2.TimeInterval
	WriteSQLStatistics(&again, s2)
	WriteGeneralStatistics(&again, s2)
	if run.String() != again.String() {
		t.Errorf("report of the file\n%s\ndiffers from the run's\n%s", again.String(), run.String())
	}
}

// What is not a whole results file of this version is refused with one
// line saying why.
func TestDecodeRefuses(t *testing.T) {
	good := encode(t, sampleResults(t))
	var old map[string]any
	_ = json.Unmarshal(good, &old)
	old["schema_version"] = 0
	oldB, _ := json.Marshal(old)
	old["schema_version"] = 7
	newB, _ := json.Marshal(old)
	delete(old, "schema_version")
	old["schema_version"] = 1
	delete(old, "total")
	noTotal, _ := json.Marshal(old)
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "truncated"},
		{"truncated", good[:len(good)/2], "truncated"},
		{"other JSON", []byte(`{"tps": 3}`), "not a results file"},
		{"not JSON", []byte("SQL statistics:\n"), "not a results file"},
		{"older version", oldB, "schema version 0 is not read by this program (it reads version 1)"},
		{"newer version", newB, "schema version 7 is newer than this program reads (1)"},
		{"missing total", noTotal, "not a whole results file: no \"total\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode(tt.in)
			if err == nil {
				t.Fatal("accepted")
			}
			if msg := err.Error(); !strings.Contains(msg, tt.want) || strings.Contains(msg, "\n") {
				t.Errorf("error %q, want one line with %q", msg, tt.want)
			}
		})
	}
	if _, err := Decode(good); err != nil {
		t.Errorf("a good file: %v", err)
	}
}

// Merging refuses results of different workloads, naming the difference,
// unless forced.
func TestMergeWorkloads(t *testing.T) {
	a, b := sampleResults(t), sampleResults(t)
	a.RunID, b.RunID = "a", "b"
	b.Workload.Options = map[string]string{"tables": "4"}
	_, err := Merge([]*Results{a, b}, []string{"a.json", "b.json"}, MergeOptions{})
	if err == nil || !strings.Contains(err.Error(), "cannot merge 'a.json' and 'b.json': --tables=1 against --tables=4 (--force merges them anyway)") {
		t.Errorf("merge of different workloads: %v", err)
	}
	b.Workload.Test = "oltp_read_only"
	if _, err := Merge([]*Results{a, b}, []string{"a.json", "b.json"}, MergeOptions{}); err == nil || !strings.Contains(err.Error(), "test oltp_read_write against oltp_read_only") {
		t.Errorf("merge of different tests: %v", err)
	}
	m, err := Merge([]*Results{a, b}, []string{"a.json", "b.json"}, MergeOptions{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if m.Total.Counters.Events != 2*a.Total.Counters.Events || m.Settings.Threads != 4 || len(m.Total.Threads) != 4 ||
		m.Total.Errors["1213"] != 12 || len(m.Merged) != 2 {
		t.Errorf("forced merge: %+v", m.Total.Counters)
	}
	if err := ValidateSchema(encode(t, m)); err != nil {
		t.Errorf("merged file: %v", err)
	}
}

// shifted is a copy of r, another run (id), its windows moved by d.
func shifted(t *testing.T, id string, d time.Duration) *Results {
	r := sampleResults(t)
	r.RunID = id
	r.Start, r.End = r.Start.Add(d), r.End.Add(d)
	r.Total.Start, r.Total.End = r.Total.Start.Add(d), r.Total.End.Add(d)
	return r
}

// Issue 28, item 2: how windows combine is read from the windows and
// said. Rounds one after the other are over the sum of their windows (not
// the wall-clock span with the pauses), instances together over the mean
// of theirs; rounds of instances both ways; windows that overlap a little
// are neither, unless --merge says.
func TestMergeWindows(t *testing.T) {
	const run = 3.0 // each sample run's window, in seconds
	for _, c := range []struct {
		name     string
		shifts   []time.Duration // each run's start after the first's
		as       string
		want     string  // Combination.As, "" for an error
		measured float64 // the merged window's seconds
		threads  int
		err      string
	}{
		{"rounds 3 s apart", []time.Duration{0, 6 * time.Second}, "", AsRounds, 2 * run, 2, ""},
		{"rounds back to back", []time.Duration{0, 3 * time.Second, 6 * time.Second}, "", AsRounds, 3 * run, 2, ""},
		{"instances", []time.Duration{0, 2 * time.Millisecond, time.Millisecond}, "", AsInstances, run, 6, ""},
		{"instances a second apart", []time.Duration{0, time.Second}, "", AsInstances, run, 4, ""},
		{"rounds of instances", []time.Duration{0, time.Millisecond, 10 * time.Second, 10*time.Second + time.Millisecond}, "", AsRoundsOfInstances, 2 * run, 4, ""},
		{"a little overlap", []time.Duration{0, 2 * time.Second}, "", "", 0, 0,
			"cannot tell how 'r0.json', 'r1.json' ran: their measured windows overlap, but only 1.000 s of the longest 3.000 s are common to all"},
		{"a little overlap, as rounds", []time.Duration{0, 2 * time.Second}, AsRounds, AsRounds, 2 * run, 2, ""},
		{"rounds, as instances", []time.Duration{0, 6 * time.Second}, AsInstances, AsInstances, run, 4, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var rs []*Results
			var names []string
			for i, d := range c.shifts {
				rs = append(rs, shifted(t, fmt.Sprint(i), d))
				names = append(names, fmt.Sprintf("r%d.json", i))
			}
			m, err := Merge(rs, names, MergeOptions{As: c.as})
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			events := uint64(len(rs)) * rs[0].Total.Counters.Events
			if m.Combined == nil || m.Combined.As != c.want || math.Abs(m.Total.Duration-c.measured) > 1e-9 ||
				math.Abs(m.Total.TPS-float64(events)/c.measured) > 1e-6 || m.Settings.Threads != c.threads {
				t.Errorf("combined %+v: %.3f s, %.2f tps, %d threads; want %s, %.3f s, %.2f tps, %d threads",
					m.Combined, m.Total.Duration, m.Total.TPS, m.Settings.Threads, c.want, c.measured, float64(events)/c.measured, c.threads)
			}
			if (m.Alignment != nil) != (c.want == AsInstances) {
				t.Errorf("alignment %+v for %s", m.Alignment, c.want)
			}
			// The merged file reads back to the same figures and merges
			// again with a new run as its parts would.
			b := encode(t, m)
			again, err := Decode(b)
			if err != nil {
				t.Fatalf("the merged file: %v", err)
			}
			snap, err := again.Total.Snapshot()
			if err != nil || math.Abs(snap.Duration().Seconds()-c.measured) > 1e-6 {
				t.Errorf("read back: %v s (%v)", snap.Duration().Seconds(), err)
			}
			if c.as == "" {
				more := shifted(t, "late", time.Hour)
				m2, err := Merge([]*Results{again, more}, []string{"m.json", "late.json"}, MergeOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if want := c.measured + run; math.Abs(m2.Total.Duration-want) > 1e-6 || len(m2.Parts) != len(rs)+1 {
					t.Errorf("merged again with a later round: %.3f s, %d parts; want %.3f s, %d parts", m2.Total.Duration, len(m2.Parts), want, len(rs)+1)
				}
			}
		})
	}
}

// Issue 28, item 3: a run counts once. The same file twice, or a merged
// file beside one of its parts, is refused with one line.
func TestMergeRefusesARunTwice(t *testing.T) {
	a, b := shifted(t, "run-a", 0), shifted(t, "run-b", 10*time.Second)
	ab, err := Merge([]*Results{a, b}, []string{"a.json", "b.json"}, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// A file without a run id (written before them): told apart by its
	// host and window.
	old := sampleResults(t)
	for _, c := range []struct {
		rs    []*Results
		names []string
		want  string
	}{
		{[]*Results{a, a}, []string{"a.json", "a.json"}, "cannot merge 'a.json' and 'a.json': both hold the run measured on client-1 from 2026-12-01T10:00:00Z: a run counts once"},
		{[]*Results{ab, b}, []string{"ab.json", "b.json"}, "cannot merge 'ab.json' and 'b.json': both hold the run measured on client-1 from 2026-12-01T10:00:10Z (b.json): a run counts once"},
		{[]*Results{old, old}, []string{"x.json", "y.json"}, "cannot merge 'x.json' and 'y.json': both hold the run"},
	} {
		_, err := Merge(c.rs, c.names, MergeOptions{Force: true})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.names, err, c.want)
		}
	}
}

// Issue 28, item 6: a file is checked against the schema and for the
// agreement of its figures when read, and refused with one line saying
// where it is wrong.
func TestDecodeChecksFigures(t *testing.T) {
	good := encode(t, sampleResults(t))
	edit := func(f func(doc map[string]any)) []byte {
		var doc map[string]any
		if err := json.Unmarshal(good, &doc); err != nil {
			t.Fatal(err)
		}
		f(doc)
		b, _ := json.Marshal(doc)
		return b
	}
	total := func(doc map[string]any) map[string]any { return doc["total"].(map[string]any) }
	for _, c := range []struct {
		name string
		in   []byte
		want string
	}{
		{"counters deleted", edit(func(d map[string]any) { delete(total(d), "counters") }),
			"not a valid results file: at /total: missing property 'counters'"},
		{"counters zeroed", edit(func(d map[string]any) {
			total(d)["counters"].(map[string]any)["events"] = 0
		}), "inconsistent total: 0 events counted, 600 timed"},
		{"histogram replaced", edit(func(d map[string]any) {
			h := total(d)["latency"].(map[string]any)["histogram"].(map[string]any)
			h["hdr_v2_base64"] = "HISTFAAAAB14nJNpmSzMwMDAxwABTFCaEUzOmQQAJDcCmA=="
		}), "inconsistent total: the latency histogram"},
		{"histogram garbage", edit(func(d map[string]any) {
			total(d)["latency"].(map[string]any)["histogram"].(map[string]any)["hdr_v2_base64"] = "bm90IGEgaGlzdG9ncmFt"
		}), "inconsistent total: the latency histogram does not decode"},
		{"a thread dropped", edit(func(d map[string]any) {
			th := total(d)["threads"].([]any)
			total(d)["threads"] = th[:1]
		}), "inconsistent total: its threads hold"},
		{"tps edited", edit(func(d map[string]any) { total(d)["tps"] = 1e6 }),
			"inconsistent total: 1000000.00 transactions per second, 600 over 3.000000 s"},
		{"longer than its window", edit(func(d map[string]any) { total(d)["duration_s"] = 30 }),
			"inconsistent total: it lasts 30.000000 s, between a start and end 3.000000 s apart"},
		{"unknown field", edit(func(d map[string]any) { d["tps"] = 3 }),
			"not a valid results file: at /: additional properties 'tps' not allowed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode(c.in)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %v, want one line with %q", err, c.want)
			}
		})
	}
}

// The CSV series: a header naming every column, one row per interval.
func TestIntervalsCSV(t *testing.T) {
	ivs, _ := sampleRun()
	var b bytes.Buffer
	c := NewIntervalsCSV(&b, []float64{95, 99.9}, true)
	for i, iv := range ivs {
		s := NewStat(iv, []float64{95, 99.9})
		s.ThreadsRunning, s.TimeTotal, s.QueueLength, s.Concurrency = 2, float64(i+1), uint64(i), 2
		c.Report(&Report{Kind: Intermediate, Stat: s, Window: iv})
		c.Report(&Report{Kind: Final, Stat: s, Window: iv}) // not a row
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	golden(t, "intervals.csv", b.Bytes())

	b.Reset()
	c = NewIntervalsCSV(&b, nil, false)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "time_s,duration_s,threads,tps,qps,reads_per_s,writes_per_s,other_per_s,errors_per_s,reconnects_per_s,events,reads,writes,other,errors,reconnects,failed_events,retries\n"; got != want {
		t.Errorf("a run without intervals: %q, want the header %q", got, want)
	}
}

// Issue 37 item 4: a merge warns, one line each, of a part that did not
// complete (by its reason, or by any of its reasons) and of parts that ran
// another load; it says nothing of complete parts of one load, nor of
// what does not change the load (outputs, percentiles, a missed
// threshold).
func TestMergeWarnings(t *testing.T) {
	a, b := shifted(t, "a", 0), shifted(t, "b", time.Hour)
	b.Options["results"], b.Options["percentile"] = "b.json", "99"
	b.Exit.Reason = "thresholds_failed"
	m, err := Merge([]*Results{a, b}, []string{"a.json", "b.json"}, MergeOptions{})
	if err != nil || len(m.Warnings) != 0 {
		t.Errorf("one load, complete: %q (%v)", m.Warnings, err)
	}
	c, d := shifted(t, "c", 2*time.Hour), shifted(t, "d", 3*time.Hour)
	c.Exit.Reason = "interrupted"
	d.Exit.Reasons = []string{"thresholds_failed", "forced_shutdown"}
	d.Settings.Threads, d.Options["tables"] = 8, "4"
	m, err = Merge([]*Results{a, b, c, d}, []string{"a.json", "b.json", "c.json", "d.json"}, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"'c.json' is a run that did not complete (interrupted, 3.000 s measured of --time=3): merged with the others all the same",
		"'d.json' is a run that did not complete (forced_shutdown, 3.000 s measured of --time=3): merged with the others all the same",
		"'a.json' and 'd.json' ran different loads (--threads=2 against --threads=8, --tables=1 against --tables=4): merged all the same",
	}
	if strings.Join(m.Warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings\n%s\nwant\n%s", strings.Join(m.Warnings, "\n"), strings.Join(want, "\n"))
	}
	// Merged again, the merge holds the part that did not complete.
	again := *m
	again.Warnings = nil
	m2, err := Merge([]*Results{&again, shifted(t, "e", 4*time.Hour)}, []string{"m.json", "e.json"}, MergeOptions{})
	if err != nil || len(m2.Warnings) == 0 || !strings.HasPrefix(m2.Warnings[0], "'m.json' holds a run that did not complete (interrupted, ") {
		t.Errorf("merged again: %q (%v)", m2.Warnings, err)
	}
	// A file with reasons is valid.
	if err := ValidateSchema(encode(t, d)); err != nil {
		t.Errorf("reasons: %v", err)
	}
}
