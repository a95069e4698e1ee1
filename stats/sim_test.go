package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Trials is the number of simulated comparisons per case.
const trials = 2000

// binomialTolerance is the half-width, 3 standard errors of a proportion
// p over n trials, within which a simulated rate is taken to match p: a
// correct method lands outside 0.27% of the time per case.
func binomialTolerance(p float64, n int) float64 {
	return 3 * math.Sqrt(p*(1-p)/float64(n))
}

// source draws n rounds around a true centre.
type source struct {
	lognormal bool
	// spread is σ of the log (lognormal) or the coefficient of
	// variation (normal).
	spread float64
}

// draw returns n rounds whose geometric mean (lognormal) or mean (normal)
// is centre.
func (s source) draw(r *rand.Rand, n int, centre float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		if s.lognormal {
			v[i] = centre * math.Exp(s.spread*r.NormFloat64())
		} else {
			v[i] = centre * (1 + s.spread*r.NormFloat64())
		}
	}
	return v
}

func (s source) String() string {
	if s.lognormal {
		return "lognormal"
	}
	return "normal"
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed)) }

func finite(t *testing.T, what string, fs ...float64) {
	t.Helper()
	for i, f := range fs {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			t.Errorf("%s: figure %d is %v", what, i, f)
		}
	}
}
