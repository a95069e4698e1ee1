package capacity

import (
	"errors"
	"fmt"
	"math"
)

// USL is Gunther's Universal Scalability Law fitted to throughput against
// concurrency: X(N) = λN / (1 + σ(N−1) + κN(N−1)), where λ is the
// throughput of one worker alone, σ the contention (the share of the work
// that serialises) and κ the coherency cost (the pairwise crosstalk that
// makes throughput fall past a peak).
type USL struct {
	Sigma, Kappa, Lambda float64
	// R2 is the coefficient of determination of the fit.
	R2 float64
	// Residuals are measured minus fitted, per point.
	Residuals []float64
	// Poor says the law does not describe the points; Reasons say why.
	Poor    bool
	Reasons []string
}

// The fit's quality bounds.
const (
	// MinR2 is the least R² of a fit worth reading.
	MinR2 = 0.95
	// minFitPoints: three coefficients need more points than three for
	// the fit to say anything of its own quality.
	minFitPoints = 4
	// runsPoints is the fewest points for the residuals' runs test.
	runsPoints = 6
)

// USLMethod names how Fit works, for the record.
const USLMethod = "least squares (Levenberg–Marquardt, our own) from the best point of a grid over sigma and kappa, lambda solved exactly at each; sigma in [0,1], kappa >= 0"

// X is the law's throughput at n.
func (u USL) X(n float64) float64 {
	return u.Lambda * n / (1 + u.Sigma*(n-1) + u.Kappa*n*(n-1))
}

// Peak is the predicted peak concurrency N* = sqrt((1−σ)/κ); +Inf when
// κ is 0 (the throughput only levels off).
func (u USL) Peak() float64 {
	if u.Kappa <= 0 {
		return math.Inf(1)
	}
	return math.Sqrt((1 - u.Sigma) / u.Kappa)
}

// ErrTooFewPoints is Fit's error with fewer points than the fit needs.
var ErrTooFewPoints = errors.New("too few points")

// FitUSL fits the law to throughputs x at concurrencies n by nonlinear
// least squares, and judges the fit: poor when R² is below MinR2, or
// when the residuals' signs run in long stretches (a shape the law does
// not have: fewer sign changes than chance gives at 5%).
func FitUSL(n, x []float64) (USL, error) {
	if len(n) != len(x) {
		return USL{}, errors.New("usl: as many concurrencies as throughputs are needed")
	}
	if len(n) < minFitPoints {
		return USL{}, fmt.Errorf("%w: %d, the fit needs %d", ErrTooFewPoints, len(n), minFitPoints)
	}
	for i := range n {
		if !(n[i] >= 1) || !(x[i] >= 0) || math.IsInf(x[i], 0) {
			return USL{}, fmt.Errorf("usl: point %d (%g, %g) is not a concurrency of 1 or more and a throughput", i+1, n[i], x[i])
		}
	}
	best := USL{}
	bestSSE := math.Inf(1)
	for _, s := range []float64{0, 0.001, 0.01, 0.03, 0.1, 0.2, 0.4, 0.7, 0.95} {
		for _, k := range []float64{0, 1e-6, 1e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1} {
			u := USL{Sigma: s, Kappa: k}
			u.Lambda = bestLambda(u, n, x)
			if e := sse(u, n, x); e < bestSSE {
				best, bestSSE = u, e
			}
		}
	}
	u := levenbergMarquardt(best, n, x)
	judgeFit(&u, n, x)
	return u, nil
}

// bestLambda is the λ minimising the squared error for u's σ and κ: the
// law is linear in it.
func bestLambda(u USL, n, x []float64) float64 {
	var num, den float64
	for i := range n {
		g := n[i] / (1 + u.Sigma*(n[i]-1) + u.Kappa*n[i]*(n[i]-1))
		num += x[i] * g
		den += g * g
	}
	if den == 0 {
		return 0
	}
	return max(num/den, 0)
}

func sse(u USL, n, x []float64) float64 {
	var e float64
	for i := range n {
		d := x[i] - u.X(n[i])
		e += d * d
	}
	return e
}

// levenbergMarquardt refines u (λ, σ, κ) by damped Gauss–Newton steps,
// each kept within σ ∈ [0,1], κ ≥ 0, λ ≥ 0.
func levenbergMarquardt(u USL, n, x []float64) USL {
	mu := 1e-3
	cur := sse(u, n, x)
	for range 500 {
		// J^T J and J^T r for p = (λ, σ, κ).
		var a [3][3]float64
		var g [3]float64
		for i := range n {
			ni := n[i]
			d := 1 + u.Sigma*(ni-1) + u.Kappa*ni*(ni-1)
			f := u.Lambda * ni / d
			j := [3]float64{ni / d, -u.Lambda * ni * (ni - 1) / (d * d), -u.Lambda * ni * ni * (ni - 1) / (d * d)}
			r := x[i] - f
			for p := range 3 {
				g[p] += j[p] * r
				for q := range 3 {
					a[p][q] += j[p] * j[q]
				}
			}
		}
		improved := false
		for range 30 {
			var m [3][3]float64
			for p := range 3 {
				m[p] = a[p]
				m[p][p] = a[p][p] * (1 + mu)
				if m[p][p] == 0 {
					m[p][p] = mu
				}
			}
			step, ok := solve3(m, g)
			if !ok {
				mu *= 10
				continue
			}
			next := USL{Lambda: max(u.Lambda+step[0], 0), Sigma: min(max(u.Sigma+step[1], 0), 1), Kappa: max(u.Kappa+step[2], 0)}
			if e := sse(next, n, x); e < cur {
				rel := (cur - e) / max(cur, 1e-300)
				u, cur = next, e
				mu = max(mu/10, 1e-12)
				improved = true
				if rel < 1e-12 {
					return u
				}
				break
			}
			mu *= 10
		}
		if !improved {
			return u
		}
	}
	return u
}

// solve3 solves m·v = b by Gaussian elimination with partial pivoting.
func solve3(m [3][3]float64, b [3]float64) ([3]float64, bool) {
	for c := range 3 {
		p := c
		for r := c + 1; r < 3; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[p][c]) {
				p = r
			}
		}
		if m[p][c] == 0 || math.IsNaN(m[p][c]) {
			return b, false
		}
		m[c], m[p] = m[p], m[c]
		b[c], b[p] = b[p], b[c]
		for r := c + 1; r < 3; r++ {
			f := m[r][c] / m[c][c]
			for k := c; k < 3; k++ {
				m[r][k] -= f * m[c][k]
			}
			b[r] -= f * b[c]
		}
	}
	var v [3]float64
	for r := 2; r >= 0; r-- {
		s := b[r]
		for k := r + 1; k < 3; k++ {
			s -= m[r][k] * v[k]
		}
		v[r] = s / m[r][r]
	}
	return v, true
}

// judgeFit sets the fit's R², residuals and verdict.
func judgeFit(u *USL, n, x []float64) {
	var mean float64
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	var tot float64
	u.Residuals = make([]float64, len(n))
	for i := range n {
		u.Residuals[i] = x[i] - u.X(n[i])
		tot += (x[i] - mean) * (x[i] - mean)
	}
	res := sse(*u, n, x)
	u.R2 = 1
	if tot > 0 {
		u.R2 = 1 - res/tot
	}
	if u.R2 < MinR2 {
		u.Poor = true
		u.Reasons = append(u.Reasons, fmt.Sprintf("R² %.3f is below %.2f: the law explains too little of how the throughput varies", u.R2, MinR2))
	}
	if len(n) >= runsPoints && fewRuns(u.Residuals) {
		u.Poor = true
		u.Reasons = append(u.Reasons, "the residuals run in long stretches of one sign: the points follow a shape the law does not have")
	}
}

// fewRuns is the Wald–Wolfowitz runs test on the residuals' signs (in
// concurrency order), one-sided: fewer runs than independent signs give
// 5% of the time. A tie (a residual of 0) is left out.
func fewRuns(res []float64) bool {
	var signs []bool
	for _, r := range res {
		if r != 0 {
			signs = append(signs, r > 0)
		}
	}
	var np, nn float64
	runs := 0.0
	for i, s := range signs {
		if s {
			np++
		} else {
			nn++
		}
		if i == 0 || s != signs[i-1] {
			runs++
		}
	}
	n := np + nn
	if np == 0 || nn == 0 || n < runsPoints {
		return false
	}
	mean := 2*np*nn/n + 1
	v := 2 * np * nn * (2*np*nn - n) / (n * n * (n - 1))
	if v <= 0 {
		return false
	}
	return (runs-mean)/math.Sqrt(v) < -1.645
}
