package live

import (
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/sysbench-go/sysbench-go/engine"
	"github.com/sysbench-go/sysbench-go/metrics"
)

// dashboardFile is the Grafana dashboard of these metrics.
const dashboardFile = "../deploy/grafana/sysbench-go.json"

// view is a running benchmark as the collector reads it, with an ignored
// error so that every series exists.
type view struct{ s *metrics.Snapshot }

func (v view) Totals() *metrics.Snapshot     { return v.s }
func (v view) ThreadsRunning() int           { return 2 }
func (v view) Outages() (int, float64, bool) { return 1, 2.5, true }
func (v view) Clock() engine.Clock           { return engine.Clock{} }

// exported scrapes a server of an instance of a distributed run and
// returns the names a query can use (a histogram's _bucket, _sum and
// _count) with the labels of each.
func exported(t *testing.T) map[string][]string {
	t.Helper()
	srv, err := Listen("127.0.0.1:0", Info{Test: "oltp_read_write", Driver: "pgsql", Version: "0.2.0", Threads: 2, Instance: 1, Instances: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	s := metrics.Empty(time.Now(), 2)
	s.Errors = map[string]uint64{"40001": 1}
	srv.Attach(view{s})
	resp, err := http.Get(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string][]string{}
	for name, f := range families {
		var labels []string
		for _, m := range f.Metric {
			for _, l := range m.Label {
				if !slices.Contains(labels, l.GetName()) {
					labels = append(labels, l.GetName())
				}
			}
		}
		names[name] = labels
		switch f.GetType() {
		case dto.MetricType_HISTOGRAM:
			names[name+"_bucket"] = append(slices.Clone(labels), "le")
			names[name+"_sum"], names[name+"_count"] = labels, labels
		case dto.MetricType_SUMMARY:
			names[name+"_sum"], names[name+"_count"] = labels, labels
		}
	}
	return names
}

// queries are the PromQL expressions of a dashboard: its panels' targets'
// and its variables' queries.
func queries(t *testing.T, v any, out *[]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && (k == "expr" || k == "definition" || (k == "query" && strings.Contains(s, "("))) {
				*out = append(*out, s)
			}
			queries(t, e, out)
		}
	case []any:
		for _, e := range x {
			queries(t, e, out)
		}
	}
}

var (
	// metricRE: the names in a query that are metrics of this program or
	// of the client library's process and Go collectors, once the label
	// lists are cut out (labelListRE).
	metricRE = regexp.MustCompile(`\b(?:sysbench|process|go)_[a-z_]+\b`)
	// labelListRE: label matchers, grouping clauses and label_values'
	// label, where names are labels.
	labelListRE = regexp.MustCompile(`\{[^}]*\}|\b(?:by|on|without|ignoring|group_left|group_right)\s*\([^)]*\)|,\s*[a-z_]+\)`)
	// byRE and matcherRE: the labels a query groups by or matches on.
	byRE      = regexp.MustCompile(`\b(?:by|on|without|ignoring|group_left|group_right)\s*\(([^)]*)\)|label_values\([a-z_]+,\s*([a-z_]+)\)`)
	matcherRE = regexp.MustCompile(`\{([^}]*)\}`)
	labelRE   = regexp.MustCompile(`([a-z_]+)\s*(?:=~|!~|!=|=)`)
)

// TestDashboard: every query of the Grafana dashboard names metrics and
// labels that the program exports (Prometheus' own target labels
// instance and job aside), and the dashboard shows what a run needs: the
// rate, latency percentiles from the histogram, errors by code, per
// instance and summed.
func TestDashboard(t *testing.T) {
	data, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var dash map[string]any
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	if dash["title"] == nil || dash["uid"] == nil || dash["schemaVersion"] == nil {
		t.Errorf("%s is not a Grafana dashboard (title, uid, schemaVersion)", dashboardFile)
	}
	var qs []string
	queries(t, dash, &qs)
	if len(qs) < 10 {
		t.Fatalf("only %d queries found", len(qs))
	}
	for _, p := range problems(qs, exported(t)) {
		t.Error(p)
	}
	all := strings.Join(qs, "\n")
	for _, want := range []string{
		"sum(rate(sysbench_events_total",                                                   // the run's tps
		"sum by (sysbench_instance) (rate(sysbench_events_total",                           // per instance
		"histogram_quantile(0.95, sum by (le) (rate(sysbench_event_latency_seconds_bucket", // p95 of all
		"sum by (le, sysbench_instance)",                                                   // per instance
		"sum by (code) (rate(sysbench_errors_by_code_total",                                // errors by code
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no query has %q", want)
		}
	}
}

// problems are what is wrong in queries qs given the names exported.
func problems(qs []string, names map[string][]string) []string {
	var out []string
	for _, q := range qs {
		metricsOf := metricRE.FindAllString(labelListRE.ReplaceAllString(q, " "), -1)
		if len(metricsOf) == 0 {
			out = append(out, "query names no metric: "+q)
		}
		var labels []string
		for _, m := range metricsOf {
			ls, ok := names[m]
			if !ok {
				out = append(out, "query names "+m+", which is not exported: "+q)
			}
			labels = append(labels, ls...)
		}
		for _, m := range byRE.FindAllStringSubmatch(q, -1) {
			for _, l := range strings.Split(m[1]+","+m[2], ",") {
				if l = strings.TrimSpace(l); l != "" && l != "instance" && l != "job" && !slices.Contains(labels, l) {
					out = append(out, "query groups by "+l+", a label its metrics do not have: "+q)
				}
			}
		}
		for _, m := range matcherRE.FindAllStringSubmatch(q, -1) {
			for _, l := range labelRE.FindAllStringSubmatch(m[1], -1) {
				if !slices.Contains(labels, l[1]) {
					out = append(out, "query matches on "+l[1]+", a label its metrics do not have: "+q)
				}
			}
		}
	}
	return out
}

// TestDashboardCatchesMistakes: the check finds a misspelt metric or
// label, and takes the right ones.
func TestDashboardCatchesMistakes(t *testing.T) {
	names := exported(t)
	for q, want := range map[string]string{
		`sum(rate(sysbench_event_total[1m]))`:                                    "sysbench_event_total, which is not exported",
		`sum by (instanse) (sysbench_threads)`:                                   "groups by instanse",
		`sum(sysbench_threads{sysbench_instanse="1"})`:                           "matches on sysbench_instanse",
		`sum by (code) (rate(sysbench_errors_total[1m]))`:                        "groups by code",
		`histogram_quantile(0.9, sum by (le) (rate(sysbench_events_total[1m])))`: "groups by le",
		`sum by (le) (rate(sysbench_event_latency_seconds_bucket[1m]))`:          "",
		`label_values(sysbench_events_total, sysbench_instanse)`:                 "groups by sysbench_instanse",
		`label_values(sysbench_events_total, sysbench_instance)`:                 "",
		`rate(go_gc_duration_seconds_count[1m])`:                                 "",
	} {
		got := strings.Join(problems([]string{q}, names), "\n")
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("%s: problems %q, want %q", q, got, want)
		}
	}
}
