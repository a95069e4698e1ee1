package sbrand

import (
	"fmt"
	"math"
)

// Distribution names accepted by --rand-type.
const (
	Uniform  = "uniform"
	Gaussian = "gaussian"
	Special  = "special"
	Pareto   = "pareto"
	Zipfian  = "zipfian" // sysbench 1.1
)

// Config holds the --rand-* options.
type Config struct {
	Type       string  // --rand-type
	SpecIter   int     // --rand-spec-iter
	SpecPct    float64 // --rand-spec-pct
	SpecRes    float64 // --rand-spec-res
	ParetoH    float64 // --rand-pareto-h
	ZipfianExp float64 // --rand-zipfian-exp (sysbench 1.1)
	Seed       int64   // --rand-seed; 0 seeds from the clock
}

// DefaultConfig returns the reference's defaults.
func DefaultConfig() Config {
	return Config{
		Type:       Special,
		SpecIter:   12,
		SpecPct:    1,
		SpecRes:    75,
		ParetoH:    0.2,
		ZipfianExp: 0.8,
	}
}

// Validate reports the first option the reference would refuse, in its
// words, and the values for which its arithmetic degenerates (division by
// zero, logarithm of a non-positive number, a loop of 2^32 iterations), in
// ours.
func (c Config) Validate() error {
	switch c.Type {
	case Uniform, Gaussian, Special, Pareto, Zipfian:
	default:
		return fmt.Errorf("Invalid random numbers distribution: %s.", c.Type)
	}
	switch {
	case c.SpecIter < 1:
		return fmt.Errorf("--rand-spec-iter must be > 0")
	case !(c.SpecPct >= 0 && c.SpecPct <= 100):
		return fmt.Errorf("--rand-spec-pct must be in the [0, 100] range")
	case !(c.SpecRes >= 0 && c.SpecRes <= 100):
		return fmt.Errorf("--rand-spec-res must be in the [0, 100] range")
	case !(c.ParetoH > 0 && c.ParetoH < 1):
		return fmt.Errorf("--rand-pareto-h must be in the (0, 1) range")
	case !(c.ZipfianExp >= 0) || math.IsInf(c.ZipfianExp, 1):
		return fmt.Errorf("--rand-zipfian-exp must be >= 0")
	}
	return nil
}

// SetConfig validates c and makes it the parameters r draws with.
func (r *Rand) SetConfig(c Config) error {
	if err := c.Validate(); err != nil {
		return err
	}
	p := newParams(c)
	r.p = &p
	r.zipfN, r.zipfHN = 0, 0
	return nil
}

// Config returns the options r draws with.
func (r *Rand) Config() Config { return r.p.cfg }

type dist uint8

const (
	distUniform dist = iota
	distGaussian
	distSpecial
	distPareto
	distZipfian
)

// params are the constants the reference precomputes from the options, in the
// same form (multipliers, not divisors) so the arithmetic rounds the same way.
type params struct {
	cfg  Config
	dist dist

	iter     uint32
	iterMult float64 // 1 / iter
	pctMult  float64 // pct / 100
	pct2Mult float64 // pct / 200
	resMult  float64 // 100 / (100 - res)

	paretoPower float64 // log(h) / log(1 - h)

	zipfExp float64
	zipfS   float64
	zipfHX1 float64 // H(1.5) - 1
}

var defaultParams = newParams(DefaultConfig())

func newParams(c Config) params {
	p := params{cfg: c}
	switch c.Type {
	case Uniform:
		p.dist = distUniform
	case Gaussian:
		p.dist = distGaussian
	case Pareto:
		p.dist = distPareto
	case Zipfian:
		p.dist = distZipfian
	default:
		p.dist = distSpecial
	}
	p.iter = uint32(c.SpecIter)
	p.iterMult = 1.0 / float64(p.iter)
	p.pctMult = c.SpecPct / 100.0
	p.pct2Mult = c.SpecPct / 200.0
	p.resMult = 100.0 / (100.0 - c.SpecRes)
	p.paretoPower = math.Log(c.ParetoH) / math.Log(1.0-c.ParetoH)
	e := c.ZipfianExp
	p.zipfExp = e
	p.zipfS = 2 - zipfHIntegralInverse(zipfHIntegral(2.5, e)-zipfH(2, e), e)
	p.zipfHX1 = zipfHIntegral(1.5, e) - 1
	return p
}

// Seeder returns the run's seed stream for --rand-seed (c.Seed).
func (c Config) Seeder() *Seeder { return NewSeeder(c.Seed) }
