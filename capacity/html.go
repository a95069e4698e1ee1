package capacity

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"sync"

	"github.com/sysbench-go/sysbench-go/compare"
	"github.com/sysbench-go/sysbench-go/report"
)

var (
	//go:embed assets/page.html.tmpl
	pageTemplate string
	//go:embed assets/page.js
	pageJS string
)

// Page is what the capacity command's HTML page shows: the search's
// latency against throughput, the sweep's throughput against threads
// (either may be nil).
type Page struct {
	Title  string
	Search *Result
	Sweep  *SweepResult
}

var pageAssets = sync.OnceValue(func() (a struct {
	tmpl    *template.Template
	chartJS template.JS
	csp     string
}) {
	lib := compare.ChartJS()
	a.tmpl = template.Must(template.New("capacity").Parse(pageTemplate))
	a.chartJS = template.JS(lib)
	// No network; inline scripts only if they are ours.
	a.csp = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src " + scriptHash(lib) + " " + scriptHash(pageJS)
	return a
})

func scriptHash(js string) string {
	sum := sha256.Sum256([]byte(js))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// WriteHTML writes the page: one self-contained document (Chart.js
// inlined, the figures as JSON), which sets its body's data-charts-ready
// to the number of charts once drawn.
func WriteHTML(w io.Writer, p Page) error {
	a := pageAssets()
	v := pageView{Title: p.Title, CSP: a.csp, ChartJS: a.chartJS, Script: template.JS(pageJS)}
	var charts []chart
	if p.Search != nil {
		v.Search = searchView(p.Search)
		if c, ok := latencyChart(p.Search); ok {
			charts = append(charts, c)
		}
	}
	if p.Sweep != nil && len(p.Sweep.Steps) > 0 {
		v.Sweep = sweepView(p.Sweep)
		charts = append(charts, scalabilityChart(p.Sweep))
	}
	if charts == nil {
		charts = []chart{}
	}
	data, err := json.Marshal(struct {
		Charts []chart `json:"charts"`
	}{charts})
	if err != nil {
		return fmt.Errorf("capacity page: %v", err)
	}
	v.Data = data
	if err := a.tmpl.Execute(w, v); err != nil {
		return fmt.Errorf("capacity page: %v", err)
	}
	return nil
}

type pageView struct {
	Title   string
	Search  *searchSection
	Sweep   *sweepSection
	Data    json.RawMessage
	CSP     string
	ChartJS template.JS
	Script  template.JS
}

type searchSection struct {
	Line    string
	Answer  bool
	Columns []string
	Rows    []stepRow
}

type stepRow struct {
	N                                                         int
	Phase, Offered, Achieved, Errors, Steady, Verdict, Fitted string
	Threads                                                   int
	Latencies                                                 []string
	Fail                                                      bool
}

type sweepSection struct {
	Line    string
	Columns []string
	Rows    []stepRow
}

func columns(pcts []float64) []string {
	out := make([]string, len(pcts))
	for i, p := range pcts {
		out[i] = "p" + report.PercentileKey(p)
	}
	return out
}

func row(i int, st Step, pcts []float64) stepRow {
	r := stepRow{N: i + 1, Phase: st.Phase, Threads: st.Threads, Offered: offered(st), Achieved: fmtRate(st.Achieved),
		Errors: fmt.Sprintf("%.2f%%", 100*st.ErrorShare), Steady: yesNo(st.Steady), Verdict: verdict(st),
		Fail: st.Model == modelOpen && !st.Holds}
	for _, p := range pcts {
		r.Latencies = append(r.Latencies, fmt.Sprintf("%.3f", float64(st.Snapshot.Percentile(p))/1e6))
	}
	return r
}

func searchView(r *Result) *searchSection {
	s := &searchSection{Line: r.Record.Line, Answer: r.Record.Answer != nil, Columns: columns(r.percentiles)}
	for i, st := range r.Steps {
		s.Rows = append(s.Rows, row(i, st, r.percentiles))
	}
	return s
}

func sweepView(r *SweepResult) *sweepSection {
	s := &sweepSection{Line: r.Line(), Columns: columns(r.percentiles)}
	for i, st := range r.Steps {
		row := row(i, st, r.percentiles)
		row.Fitted = "-"
		if r.Fit != nil {
			row.Fitted = fmtRate(r.Fit.X(float64(st.Threads)))
		}
		s.Rows = append(s.Rows, row)
	}
	return s
}

// chart is one chart as page.js draws it: a scatter chart whose datasets
// are points, joined by lines or not.
type chart struct {
	ID       string    `json:"id"`
	Title    string    `json:"title"`
	X        axis      `json:"x"`
	Y        axis      `json:"y"`
	Datasets []dataset `json:"datasets"`
}

// axis is a chart's axis; a nil bound is Chart.js's own choice.
type axis struct {
	Type  string   `json:"type"`
	Title string   `json:"title"`
	Min   *float64 `json:"min,omitempty"`
	Max   *float64 `json:"max,omitempty"`
}

type dataset struct {
	Label  string       `json:"label"`
	Points [][2]float64 `json:"points"`
	Line   bool         `json:"line"`
	Color  string       `json:"color"`
	Radius float64      `json:"radius"`
	Style  string       `json:"style,omitempty"`
	Dash   []int        `json:"dash,omitempty"`
}

var palette = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf"}

// latencyChart is the latency–throughput curve: each percentile against
// the achieved rate over the open-model steps, the latency objectives as
// dashed lines, and the answer as a star.
func latencyChart(r *Result) (chart, bool) {
	var open []Step
	for _, st := range r.Steps {
		if st.Model == modelOpen && st.Achieved > 0 && st.Snapshot.Latency.Events > 0 {
			open = append(open, st)
		}
	}
	if len(open) == 0 {
		return chart{}, false
	}
	slices.SortStableFunc(open, func(a, b Step) int {
		switch {
		case a.Offered < b.Offered:
			return -1
		case a.Offered > b.Offered:
			return 1
		}
		return 0
	})
	c := chart{ID: "latency", Title: "Latency against throughput (open model)",
		X: axis{Type: "linear", Title: "achieved rate (events per second)"},
		Y: axis{Type: "logarithmic", Title: "latency (ms), from each arrival"}}
	xmin, xmax, ymin := math.Inf(1), 0.0, math.Inf(1)
	see := func(x, y float64) {
		xmin, xmax, ymin = math.Min(xmin, x), math.Max(xmax, x), math.Min(ymin, y)
	}
	for i, p := range r.percentiles {
		ds := dataset{Label: "p" + report.PercentileKey(p), Line: true, Color: palette[i%len(palette)], Radius: 3}
		for _, st := range open {
			y := float64(st.Snapshot.Percentile(p)) / 1e6
			ds.Points = append(ds.Points, [2]float64{st.Achieved, y})
			see(st.Achieved, y)
		}
		c.Datasets = append(c.Datasets, ds)
	}
	for _, t := range r.objective {
		if t.Kind() != "latency" {
			continue
		}
		b := t.Bound() / 1e6
		see(xmin, b)
		c.Datasets = append(c.Datasets, dataset{Label: "objective " + t.Expr, Color: "#d62728", Dash: []int{6, 4},
			Line: true, Radius: 0, Points: [][2]float64{{xmin, b}, {xmax, b}}})
	}
	if a := r.Record.Answer; a != nil {
		y := 0.0
		for i, t := range r.objective {
			if t.Kind() == "latency" && i < len(a.Measured) {
				y = a.Measured[i].Value / 1e6
				break
			}
		}
		if y <= 0 {
			y = ymin
		}
		see(a.Rate, y)
		c.Datasets = append(c.Datasets, dataset{Label: "capacity " + fmtRate(a.Rate) + " tps", Color: "#d62728",
			Radius: 9, Style: "star", Points: [][2]float64{{a.Rate, y}}})
	}
	// The objective's line spans the points' x range.
	for i := range c.Datasets {
		if ds := &c.Datasets[i]; len(ds.Points) == 2 && ds.Radius == 0 {
			ds.Points[0][0], ds.Points[1][0] = xmin, xmax
		}
	}
	return c, true
}

// scalabilityChart is throughput against threads: the measured points,
// the fitted law, its predicted peak and the measured one.
func scalabilityChart(r *SweepResult) chart {
	c := chart{ID: "scalability", Title: "Throughput against threads (closed model)",
		X: axis{Type: "linear", Title: "threads"}, Y: axis{Type: "linear", Title: "achieved rate (events per second)"}}
	maxN := 0.0
	measured := dataset{Label: "measured", Color: "#1f77b4", Radius: 5}
	for _, st := range r.Steps {
		measured.Points = append(measured.Points, [2]float64{float64(st.Threads), st.Achieved})
		maxN = math.Max(maxN, float64(st.Threads))
	}
	c.Datasets = append(c.Datasets, measured)
	top := maxN
	if u := r.Fit; u != nil {
		pk := u.Peak()
		if !math.IsInf(pk, 0) && pk <= 2*maxN {
			top = math.Max(top, pk)
		}
		fit := dataset{Label: "USL fit", Color: "#ff7f0e", Line: true, Radius: 0}
		if u.Poor {
			fit.Label = "USL fit (poor)"
			fit.Dash = []int{4, 4}
		}
		const n = 80
		for i := 0; i <= n; i++ {
			x := 1 + (top-1)*float64(i)/n
			fit.Points = append(fit.Points, [2]float64{x, u.X(x)})
		}
		c.Datasets = append(c.Datasets, fit)
		if !math.IsInf(pk, 0) && pk <= top {
			c.Datasets = append(c.Datasets, dataset{Label: fmt.Sprintf("predicted peak N* %.0f", pk), Color: "#d62728",
				Radius: 9, Style: "star", Points: [][2]float64{{pk, u.X(pk)}}})
		}
	}
	c.Datasets = append(c.Datasets, dataset{Label: fmt.Sprintf("measured peak (%d threads)", r.Record.PeakThreads),
		Color: "#2ca02c", Radius: 8, Style: "triangle", Points: [][2]float64{{float64(r.Record.PeakThreads), r.Record.PeakRate}}})
	zero := 0.0
	c.X.Min, c.Y.Min = &zero, &zero
	return c
}
