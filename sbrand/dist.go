package sbrand

import "math"

// The integer distributions below mirror the reference's C signatures:
// arguments are unsigned 32-bit (Go callers' int64 values are reduced modulo
// 2^32, as LuaJIT's FFI does with Lua numbers) and so are results, returned as
// int64 in [0, 2^32). Products are wrapped in float64() so the compiler
// cannot fuse them into FMA instructions: the reference rounds each step.

// Default draws from the distribution chosen by --rand-type
// (sysbench.rand.default).
func (r *Rand) Default(a, b int64) int64 {
	switch r.p.dist {
	case distUniform:
		return r.Uniform(a, b)
	case distGaussian:
		return r.Gaussian(a, b)
	case distPareto:
		return r.Pareto(a, b)
	case distZipfian:
		return r.Zipfian(a, b)
	default:
		return r.Special(a, b)
	}
}

// Uniform returns a value uniformly distributed in [a, b]
// (sysbench.rand.uniform). One draw.
func (r *Rand) Uniform(a, b int64) int64 {
	return int64(r.uniform32(uint32(a), uint32(b)))
}

func (r *Rand) uniform32(a, b uint32) uint32 {
	return toU32(float64(a) + float64(r.Float64()*float64(b-a+1)))
}

// Gaussian returns the mean of --rand-spec-iter uniform values in [a, b]
// (sysbench.rand.gaussian): a bell shape centred on the middle of the range.
func (r *Rand) Gaussian(a, b int64) int64 {
	ua, ub := uint32(a), uint32(b)
	t := float64(ub - ua + 1)
	sum := 0.0
	for i := uint32(0); i < r.p.iter; i++ {
		sum += float64(r.Float64() * t)
	}
	return int64(ua + toU32(float64(sum*r.p.iterMult)))
}

// Special is sysbench's default "special" distribution
// (sysbench.rand.special). With t = b-a and one uniform U: when
// U*t*100/(100-res) < t (that is, for 100-res percent of the draws) it
// returns a + t * (mean of iter fresh uniforms), a bell over the whole range;
// otherwise a + U*(t*pct/100 + 1) + t/2 - t*pct/200 with the same U, a value
// in the pct percent of the range around its middle.
func (r *Rand) Special(a, b int64) int64 {
	p := r.p
	ua, ub := uint32(a), uint32(b)
	t := float64(ub - ua)
	rangeSize := float64(t * p.resMult)
	u := r.Float64()
	if float64(u*rangeSize) < t {
		sum := 0.0
		for i := uint32(0); i < p.iter; i++ {
			sum += r.Float64()
		}
		return int64(toU32(float64(ua) + float64(float64(sum*t)*p.iterMult)))
	}
	d := float64(t * p.pctMult)
	res := float64(u * (d + 1))
	res += t/2 - float64(t*p.pct2Mult)
	return int64(ua + toU32(res))
}

// Pareto returns a + (b-a+1) * U^(log h / log(1-h)) (sysbench.rand.pareto),
// which puts most draws near a.
func (r *Rand) Pareto(a, b int64) int64 {
	ua, ub := uint32(a), uint32(b)
	x := float64(ub-ua+1) * math.Pow(r.Float64(), r.p.paretoPower)
	return int64(ua + toU32(x))
}

// Zipfian returns a value in [a, b] where a+k-1 has probability proportional
// to 1/k^exp (sysbench.rand.zipfian, from sysbench 1.1): rejection-inversion
// sampling after Hörmann and Derflinger, as in Apache Commons RNG. It usually
// takes one draw and occasionally a few more.
func (r *Rand) Zipfian(a, b int64) int64 {
	ua, ub := uint32(a), uint32(b)
	return int64(ua + r.zipfian(ub-ua+1) - 1)
}

// zipfian returns k in [1, n].
func (r *Rand) zipfian(n uint32) uint32 {
	p := r.p
	e := p.zipfExp
	if r.zipfN != n || r.zipfHN == 0 {
		r.zipfN, r.zipfHN = n, zipfHIntegral(float64(n)+0.5, e)
	}
	hn := r.zipfHN
	for {
		u := hn + float64(r.Float64()*(p.zipfHX1-hn))
		x := zipfHIntegralInverse(u, e)
		k := toU32(x + 0.5)
		if k < 1 {
			k = 1
		} else if k > n {
			k = n
		}
		// The cheap test k-x <= s accepts most draws; the exact one
		// compares u with H(k+1/2) - h(k).
		if float64(k)-x <= p.zipfS || u >= zipfHIntegral(float64(k)+0.5, e)-zipfH(float64(k), e) {
			return k
		}
	}
}

// zipfHIntegral is H(x) = (x^(1-e) - 1) / (1-e), or log x when e = 1: the
// integral of the hat function h.
func zipfHIntegral(x, e float64) float64 {
	lx := math.Log(x)
	return expm1OverX(float64((1-e)*lx)) * lx
}

// zipfH is h(x) = x^-e.
func zipfH(x, e float64) float64 {
	return math.Exp(float64(-e * math.Log(x)))
}

// zipfHIntegralInverse inverts zipfHIntegral.
func zipfHIntegralInverse(x, e float64) float64 {
	t := float64(x * (1 - e))
	if t < -1 {
		t = -1 // rounding can push t just past the domain of log1p
	}
	return math.Exp(float64(log1pOverX(t) * x))
}

// log1pOverX is log(1+x)/x, by its Taylor series near 0.
func log1pOverX(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Log1p(x) / x
	}
	return 1 - x*(0.5-x*(1.0/3-0.25*x))
}

// expm1OverX is (e^x - 1)/x, by its Taylor series near 0.
func expm1OverX(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Expm1(x) / x
	}
	return 1 + x*0.5*(1+x*(1.0/3)*(1+0.25*x))
}

// toU32 converts like x86-64 C code does for (uint32_t)double: truncate to a
// 64-bit integer (NaN and out-of-range values give 1<<63) and keep the low
// 32 bits. Go's own conversion of such values is platform-dependent.
func toU32(x float64) uint32 {
	if !(x > -9.2e18 && x < 9.2e18) {
		return 0
	}
	return uint32(int64(x))
}
