package report

import (
	"bytes"
	"strings"
	"testing"
)

// series is n intervals at level, then m at 2×level, with a dip of d
// intervals at a tenth of it starting at interval at (0 for none).
func series(n, m int, level float64, at, d int) []float64 {
	var v []float64
	for i := 0; i < n+m; i++ {
		x := level
		if i >= n {
			x = 2 * level
		}
		if d > 0 && i >= at && i < at+d {
			x = level / 5
		}
		// A little alternating noise, as real intervals have.
		if i%2 == 0 {
			x *= 1.01
		}
		v = append(v, x)
	}
	return v
}

// A run half as fast for its first 20 s: steady from 20 s, 50% below, and
// the variation measured from there.
func TestSteadinessLines(t *testing.T) {
	s := MeasureSteadiness(series(20, 100, 500, 0, 0), 1)
	if s.Steady == nil || !s.Steady.Steady || s.Steady.StartSeconds != 20 {
		t.Fatalf("steady %+v, want from 20 s", s.Steady)
	}
	if s.Variation == nil || s.Variation.From != 20 || s.Variation.Dip.Length != 0 {
		t.Fatalf("variation %+v, want from interval 20 without a dip", s.Variation)
	}
	var b bytes.Buffer
	WriteSteadiness(&b, s)
	want := "Steady state: from 20 s; the first 20 s ran 50.0% below\n" +
		"Variation: CV 0.5%; no interval below 50% of the median\n\n"
	if b.String() != want {
		t.Errorf("lines\n%q\nwant\n%q", b.String(), want)
	}
}

// A stall late in a run is no trend: the run is steady from the start,
// and the dip shows in its variation.
func TestSteadinessDip(t *testing.T) {
	s := MeasureSteadiness(series(0, 100, 500, 70, 4), 1)
	if s.Steady == nil || !s.Steady.Steady || s.Steady.Start != 0 {
		t.Fatalf("steady %+v, want steady from the start", s.Steady)
	}
	if s.Variation == nil || s.Variation.From != 0 || s.Variation.Dip.StartSeconds != 70 || s.Variation.Dip.Seconds != 4 {
		t.Fatalf("variation %+v, want from interval 0 with the 4 s dip at 70 s", s.Variation)
	}
	var b bytes.Buffer
	WriteSteadiness(&b, s)
	if !strings.HasPrefix(b.String(), "Steady state: from the start") ||
		!strings.Contains(b.String(), "; longest dip below 50% of the median 4 s from 70 s, down to 10% of it\n\n") {
		t.Errorf("lines\n%s", b.String())
	}
}

// Too few intervals for MSER-5: no lines (the output stays the
// reference's), the variation kept for the results file.
func TestSteadinessShortRun(t *testing.T) {
	s := MeasureSteadiness(series(0, 10, 500, 0, 0), 1)
	if s.Steady != nil || s.Variation == nil || s.Variation.Intervals != 10 {
		t.Fatalf("%+v: want no verdict and the variation of 10 intervals", s)
	}
	var b bytes.Buffer
	WriteSteadiness(&b, s)
	if b.Len() != 0 {
		t.Errorf("printed %q for a short run", b.String())
	}
	if s := MeasureSteadiness([]float64{500}, 1); s.Steady != nil || s.Variation != nil {
		t.Errorf("one interval: %+v", s)
	}
}

// A run still climbing: "not reached", with the reason.
func TestSteadinessNotReached(t *testing.T) {
	var v []float64
	for i := 0; i < 100; i++ {
		v = append(v, 100+float64(i)*10)
	}
	var b bytes.Buffer
	WriteSteadiness(&b, MeasureSteadiness(v, 1))
	if !strings.HasPrefix(b.String(), "Steady state: not reached (the throughput still changes") {
		t.Errorf("lines %q", b.String())
	}
}

// A merged file keeps no run's warm-up, steady state or variation: they
// describe one run's intervals.
func TestMergeDropsSteadiness(t *testing.T) {
	a, b := sampleResults(t), sampleResults(t)
	a.RunID, b.RunID = "a", "b"
	st := MeasureSteadiness(series(20, 100, 500, 0, 0), 1)
	a.Steady, a.Variation, a.Warmup = st.Steady, st.Variation, &WarmupEnd{Auto: true, MaxSeconds: 60, EndedSeconds: 6, Steady: true, Reason: "throughput steady"}
	if err := ValidateSchema(encode(t, a)); err != nil {
		t.Fatalf("a file with warmup, steady and variation: %v", err)
	}
	m, err := Merge([]*Results{a, b}, []string{"a.json", "b.json"}, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Steady != nil || m.Variation != nil || m.Warmup != nil {
		t.Errorf("merged: steady %+v variation %+v warmup %+v", m.Steady, m.Variation, m.Warmup)
	}
}
