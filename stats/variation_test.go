package stats

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// constant returns n intervals of value x.
func constant(n int, x float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = x
	}
	return v
}

func TestMeasureVariationCV(t *testing.T) {
	// Alternating 90 and 110: mean 100, sample deviation 10·√(n/(n−1)).
	v := make([]float64, 40)
	for i := range v {
		v[i] = 90 + 20*float64(i%2)
	}
	r, err := MeasureVariation(v, 0, 1, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if want := 0.1 * math.Sqrt(40.0/39); math.Abs(r.CV-want) > 1e-12 || r.Mean != 100 || r.Median != 100 || r.Intervals != 40 {
		t.Errorf("CV %v mean %v median %v intervals %d, want CV %v, 100, 100, 40", r.CV, r.Mean, r.Median, r.Intervals, want)
	}
	// A warm-up left out: 10 intervals at 10 before the same series.
	r2, err := MeasureVariation(append(constant(10, 10), v...), 10, 1, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if r2.CV != r.CV || r2.From != 10 {
		t.Errorf("from 10: CV %v, from %d; want %v, 10", r2.CV, r2.From, r.CV)
	}
	flat, err := MeasureVariation(constant(10, 7), 0, 1, 0.5)
	if err != nil || flat.CV != 0 || flat.Dip.Length != 0 || flat.Dip.Start != -1 {
		t.Errorf("flat: %+v, %v", flat, err)
	}
	if s := flat.String(); s != "CV 0.0%; no interval below 50% of the median" {
		t.Errorf("String() = %q", s)
	}
}

func TestMeasureVariationDip(t *testing.T) {
	v := constant(100, 1000)
	for i := 20; i < 23; i++ { // 3 intervals at 40%
		v[i] = 400
	}
	for i, x := range []float64{450, 300, 120, 200, 490} { // 5 intervals, the lowest 12%
		v[60+i] = x
	}
	v[80] = 500 // not below half: ends no dip, starts none
	v[90] = 499 // one interval
	warm := append(constant(15, 100), v...)
	r, err := MeasureVariation(warm, 15, 2, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	want := Dip{Below: 0.5, Start: 75, StartSeconds: 150, Length: 5, Seconds: 10, Depth: 0.88}
	if d := r.Dip; d.Below != want.Below || d.Start != want.Start || d.StartSeconds != want.StartSeconds || d.Length != want.Length || d.Seconds != want.Seconds || math.Abs(d.Depth-want.Depth) > 1e-12 {
		t.Errorf("dip %+v, want %+v", d, want)
	}
	if s := r.String(); !strings.HasSuffix(s, "longest dip below 50% of the median 10 s from 150 s, down to 12% of it") {
		t.Errorf("String() = %q", s)
	}
	// Of two dips of equal length, the first.
	r, err = MeasureVariation(v, 0, 1, 0.45)
	if err != nil {
		t.Fatal(err)
	}
	if r.Dip.Start != 20 || r.Dip.Length != 3 {
		t.Errorf("below 45%%: dip %+v, want the 3 intervals from 20", r.Dip)
	}
	// A higher fraction joins more intervals.
	r, err = MeasureVariation(v, 0, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if r.Dip.Start != 60 || r.Dip.Length != 5 {
		t.Errorf("below 100%%: dip %+v", r.Dip)
	}
}

func TestMeasureVariationEdges(t *testing.T) {
	ok := constant(10, 5)
	for name, c := range map[string]struct {
		v     []float64
		from  int
		secs  float64
		below float64
		want  error
	}{
		"one left":      {ok, 9, 1, 0.5, ErrTooShort},
		"from past end": {ok, 20, 1, 0.5, ErrTooShort},
		"from negative": {ok, -1, 1, 0.5, ErrTooShort},
		"empty":         {nil, 0, 1, 0.5, ErrTooShort},
		"below 0":       {ok, 0, 1, 0, ErrDipBelow},
		"below 1.5":     {ok, 0, 1, 1.5, ErrDipBelow},
		"below NaN":     {ok, 0, 1, math.NaN(), ErrDipBelow},
		"all zero":      {constant(10, 0), 0, 1, 0.5, ErrNotPositive},
		"negative":      {[]float64{1, -1, 1}, 0, 1, 0.5, ErrNotPositive},
		"NaN":           {[]float64{1, math.NaN(), 1}, 0, 1, 0.5, ErrNotPositive},
		"seconds 0":     {ok, 0, 0, 0.5, ErrNotPositive},
	} {
		if _, err := MeasureVariation(c.v, c.from, c.secs, c.below); !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", name, err, c.want)
		}
	}
	// Mostly zeros: a median of 0 has no dip below it, and no NaN.
	r, err := MeasureVariation(append(constant(9, 0), 10), 0, 1, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	finite(t, "zeros", r.CV, r.Mean, r.Median, r.Dip.Depth)
	if r.Dip.Length != 0 {
		t.Errorf("dip below a median of 0: %+v", r.Dip)
	}
}

func TestVariationJSON(t *testing.T) {
	r, err := MeasureVariation([]float64{1, 2, 3}, 0, 1, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	checkKeys(t, r, "cv", "mean", "median", "intervals", "from", "dip")
	checkKeys(t, r.Dip, "below", "start", "start_seconds", "length", "seconds", "depth")
}
