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

// countPrimes counts the primes in [3, max) the way the reference's event
// does: each candidate c is divided by l = 2, 3, ... while l <= sqrt(c),
// compared as doubles, until one divides it. The reference's compiler
// tests l = 2 as the low bit of c instead of dividing (gcc -O2 peels that
// step), and so does this: an event then costs as many divisions as the
// reference's, 107530 at the default 10000 (117526 with the division by 2,
// which made events 8-9% slower). c and l stay below 2^31 (max is a C
// int), so they convert to double as signed values, without the branch an
// unsigned conversion needs, as the reference's code does.
func countPrimes(max uint64) uint64 {
	var n uint64
	for c := uint64(3); c < max; c++ {
		t := math.Sqrt(float64(int64(c)))
		if t < 2 {
			n++ // no divisor to try: 3
			continue
		}
		if c&1 == 0 {
			continue
		}
		l := uint64(3)
		for ; float64(int64(l)) <= t; l++ {
			if c%l == 0 {
				break
			}
		}
		if float64(int64(l)) > t {
			n++
		}
	}
	return n
}
