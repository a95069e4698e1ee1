package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sysbench-go/sysbench-go/internal/testenv"
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
	for i, iv := range ivs {
		s := NewStat(iv, pcts)
		s.ThreadsRunning, s.TimeTotal = 2, float64(i+1)
		rec.Report(&Report{Kind: Intermediate, Stat: s, Window: iv})
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
		Intervals:   rec.Intervals, Checkpoints: rec.Checkpoints, Total: rec.Total,
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
	if err := testenv.ValidateResults(b); err != nil {
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
	b.Workload.Options = map[string]string{"tables": "4"}
	_, err := Merge([]*Results{a, b}, []string{"a.json", "b.json"}, false)
	if err == nil || !strings.Contains(err.Error(), "cannot merge 'a.json' and 'b.json': --tables=1 against --tables=4 (--force merges them anyway)") {
		t.Errorf("merge of different workloads: %v", err)
	}
	b.Workload.Test = "oltp_read_only"
	if _, err := Merge([]*Results{a, b}, []string{"a.json", "b.json"}, false); err == nil || !strings.Contains(err.Error(), "test oltp_read_write against oltp_read_only") {
		t.Errorf("merge of different tests: %v", err)
	}
	m, err := Merge([]*Results{a, b}, []string{"a.json", "b.json"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if m.Total.Counters.Events != 2*a.Total.Counters.Events || m.Settings.Threads != 4 || len(m.Total.Threads) != 4 ||
		m.Total.Errors["1213"] != 12 || len(m.Merged) != 2 {
		t.Errorf("forced merge: %+v", m.Total.Counters)
	}
	if err := testenv.ValidateResults(encode(t, m)); err != nil {
		t.Errorf("merged file: %v", err)
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
