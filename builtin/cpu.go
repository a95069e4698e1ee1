package builtin

import (
	"context"
	"fmt"
	"io"
	"math"

	"github.com/sysbench-go/sysbench-go/engine"
	"github.com/sysbench-go/sysbench-go/logging"
	"github.com/sysbench-go/sysbench-go/metrics"
	"github.com/sysbench-go/sysbench-go/options"
	"github.com/sysbench-go/sysbench-go/report"
)

func cpuOptions() []options.Option {
	return []options.Option{
		{Name: "cpu-max-prime", Desc: "upper limit for primes generator", Kind: options.Int, Default: "10000"},
	}
}

// cpuTest counts primes below --cpu-max-prime by trial division in every
// event, the reference's algorithm, so events per second compare.
type cpuTest struct {
	baseTest
	maxPrime uint64
	log      *logging.Logger
}

var (
	_ engine.Test   = (*cpuTest)(nil)
	_ engine.Worker = (*cpuWorker)(nil)
)

func newCPU(env *engine.Env) (engine.Test, error) {
	r := newOptReader(env, cpuOptions())
	n, err := r.int("cpu-max-prime")
	if err != nil {
		return nil, err
	}
	if n <= 0 {
		return nil, fmt.Errorf("Invalid value of cpu-max-prime: %d.", n)
	}
	return &cpuTest{maxPrime: uint64(n), log: env.Log}, nil
}

func (t *cpuTest) Name() string { return "cpu" }

func (t *cpuTest) PrintMode(w io.Writer) {
	t.log.Infof("Doing CPU performance benchmark\n")
	fmt.Fprintf(w, "Prime numbers limit: %d\n\n", t.maxPrime)
}

func (t *cpuTest) NewWorker(ctx context.Context, tid int, st *metrics.Handle) (engine.Worker, error) {
	return &cpuWorker{max: t.maxPrime}, nil
}

func (t *cpuTest) ReportCumulative(w io.Writer, s *report.Stat) bool {
	fmt.Fprintf(w, "CPU speed:\n")
	fmt.Fprintf(w, "    events per second: %8.2f\n", float64(s.Events)/s.TimeInterval)
	report.WriteGeneralStatistics(w, s)
	return true
}

type cpuWorker struct {
	baseWorker
	max    uint64
	primes uint64 // last count, kept so the work is observable
}

func (w *cpuWorker) Event(ctx context.Context) (bool, error) {
	w.primes = countPrimes(w.max)
	return false, nil
}

// countPrimes counts the primes in [3, max) with a float square-root bound,
// as the reference does (the comparison against a double matters for cost).
func countPrimes(max uint64) uint64 {
	var n uint64
	for c := uint64(3); c < max; c++ {
		t := math.Sqrt(float64(c))
		l := uint64(2)
		for ; float64(l) <= t; l++ {
			if c%l == 0 {
				break
			}
		}
		if float64(l) > t {
			n++
		}
	}
	return n
}
