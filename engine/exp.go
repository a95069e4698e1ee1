package engine

import (
	"math"
	"math/rand/v2"
	"time"
)

// expGen draws exponential inter-arrival gaps for the --rate generator.
type expGen struct{ r *rand.Rand }

func newExpGen(seed int64) *expGen {
	s := uint64(seed)
	if s == 0 {
		s = uint64(time.Now().UnixNano())
	}
	return &expGen{r: rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))}
}

// exp returns a gap with the given mean.
func (g *expGen) exp(mean float64) float64 {
	return -mean * math.Log(1-g.r.Float64())
}
