package live

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/sysbench-go/sysbench-go/metrics"
)

// The worst-case errors of histogram_quantile over the exported
// histogram against the exact percentile, as docs/telemetry.md states
// them: the estimate lies in the bucket where the exact value lies, so
// it is off by at most the bucket's width (plus HDR's 0.1%).
var (
	classicWorst = math.Exp2(1.0/classicPerDoubling) - 1 // 9.05%
	nativeWorst  = math.Exp2(1.0/(1<<NativeSchema)) - 1  // 2.19%
)

const hdrSlack = 0.002

// latencySeries scrapes the collector's latency histogram for a run that
// recorded the latencies given (seconds).
func latencySeries(t *testing.T, lat []float64) (*dto.Histogram, *metrics.Snapshot) {
	t.Helper()
	t0 := time.Now()
	reg := metrics.NewRegistry(1, 1, t0)
	h := reg.Handle(0)
	for _, v := range lat {
		h.RecordEvent(int64(math.Round(v * 1e9)))
	}
	h.Flush()
	s := reg.Tick(t0.Add(time.Second))
	pr := prometheus.NewRegistry()
	c := newCollector(Info{Test: "t", Threads: 1})
	c.attach(view{s})
	pr.MustRegister(c)
	mfs, err := pr.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == "sysbench_event_latency_seconds" {
			return mf.Metric[0].Histogram, s
		}
	}
	t.Fatal("no latency histogram")
	return nil, nil
}

// classicQuantile is Prometheus' histogram_quantile over classic buckets
// (promql's bucketQuantile): the bucket where the rank falls, linear
// within it; in the +Inf bucket, the highest finite bound.
func classicQuantile(q float64, h *dto.Histogram) float64 {
	type bucket struct {
		upper float64
		count float64
	}
	var bs []bucket
	for _, b := range h.Bucket {
		bs = append(bs, bucket{b.GetUpperBound(), float64(b.GetCumulativeCount())})
	}
	bs = append(bs, bucket{math.Inf(1), float64(h.GetSampleCount())})
	rank := q * bs[len(bs)-1].count
	b := sort.Search(len(bs)-1, func(i int) bool { return bs[i].count >= rank })
	if b == len(bs)-1 {
		return bs[len(bs)-2].upper
	}
	start, end, count := 0.0, bs[b].upper, bs[b].count
	if b > 0 {
		start = bs[b-1].upper
		count -= bs[b-1].count
		rank -= bs[b-1].count
	}
	return start + (end-start)*(rank/count)
}

// nativeQuantile is histogram_quantile over the native buckets: the
// bucket where the rank falls, interpolated linearly or exponentially
// (Prometheus has done both) within it.
func nativeQuantile(q float64, h *dto.Histogram, exponential bool) float64 {
	per := math.Exp2(float64(h.GetSchema()))
	type bucket struct {
		lower, upper float64
		count        float64
	}
	var bs []bucket
	idx, count := 0, int64(0)
	d := 0
	for _, sp := range h.PositiveSpan {
		idx += int(sp.GetOffset())
		for range sp.GetLength() {
			count += h.PositiveDelta[d]
			d++
			bs = append(bs, bucket{math.Exp2(float64(idx-1) / per), math.Exp2(float64(idx) / per), float64(count)})
			idx++
		}
	}
	rank := q * float64(h.GetSampleCount())
	var cum float64
	for _, b := range bs {
		if cum+b.count >= rank {
			f := (rank - cum) / b.count
			if exponential {
				return math.Exp2(math.Log2(b.lower) + (math.Log2(b.upper)-math.Log2(b.lower))*f)
			}
			return b.lower + (b.upper-b.lower)*f
		}
		cum += b.count
	}
	return bs[len(bs)-1].upper
}

// Issue 37 item 11: a dashboard's percentile from the exported histogram
// is within the stated bound of the exact one, for latencies piled on
// one value just above a bucket's lower bound (the worst case: doubling
// buckets put such a p95 95% too high), spread over decades, bimodal, or
// a database's long-tailed spread.
func TestHistogramQuantileError(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 11))
	edge := func(v float64) []float64 { // n values just above a bound
		out := make([]float64, 2000)
		for i := range out {
			out[i] = v * 1.002
		}
		return out
	}
	cases := map[string][]float64{
		"on a bound's edge, about 1 ms":  edge(LatencyBuckets[8*7+4]),
		"on a bound's edge, about 40 µs": edge(math.Exp2(-14.5)),
		"spread over 3 decades": func() []float64 {
			out := make([]float64, 20000)
			for i := range out {
				out[i] = 50e-6 * math.Pow(1000, rng.Float64())
			}
			return out
		}(),
		"bimodal": func() []float64 {
			out := make([]float64, 10000)
			for i := range out {
				out[i] = 200e-6 * (1 + 0.1*rng.Float64())
				if i%10 == 0 {
					out[i] = 20e-3 * (1 + rng.Float64())
				}
			}
			return out
		}(),
		"long tail around 1 ms": func() []float64 {
			out := make([]float64, 50000)
			for i := range out {
				out[i] = 1e-3 * math.Exp(0.8*rng.NormFloat64())
			}
			return out
		}(),
	}
	worstClassic, worstNative := 0.0, 0.0
	for name, lat := range cases {
		h, s := latencySeries(t, lat)
		if h.GetSampleCount() != uint64(len(lat)) || len(h.Bucket) != len(LatencyBuckets) || h.GetSchema() != NativeSchema {
			t.Fatalf("%s: %d samples, %d classic buckets, schema %d", name, h.GetSampleCount(), len(h.Bucket), h.GetSchema())
		}
		for _, q := range []float64{0.5, 0.9, 0.95, 0.99, 0.999} {
			exact := float64(s.Percentile(q*100)) / 1e9
			rel := func(est float64) float64 { return math.Abs(est/exact - 1) }
			c := rel(classicQuantile(q, h))
			worstClassic = max(worstClassic, c)
			if c > classicWorst+hdrSlack {
				t.Errorf("%s, q=%g: classic estimate %.6g s, exact %.6g s: %.2f%% off, beyond %.2f%%",
					name, q, classicQuantile(q, h), exact, 100*c, 100*classicWorst)
			}
			for _, exp := range []bool{false, true} {
				n := rel(nativeQuantile(q, h, exp))
				worstNative = max(worstNative, n)
				if n > nativeWorst+hdrSlack {
					t.Errorf("%s, q=%g, exponential %v: native estimate %.6g s, exact %.6g s: %.2f%% off, beyond %.2f%%",
						name, q, exp, nativeQuantile(q, h, exp), exact, 100*n, 100*nativeWorst)
				}
			}
		}
	}
	t.Logf("worst error seen: classic %.2f%% (bound %.2f%%), native %.2f%% (bound %.2f%%)",
		100*worstClassic, 100*classicWorst, 100*worstNative, 100*nativeWorst)
}

// The native buckets' indexes settle values on a bound exactly.
func TestNativeIndex(t *testing.T) {
	for i := -700; i <= 300; i += 7 {
		v := math.Exp2(float64(i) / (1 << NativeSchema))
		if got := nativeIndex(v); got != i {
			t.Errorf("2^(%d/32): bucket %d", i, got)
		}
		if got := nativeIndex(v * 1.0001); got != i+1 {
			t.Errorf("just above 2^(%d/32): bucket %d", i, got)
		}
	}
}
