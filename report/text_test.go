package report

import (
	"bytes"
	"flag"
	"github.com/sysbench-go/sysbench-go/metrics"
	"os"
	"path/filepath"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s\n--- got\n%s\n--- want\n%s", name, path, got, want)
	}
}

func sampleStat() *Stat {
	return &Stat{
		ThreadsRunning: 8, Threads: 8, TimeInterval: 2.0004, TimeTotal: 6.0071,
		Events: 7356, Reads: 103446, Writes: 29465, Other: 14745, Errors: 33,
		LatencyMin: 0.00133, LatencyMax: 0.01941, LatencyAvg: 0.00653, LatencySum: 48.00887,
		Percentile: 95, LatencyPct: 0.00939, Percentiles: []float64{95}, LatencyPcts: []float64{0.00939},
		QueueLength: 3, Concurrency: 2,
		ThreadEvents: []uint64{900, 920, 930, 910, 925, 915, 928, 928},
		ThreadTime:   []float64{6.0, 6.001, 6.0, 6.002, 6.0, 6.001, 6.0, 6.003},
	}
}

func TestReportFormats(t *testing.T) {
	var b bytes.Buffer
	s := sampleStat()
	WriteIntermediateSQL(&b, s, false)
	WriteIntermediateSQL(&b, s, true)
	WriteIntermediateDefault(&b, s, false)
	WriteIntermediateDefault(&b, s, true)
	golden(t, "intermediate", b.Bytes())

	// Issue 37 item 11: every percentile of --percentile=50,95,99.9 on the
	// interval lines, after the reference's line (the first in its
	// place); and the warm-up's lines marked.
	b.Reset()
	more := *s
	more.Percentile, more.LatencyPct = 50, 0.0061
	more.Percentiles, more.LatencyPcts = []float64{50, 95, 99.9}, []float64{0.0061, 0.00939, 0.0189}
	WriteIntermediateSQL(&b, &more, true)
	WriteIntermediateDefault(&b, &more, false)
	warm := *s
	warm.Warmup, warm.TimeTotal = true, 2.0001
	WriteIntermediateSQL(&b, &warm, true)
	WriteIntermediateDefault(&b, &warm, false)
	golden(t, "intermediate-beyond", b.Bytes())

	b.Reset()
	WriteSQLStatistics(&b, s)
	WriteGeneralStatistics(&b, s)
	golden(t, "cumulative", b.Bytes())

	b.Reset()
	s.Percentiles = []float64{50, 95, 99, 99.9}
	s.LatencyPcts = []float64{0.0061, 0.00939, 0.0123, 0.0189}
	WriteGeneralStatistics(&b, s)
	golden(t, "percentiles", b.Bytes())

	b.Reset()
	s.Percentiles, s.LatencyPcts = nil, nil
	s.Unfinished = 2
	WriteGeneralStatistics(&b, s)
	golden(t, "no-percentile", b.Bytes())
}

func TestHistogramFormat(t *testing.T) {
	h := metrics.NewHistogram()
	for v := int64(20); v < 6000; v = v*11/10 + 1 {
		for i := int64(0); i < 6000/v; i++ {
			_ = h.RecordValue(v)
		}
	}
	var b bytes.Buffer
	WriteHistogram(&b, h)
	golden(t, "histogram", b.Bytes())
	b.Reset()
	WriteHistogram(&b, hdr.New(1, 10, 3))
	if b.Len() != 0 {
		t.Errorf("an empty histogram prints nothing, got %q", b.String())
	}
}
