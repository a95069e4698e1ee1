package cli

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape reads the metrics at url with the Prometheus text parser.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape: %s", resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	mf, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("the exposition does not parse: %v", err)
	}
	return mf
}

// value is a metric's counter or gauge value, for the series whose labels
// include those given (name=value pairs).
func value(t *testing.T, mf map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	t.Helper()
	f, ok := mf[name]
	if !ok {
		t.Fatalf("no %s in the scrape", name)
	}
	for _, m := range f.Metric {
		if hasLabels(m, labels) {
			switch {
			case m.Counter != nil:
				return m.Counter.GetValue()
			case m.Gauge != nil:
				return m.Gauge.GetValue()
			}
		}
	}
	t.Fatalf("no %s%v in the scrape", name, labels)
	return 0
}

func hasLabels(m *dto.Metric, kv []string) bool {
	for i := 0; i+1 < len(kv); i += 2 {
		found := false
		for _, l := range m.Label {
			found = found || (l.GetName() == kv[i] && l.GetValue() == kv[i+1])
		}
		if !found {
			return false
		}
	}
	return true
}

// --metrics-addr serves the running benchmark's metrics: they parse, grow
// during the run, carry the instance labels, and once every event is done
// equal the final report's figures.
func TestMetricsAddr(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	release := filepath.Join(dir, "release")
	const events = 1000
	run := startCLI(filepath.Join("testdata", "scripts", "metrics_hold.lua"), "--db-driver=sqlite",
		"--sqlite-db="+filepath.Join(dir, "m.db"), "--threads=2", "--events="+strconv.Itoa(2*events), "--time=0",
		"--instance=1/2", "--metrics-addr=127.0.0.1:0", "--release="+release, "--rate=1000", "run")
	var url string
	if !run.waitFor(20*time.Second, func() bool {
		m := regexp.MustCompile(`Serving metrics at (\S+)`).FindStringSubmatch(run.out.String())
		if m != nil {
			url = m[1]
		}
		return url != ""
	}) {
		t.Fatalf("no metrics address printed:\n%s", run.out.String())
	}
	inst := []string{"sysbench_instance", "1", "sysbench_instances", "2"}
	// Growing: two scrapes during the run (--rate keeps it going a while).
	var first float64
	if !run.waitFor(20*time.Second, func() bool {
		first = value(t, scrape(t, url), "sysbench_events_total", inst...)
		return first > 0
	}) {
		t.Fatal("no events counted")
	}
	if !run.waitFor(20*time.Second, func() bool {
		return value(t, scrape(t, url), "sysbench_events_total", inst...) > first
	}) {
		t.Fatal("the events counter does not grow")
	}
	// All events done, the threads held in thread_done: the final figures.
	var mf map[string]*dto.MetricFamily
	if !run.waitFor(30*time.Second, func() bool {
		mf = scrape(t, url)
		return value(t, mf, "sysbench_events_total", inst...) == events
	}) {
		t.Fatalf("events_total never reached %d (its share of --events)", events)
	}
	if got := value(t, mf, "sysbench_threads_running", inst...); got != 2 {
		t.Errorf("threads_running %v while the threads are in thread_done", got)
	}
	reads := value(t, mf, "sysbench_queries_total", append([]string{"kind", "read"}, inst...)...)
	h := mf["sysbench_event_latency_seconds"].Metric[0].Histogram
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := run.wait(t, 30*time.Second)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	report := finalReport(t, out)
	if want := "read:                            " + strconv.Itoa(int(reads)); !strings.Contains(report, want) || reads != events {
		t.Errorf("reads %v; the report:\n%s", reads, report)
	}
	if !strings.Contains(report, "transactions:                        "+strconv.Itoa(events)+" ") {
		t.Errorf("the report's transactions are not %d:\n%s", events, report)
	}
	if h.GetSampleCount() != events {
		t.Errorf("the latency histogram holds %d events, want %d", h.GetSampleCount(), events)
	}
	m := regexp.MustCompile(`sum:\s+([\d.]+)`).FindStringSubmatch(report)
	if m == nil {
		t.Fatalf("no latency sum in the report:\n%s", report)
	}
	sumMS, _ := strconv.ParseFloat(m[1], 64)
	if got := h.GetSampleSum() * 1000; got < sumMS-0.01 || got > sumMS+0.01 {
		t.Errorf("latency sum %.3f ms, the report's %.2f ms", got, sumMS)
	}
	last := h.Bucket[len(h.Bucket)-1]
	if last.GetCumulativeCount() > events || h.Bucket[0].GetCumulativeCount() > last.GetCumulativeCount() {
		t.Errorf("buckets not cumulative: first %d, last %d", h.Bucket[0].GetCumulativeCount(), last.GetCumulativeCount())
	}
}

// A --metrics-addr that cannot be listened on is one FATAL line, exit 1.
func TestMetricsAddrRefused(t *testing.T) {
	t.Parallel()
	out, code := runCLI(t, "cpu", "--time=1", "--metrics-addr=256.0.0.1:1", "run")
	if code != 1 || !strings.Contains(out, "FATAL: --metrics-addr=256.0.0.1:1: cannot listen: ") || strings.Contains(out, "goroutine") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}
