package capacity

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// The fit recovers the coefficients of synthetic sweeps generated from
// known ones, with 1% noise: contention-bound (a peak far out),
// coherency-bound (a peak inside the sweep), and linear (no peak).
func TestFitUSLRecoversCoefficients(t *testing.T) {
	t.Parallel()
	threads := []float64{1, 2, 4, 8, 12, 16, 24, 32, 48, 64}
	for _, c := range []struct {
		name                 string
		sigma, kappa, lambda float64
	}{
		{"peak inside", 0.05, 0.0008, 1200},
		{"contention", 0.12, 0.00002, 800},
		{"coherency", 0.01, 0.002, 5000},
		{"linear", 0, 0, 300},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			truth := USL{Sigma: c.sigma, Kappa: c.kappa, Lambda: c.lambda}
			rng := rand.New(rand.NewPCG(1, uint64(c.lambda)))
			x := make([]float64, len(threads))
			for i, n := range threads {
				x[i] = truth.X(n) * (1 + 0.01*rng.NormFloat64())
			}
			u, err := FitUSL(threads, x)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("σ %.4f (%.4f), κ %.6f (%.6f), λ %.1f (%.1f), R² %.4f, N* %.1f (%.1f)",
				u.Sigma, c.sigma, u.Kappa, c.kappa, u.Lambda, c.lambda, u.R2, u.Peak(), truth.Peak())
			if math.Abs(u.Lambda-c.lambda) > 0.03*c.lambda {
				t.Errorf("λ %.1f, want %.1f within 3%%", u.Lambda, c.lambda)
			}
			if math.Abs(u.Sigma-c.sigma) > 0.015 {
				t.Errorf("σ %.4f, want %.4f within 0.015", u.Sigma, c.sigma)
			}
			if math.Abs(u.Kappa-c.kappa) > 0.15*c.kappa+2e-5 {
				t.Errorf("κ %.6f, want %.6f within 15%%", u.Kappa, c.kappa)
			}
			// The peak, where the sweep shows one.
			if p := truth.Peak(); p <= 64 && math.Abs(u.Peak()-p) > 0.1*p {
				t.Errorf("N* %.1f, want %.1f within 10%%", u.Peak(), p)
			}
			if u.Poor || u.R2 < 0.99 {
				t.Errorf("a good fit judged poor (R² %.4f): %v", u.R2, u.Reasons)
			}
		})
	}
}

// Points the law does not describe are said to fit poorly: a throughput
// that collapses to a fraction past a cliff (the residuals run in
// stretches), and noise with no shape (R² low).
func TestFitUSLReportsPoorFit(t *testing.T) {
	t.Parallel()
	threads := []float64{1, 2, 4, 8, 16, 24, 32, 48, 64, 96}
	cliff := []float64{100, 200, 400, 800, 1600, 2400, 3200, 400, 420, 410}
	u, err := FitUSL(threads, cliff)
	if err != nil {
		t.Fatal(err)
	}
	if !u.Poor || len(u.Reasons) == 0 {
		t.Errorf("a cliff fitted as good: R² %.3f, residuals %.0f", u.R2, u.Residuals)
	}
	noise := []float64{500, 120, 900, 200, 800, 150, 950, 100, 700, 300}
	u, err = FitUSL(threads, noise)
	if err != nil {
		t.Fatal(err)
	}
	if !u.Poor || u.R2 >= MinR2 {
		t.Errorf("noise fitted as good: R² %.3f", u.R2)
	}
	if _, err := FitUSL([]float64{1, 2, 4}, []float64{1, 2, 3}); !errors.Is(err, ErrTooFewPoints) {
		t.Errorf("three points: %v", err)
	}
}

// A sweep of the slot workload on the fake clock: each thread is a
// connection held d per event, so the throughput is exactly N/d, which
// the law fits as linear (σ and κ 0, λ = 1/d).
func TestSweepFakeClock(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		p := fakeClockProber(10 * time.Millisecond)
		res, err := Sweep(t.Context(), p, SweepOptions{Threads: []int{1, 2, 4, 8, 16}, Budget: 100 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range res.Steps {
			if want := float64(st.Threads) * 100; math.Abs(st.Achieved-want) > 0.01*want {
				t.Errorf("%d threads: %.1f tps, want %g", st.Threads, st.Achieved, want)
			}
		}
		if res.Fit == nil || res.Fit.Poor || math.Abs(res.Fit.Lambda-100) > 1 || res.Fit.Sigma > 0.005 {
			t.Errorf("fit of a linear sweep: %+v", res.Fit)
		}
		if res.Record.PeakThreads != 16 || !strings.Contains(res.Line(), "tps at 16 threads; USL σ 0.0000, κ 0, λ 100 tps: no peak in sight") {
			t.Errorf("line %q", res.Line())
		}
	})
}

func TestParseSweep(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][]int{"1:64": {1, 2, 4, 8, 16, 32, 64}, "3:20": {3, 6, 12, 20}, "1,2,4,8": {1, 2, 4, 8}} {
		if got, err := ParseSweep(in); err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"8:4", "0:4", "4", "a:b", "4,2", "1:"} {
		if _, err := ParseSweep(in); err == nil || !strings.Contains(err.Error(), "invalid --sweep") {
			t.Errorf("%s: %v", in, err)
		}
	}
}
