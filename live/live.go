// Package live serves a running benchmark's metrics for Prometheus
// (--metrics-addr): counters, a latency histogram and threads, read from
// the engine when scraped, so that the workers do no work for it.
package live

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"

	"github.com/sysbench-go/sysbench-go/engine"
	"github.com/sysbench-go/sysbench-go/metrics"
)

// The exported latency histogram is made at each scrape from the HDR
// histogram behind it (exact to 3 significant digits; the results file
// keeps it all), in two layouts at once:
//
//   - classic buckets, whose upper bounds are LatencyBuckets: 2^(k/8)
//     seconds from 2^-17 s (7.6 µs) to 2^7 s (128 s), 2^(1/8) apart, so
//     that histogram_quantile over them is at most 9.05% from the exact
//     percentile (docs/telemetry.md); every scraper reads these;
//   - a native (sparse) histogram of schema NativeSchema, buckets 2^(1/32)
//     apart (at most 2.2% off), sent to a Prometheus that asks for the
//     protobuf format with native histograms on.
//
// Both have the same bounds where they meet (schema 3's are the classic
// ones), so the two layouts never disagree on a bucket's side.

// LatencyBuckets are the classic buckets' upper bounds, in seconds.
var LatencyBuckets = func() []float64 {
	var b []float64
	for k := classicFrom; k <= classicTo; k++ {
		b = append(b, math.Exp2(float64(k)/classicPerDoubling))
	}
	return b
}()

const (
	classicPerDoubling = 8
	classicFrom        = -17 * classicPerDoubling
	classicTo          = 7 * classicPerDoubling
	// NativeSchema is the native histogram's resolution: 2^NativeSchema
	// buckets per doubling.
	NativeSchema = 5
)

// Info names the run in its sysbench_info metric and labels.
type Info struct {
	Test, Driver, Version string
	Threads               int
	// Instance and Instances are --instance=K/N (Instances 0: not given).
	Instance, Instances int
}

// Server serves /metrics, and what else is registered on its Mux (the
// instance's control endpoints).
type Server struct {
	srv  *http.Server
	mux  *http.ServeMux
	ln   net.Listener
	coll *collector
	done chan struct{}
}

// Listen binds addr (HOST:PORT; port 0 picks one) and serves the metrics
// of the run Attach gives it.
func Listen(addr string, info Info) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		var oe *net.OpError
		if errors.As(err, &oe) && oe.Err != nil {
			err = oe.Err
		}
		return nil, fmt.Errorf("--metrics-addr=%s: cannot listen: %v", addr, err)
	}
	reg := prometheus.NewRegistry()
	c := newCollector(info)
	reg.MustRegister(c, collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), collectors.NewGoCollector())
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{EnableOpenMetrics: true}))
	s := &Server{srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, mux: mux, ln: ln, coll: c, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

// URL is where the metrics are.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() + "/metrics" }

// Attach gives the server the running benchmark (engine.Config.Live).
func (s *Server) Attach(v engine.LiveView) { s.coll.attach(v) }

// Mux is the server's request multiplexer, for more endpoints.
func (s *Server) Mux() *http.ServeMux { return s.mux }

// Close stops serving, after the answers being written (a results file
// being fetched) for at most a few seconds.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if err != nil {
		err = s.srv.Close()
	}
	<-s.done
	return err
}

// collector reads the run's totals at each scrape.
type collector struct {
	mu   sync.Mutex
	view engine.LiveView
	info Info
	// since is when the counters began (the native histogram's created
	// time).
	since time.Time

	events, failed, retries, errs, reconnects, queries, errsByCode *prometheus.Desc
	latency, running, threads, infoDesc                            *prometheus.Desc
	outages, outageSeconds, inOutage                               *prometheus.Desc
}

func newCollector(info Info) *collector {
	labels := prometheus.Labels{}
	if info.Instances > 0 {
		labels["sysbench_instance"] = strconv.Itoa(info.Instance)
		labels["sysbench_instances"] = strconv.Itoa(info.Instances)
	}
	d := func(name, help string, vars ...string) *prometheus.Desc {
		return prometheus.NewDesc("sysbench_"+name, help, vars, labels)
	}
	return &collector{info: info, since: time.Now(),
		events:        d("events_total", "Events (transactions) done, the warm-up included."),
		failed:        d("failed_events_total", "Events given up after --max-tries."),
		retries:       d("retries_total", "Event restarts after an ignored error."),
		errs:          d("errors_total", "Ignored errors."),
		reconnects:    d("reconnects_total", "Reconnections after a lost connection."),
		queries:       d("queries_total", "Queries by kind.", "kind"),
		errsByCode:    d("errors_by_code_total", "Ignored errors by MySQL error number or SQLSTATE.", "code"),
		latency:       d("event_latency_seconds", "Event latency."),
		running:       d("threads_running", "Worker threads running."),
		threads:       d("threads", "Worker threads of the run (--threads)."),
		infoDesc:      d("info", "The run: its test, driver and sysbench-go version.", "test", "driver", "version"),
		outages:       d("outages_total", "Outages that ended: stretches longer than --outage-threshold without a completed event while events ran or failed."),
		outageSeconds: d("outage_seconds_total", "Seconds of outage, the one on now included."),
		inOutage:      d("outage", "1 while an outage is on, else 0."),
	}
}

func (c *collector) attach(v engine.LiveView) {
	c.mu.Lock()
	c.view = v
	c.mu.Unlock()
}

func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.events, c.failed, c.retries, c.errs, c.reconnects, c.queries,
		c.errsByCode, c.latency, c.running, c.threads, c.infoDesc, c.outages, c.outageSeconds, c.inOutage} {
		ch <- d
	}
}

// Collect reports the totals; before the workers start, zeros.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	v := c.view
	c.mu.Unlock()
	s, running := metrics.Empty(time.Now(), 0), 0
	var outages int
	var outageSec float64
	var inOutage bool
	if v != nil {
		s, running = v.Totals(), v.ThreadsRunning()
		outages, outageSec, inOutage = v.Outages()
	}
	counter := func(d *prometheus.Desc, n uint64, lv ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(n), lv...)
	}
	cnt := s.Counters
	counter(c.events, cnt[metrics.CntEvent])
	counter(c.failed, cnt[metrics.CntFailedEvent])
	counter(c.retries, cnt[metrics.CntRetry])
	counter(c.errs, cnt[metrics.CntError])
	counter(c.reconnects, cnt[metrics.CntReconnect])
	counter(c.queries, cnt[metrics.CntRead], "read")
	counter(c.queries, cnt[metrics.CntWrite], "write")
	counter(c.queries, cnt[metrics.CntOther], "other")
	for code, n := range s.Errors {
		counter(c.errsByCode, n, code)
	}
	ch <- latencyHistogram(c.latency, s, c.since)
	ch <- prometheus.MustNewConstMetric(c.running, prometheus.GaugeValue, float64(running))
	ch <- prometheus.MustNewConstMetric(c.threads, prometheus.GaugeValue, float64(c.info.Threads))
	ch <- prometheus.MustNewConstMetric(c.infoDesc, prometheus.GaugeValue, 1, c.info.Test, c.info.Driver, c.info.Version)
	ch <- prometheus.MustNewConstMetric(c.outages, prometheus.CounterValue, float64(outages))
	ch <- prometheus.MustNewConstMetric(c.outageSeconds, prometheus.CounterValue, outageSec)
	gauge := 0.0
	if inOutage {
		gauge = 1
	}
	ch <- prometheus.MustNewConstMetric(c.inOutage, prometheus.GaugeValue, gauge)
}

// latencyHistogram is the snapshot's latencies as one histogram metric in
// both layouts: the native one (NewConstNativeHistogram's) with the
// classic buckets added, as client_golang's own histograms do when both
// are configured.
func latencyHistogram(desc *prometheus.Desc, s *metrics.Snapshot, since time.Time) prometheus.Metric {
	count, classic, native := histogramBuckets(s)
	sum := float64(s.Latency.SumNS) / 1e9
	m, err := prometheus.NewConstNativeHistogram(desc, count, sum, native, nil, 0, NativeSchema, 0, since)
	if err != nil {
		// The counts disagree with the count only if the histogram is
		// broken: classic buckets still tell what they can.
		return prometheus.MustNewConstHistogram(desc, count, sum, classic)
	}
	return withClassic{Metric: m, buckets: classic}
}

// withClassic adds classic buckets to a native histogram metric.
type withClassic struct {
	prometheus.Metric
	buckets map[float64]uint64
}

func (w withClassic) Write(out *dto.Metric) error {
	if err := w.Metric.Write(out); err != nil {
		return err
	}
	// The histogram is the const metric's own, made for this scrape.
	h := out.Histogram
	h.Bucket = make([]*dto.Bucket, 0, len(LatencyBuckets))
	for _, bound := range LatencyBuckets {
		upper, count := bound, w.buckets[bound]
		h.Bucket = append(h.Bucket, &dto.Bucket{UpperBound: &upper, CumulativeCount: &count})
	}
	return nil
}

// histogramBuckets are the snapshot's latencies (HDR, in µs) as the
// cumulative counts at or below each of LatencyBuckets, and as the counts
// of the native buckets of NativeSchema (bucket i holds the values in
// (2^((i-1)/2^schema), 2^(i/2^schema)] seconds). An HDR bar goes whole
// to the bucket of its highest value, as HDR's percentiles read it.
func histogramBuckets(s *metrics.Snapshot) (uint64, map[float64]uint64, map[int]int64) {
	classic := make(map[float64]uint64, len(LatencyBuckets))
	native := map[int]int64{}
	bars := s.Histogram.Distribution()
	var cum uint64
	i := 0
	for _, bound := range LatencyBuckets {
		us := int64(math.Round(bound * 1e6))
		for i < len(bars) && bars[i].To <= us {
			cum += uint64(bars[i].Count)
			i++
		}
		classic[bound] = cum
	}
	for _, b := range bars {
		if b.Count > 0 {
			native[nativeIndex(float64(b.To)/1e6)] += b.Count
		}
	}
	return uint64(s.Histogram.TotalCount()), classic, native
}

// nativeIndex is the native bucket of v seconds (v > 0): the smallest i
// with v <= 2^(i/2^NativeSchema).
func nativeIndex(v float64) int {
	const per = 1 << NativeSchema
	i := int(math.Ceil(math.Log2(v) * per))
	// Log2 rounds: settle a value on a bound exactly.
	for math.Exp2(float64(i-1)/per) >= v {
		i--
	}
	for math.Exp2(float64(i)/per) < v {
		i++
	}
	return i
}
