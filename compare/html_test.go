package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

// htmlEvilTarget is a target name that would run as a script if the page did
// not escape it.
const htmlEvilTarget = "sqlite<script>alert(1)</script>"

// htmlSpec describes a synthetic comparison.
type htmlSpec struct {
	targets   []string
	workloads []string
	threads   []int
	rounds    int
	points    int             // intervals per cell
	rate      string          // "tps" or "qps"
	telemetry map[string]bool // the targets with --server-stats figures
	// fails says which cells fail.
	fails    func(target, workload string, threads, round int) bool
	warnings []Warning
	// noScreenshot spares the seconds a long page's screenshot takes.
	noScreenshot bool
}

// htmlCases are the comparisons the report is tested with.
func htmlCases() map[string]htmlSpec {
	return map[string]htmlSpec{
		// Three engines, telemetry on two, a failed cell, a name to escape.
		"realistic": {
			targets:   []string{"mariadb", "postgresql", htmlEvilTarget},
			workloads: []string{"oltp_read_write", "oltp_point_select"},
			threads:   []int{1, 8},
			rounds:    2,
			points:    10,
			rate:      "tps",
			telemetry: map[string]bool{"mariadb": true, "postgresql": true},
			fails: func(target, workload string, threads, round int) bool {
				return target == "postgresql" && workload == "oltp_read_write" && threads == 8 && round == 2
			},
			warnings: []Warning{{Kind: "durability", Message: htmlEvilTarget + " does not wait for its log to reach the disk"}},
		},
		// One thread count, a target none of whose cells finished, no
		// telemetry, no warnings, queries per second.
		"edge": {
			targets:   []string{"mysql", "broken"},
			workloads: []string{"oltp_insert"},
			threads:   []int{16},
			rounds:    1,
			points:    5,
			rate:      "qps",
			fails:     func(target, _ string, _, _ int) bool { return target == "broken" },
		},
		// Issue 37, item 11: cells of one interval each (a 1 s run):
		// every over-time series is a single point, and is drawn.
		"one-point": {
			targets:   []string{"mariadb", "postgresql"},
			workloads: []string{"oltp_point_select"},
			threads:   []int{4},
			rounds:    2,
			points:    1,
			rate:      "tps",
		},
		// Issue 40: five rounds each, a minute per cell: verdicts whose
		// intervals are drawn as whiskers, cells whose steady state and
		// variation are measured.
		"confidence": {
			targets:   []string{"mariadb", "postgresql"},
			workloads: []string{"oltp_read_write"},
			threads:   []int{1, 8, 32},
			rounds:    5,
			points:    60,
			rate:      "tps",
		},
		// Nothing finished: no chart at all.
		"none-finished": {
			targets:   []string{"mariadb"},
			workloads: []string{"oltp_delete"},
			threads:   []int{4},
			rounds:    2,
			points:    10,
			rate:      "tps",
			fails:     func(string, string, int, int) bool { return true },
		},
		// 240 cells of a minute each.
		"large": {
			targets:   []string{"mariadb-10.11", "mariadb-11.4", "mysql-8.4", "postgresql-16", "postgresql-17"},
			workloads: []string{"oltp_read_only", "oltp_read_write", "oltp_write_only", "oltp_update_index"},
			threads:   []int{1, 4, 16, 64},
			rounds:    3,
			points:    60,
			rate:      "tps",
			telemetry: map[string]bool{"mariadb-11.4": true, "mysql-8.4": true, "postgresql-17": true},
			fails: func(target, workload string, threads, round int) bool {
				return threads == 64 && round == 3 && strings.HasPrefix(target, "mysql")
			},
			warnings:     []Warning{{Kind: "spread", Message: "oltp_write_only at 64 threads spreads 23% across rounds"}},
			noScreenshot: true,
		},
	}
}

// htmlSummary makes a Summary as compare would read it back: cells
// with plausible per-second series, and their groups aggregated.
func htmlSummary(sp htmlSpec) *Summary {
	s := &Summary{
		SchemaVersion: SummaryVersion, Title: "Synthetic comparison", Matrix: "bench/matrix.toml",
		Generated: time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC), Rate: sp.rate,
		Workloads: sp.workloads, Threads: sp.threads, Rounds: sp.rounds, Warnings: sp.warnings, TimeS: sp.points,
	}
	for ti, name := range sp.targets {
		s.Targets = append(s.Targets, htmlSynthTarget(ti, name, sp.telemetry[name]))
	}
	for ti, target := range sp.targets {
		for wi, w := range sp.workloads {
			for _, th := range sp.threads {
				var done []Cell
				for r := 1; r <= sp.rounds; r++ {
					c := htmlSynthCell(sp, ti, wi, th, r)
					s.Cells = append(s.Cells, c)
					if c.Status == StatusDone {
						done = append(done, c)
					}
				}
				s.Groups = append(s.Groups, htmlSynthGroup(target, w, th, done, sp.telemetry[target], ti))
			}
		}
	}
	htmlMarkBest(s)
	s.Verdicts = verdicts(s)
	return s
}

func htmlSynthTarget(i int, name string, telemetry bool) Target {
	t := Target{Name: name, Driver: []string{"mysql", "pgsql", "sqlite"}[i%3], ServerVersion: fmt.Sprintf("%d.%d.%d", 10+i, i, 2*i)}
	if telemetry {
		durable := i%2 == 0
		t.Durable = &durable
		t.Settings = []Setting{{Name: "fsync", Value: "on"}, {Name: fmt.Sprintf("commit_setting_%d", i), Value: "<b>1</b> & more"}}
	}
	return t
}

func htmlSynthCell(sp htmlSpec, ti, wi, threads, round int) Cell {
	target, w := sp.targets[ti], sp.workloads[wi]
	c := Cell{
		ID:     fmt.Sprintf("%s/%s/t%d/r%d", target, w, threads, round),
		Target: target, Workload: w, Threads: threads, Round: round, Status: StatusDone,
	}
	if sp.fails != nil && sp.fails(target, w, threads, round) {
		c.Status = StatusFailed
		c.Fatal = "FATAL: thread 3: query failed: ERROR: could not serialize access <due to> concurrent update"
		return c
	}
	base := float64(800+300*ti) * math.Pow(float64(threads), 0.7) / float64(1+wi) * (1 + 0.03*float64(round))
	for i := 1; i <= sp.points; i++ {
		wobble := 1 + 0.08*math.Sin(float64(i+3*ti+round))
		tps := base * wobble
		c.Series = append(c.Series, Point{T: float64(i), TPS: tps, QPS: 20 * tps, P95MS: 2000 * float64(threads) / tps * (2 - wobble)})
	}
	c.TPS, c.QPS, c.P95MS = base, 20*base, 2000*float64(threads)/base
	c.settle(1, sp.rate == RateQPS)
	return c
}

func htmlSynthGroup(target, workload string, threads int, done []Cell, telemetry bool, ti int) Group {
	g := Group{Workload: workload, Threads: threads, Target: target, Rounds: len(done)}
	if len(done) == 0 {
		return g
	}
	var tps, qps, p95 []float64
	for _, c := range done {
		tps, qps, p95 = append(tps, c.TPS), append(qps, c.QPS), append(p95, c.P95MS)
	}
	g.TPS, g.QPS, g.P95MS = htmlAgg(tps), htmlAgg(qps), htmlAgg(p95)
	g.ClientCPUPct = htmlAgg([]float64{35 + 10*float64(threads%7)})
	if telemetry {
		cpu := htmlAgg([]float64{90 * float64(threads) / 2, 95 * float64(threads) / 2})
		rss := htmlAgg([]float64{float64(800+100*ti) * (1 << 20), float64(820+100*ti) * (1 << 20)})
		g.ServerCPUPct, g.PeakMemoryBytes = &cpu, &rss
		g.BytesPerTrx = map[string]Agg{"wal_bytes": htmlAgg([]float64{4200}), "data_bytes": htmlAgg([]float64{2600})}
		if ti%2 == 1 {
			g.BytesPerTrx["binlog_bytes"] = htmlAgg([]float64{1900})
		}
		var total float64
		for _, a := range g.BytesPerTrx {
			total += a.Median
		}
		g.BytesPerTrx["total"] = htmlAgg([]float64{total})
	}
	return g
}

func htmlAgg(v []float64) Agg {
	rounds := slices.Clone(v)
	v = slices.Sorted(slices.Values(v))
	med := v[len(v)/2]
	if len(v)%2 == 0 {
		med = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return Agg{N: len(v), Median: med, Min: v[0], Max: v[len(v)-1], SpreadPct: (v[len(v)-1] - v[0]) / med * 100, Rounds: rounds}
}

// htmlMarkBest sets BestRate and BestP95 on each workload and thread count's
// best group.
func htmlMarkBest(s *Summary) {
	best := map[[2]any][2]int{} // index of the best rate, of the best p95
	for i, g := range s.Groups {
		if g.Rounds == 0 {
			continue
		}
		k := [2]any{g.Workload, g.Threads}
		b, ok := best[k]
		if !ok {
			best[k] = [2]int{i, i}
			continue
		}
		if g.TPS.Median > s.Groups[b[0]].TPS.Median {
			b[0] = i
		}
		if g.P95MS.Median < s.Groups[b[1]].P95MS.Median {
			b[1] = i
		}
		best[k] = b
	}
	for _, b := range best {
		s.Groups[b[0]].BestRate, s.Groups[b[1]].BestP95 = true, true
	}
}

// htmlWantChart is a chart the report of a Summary must have: its kind,
// its datasets' labels and how many points each draws, how many whiskers
// (ranges over two rounds or more) and the largest value or whisker top.
type htmlWantChart struct {
	kind     string
	labels   []string
	points   []int
	whiskers int
	top      float64
	lastT    float64 // over time: the last interval's end
}

// htmlWantCharts derives from s, by the report's rules, the charts its page
// has, by canvas id.
func htmlWantCharts(s *Summary) map[string]htmlWantChart {
	want := map[string]htmlWantChart{}
	finished := func(w string, th int, target string) *Group {
		for i, g := range s.Groups {
			if g.Workload == w && g.Threads == th && g.Target == target && g.Rounds > 0 {
				return &s.Groups[i]
			}
		}
		return nil
	}
	// add adds the chart id unless it has no dataset.
	add := func(id string, c htmlWantChart) {
		if len(c.labels) > 0 {
			want[id] = c
		}
	}
	// byTarget is the chart of a dataset per target, one point per group
	// of groups(target) that has the figure agg.
	byTarget := func(kind string, groups func(target string) []*Group, agg func(*Group) *Agg) htmlWantChart {
		c := htmlWantChart{kind: kind}
		for _, t := range s.Targets {
			k := 0
			for _, g := range groups(t.Name) {
				a := agg(g)
				if a == nil || a.N == 0 || !htmlIsFinite(a.Median) {
					continue
				}
				k++
				c.top = max(c.top, a.Median)
				if a.N > 1 && a.Min != a.Max {
					c.whiskers++
					c.top = max(c.top, a.Max)
				}
			}
			if k > 0 {
				c.labels, c.points = append(c.labels, t.Name), append(c.points, k)
			}
		}
		return c
	}
	for wi, w := range s.Workloads {
		byThreads := func(target string) (gs []*Group) {
			for _, th := range s.Threads {
				if g := finished(w, th, target); g != nil {
					gs = append(gs, g)
				}
			}
			return gs
		}
		add(fmt.Sprintf("throughput-w%d", wi), byTarget(chartThroughput, byThreads, func(g *Group) *Agg { a := g.Rate(s.Rate); return &a }))
		add(fmt.Sprintf("p95-w%d", wi), byTarget(chartP95, byThreads, func(g *Group) *Agg { return &g.P95MS }))
	}
	for _, th := range s.Threads {
		byWorkload := func(target string) (gs []*Group) {
			for _, w := range s.Workloads {
				if g := finished(w, th, target); g != nil {
					gs = append(gs, g)
				}
			}
			return gs
		}
		add(fmt.Sprintf("server-cpu-t%d", th), byTarget(chartServerCPU, byWorkload, func(g *Group) *Agg { return g.ServerCPUPct }))
		add(fmt.Sprintf("server-memory-t%d", th), byTarget(chartServerMemory, byWorkload, func(g *Group) *Agg { return g.PeakMemoryBytes }))
		bytes := htmlWantChart{kind: chartBytes}
		for _, t := range s.Targets {
			count := map[string]int{}
			for _, w := range s.Workloads {
				if g := finished(w, th, t.Name); g != nil {
					for k := range g.BytesPerTrx {
						count[k]++
					}
				}
			}
			if len(count) > 1 {
				delete(count, "total")
			}
			for _, k := range slices.Sorted(maps.Keys(count)) {
				bytes.labels = append(bytes.labels, t.Name+" "+strings.TrimSuffix(k, "_bytes"))
				bytes.points = append(bytes.points, count[k])
			}
		}
		add(fmt.Sprintf("bytes-per-trx-t%d", th), bytes)
	}
	for wi, w := range s.Workloads {
		c := htmlWantChart{kind: chartChange}
		for _, fig := range []string{s.Rate, FigureP95} {
			k := 0
			for _, th := range s.Threads {
				for _, v := range s.Verdicts {
					if v.Workload == w && v.Threads == th && v.Figure == fig && v.Change != nil {
						k++
						if v.Change.Low != v.Change.High {
							c.whiskers++
						}
					}
				}
			}
			if k > 0 {
				name := strings.ToUpper(s.Rate) + ": higher"
				if fig == FigureP95 {
					name = "p95: lower"
				}
				c.labels, c.points = append(c.labels, name+", best against runner-up"), append(c.points, k)
			}
		}
		add(fmt.Sprintf("change-w%d", wi), c)
	}
	for wi, w := range s.Workloads {
		for _, th := range s.Threads {
			c := htmlWantChart{}
			for _, t := range s.Targets {
				for r := 1; r <= s.Rounds; r++ {
					for _, cell := range s.Cells {
						if cell.Target == t.Name && cell.Workload == w && cell.Threads == th && cell.Round == r &&
							cell.Status == StatusDone && len(cell.Series) > 0 {
							c.labels = append(c.labels, fmt.Sprintf("%s r%d", t.Name, r))
							c.points = append(c.points, len(cell.Series))
							c.lastT = max(c.lastT, cell.Series[len(cell.Series)-1].T)
						}
					}
				}
			}
			c.kind = chartRateTime
			add(fmt.Sprintf("rate-time-w%d-t%d", wi, th), c)
			c.kind = chartP95Time
			add(fmt.Sprintf("p95-time-w%d-t%d", wi, th), c)
		}
	}
	return want
}

// htmlWriteReport writes s's report to a file in a test directory.
func htmlWriteReport(t *testing.T, s *Summary) (path string, doc string) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteHTML(&buf, s); err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, buf.String()
}

var htmlCanvasKind = regexp.MustCompile(`<canvas id="([^"]+)" data-chart="([^"]+)"`)

// htmlExternalRef returns the first src= or href= in doc that points at
// the network ("http:", "https:" or "//"), or "".
func htmlExternalRef(doc string) string {
	lower := strings.ToLower(doc)
	for _, attr := range []string{"src", "href"} {
		for i := strings.Index(lower, attr); i >= 0; i = htmlNextIndex(lower, attr, i) {
			rest := strings.TrimLeft(lower[i+len(attr):], " \t\n")
			if !strings.HasPrefix(rest, "=") {
				continue
			}
			rest = strings.TrimLeft(rest[1:], " \t\n\"'")
			for _, scheme := range []string{"http:", "https:", "//"} {
				if strings.HasPrefix(rest, scheme) {
					return doc[i:min(len(doc), i+60)]
				}
			}
		}
	}
	return ""
}

// htmlNextIndex is the index of the next s in doc after the one at i, or -1.
func htmlNextIndex(doc, s string, i int) int {
	j := strings.Index(doc[i+1:], s)
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

// htmlReportData returns the text of the page's #report-data.
func htmlReportData(doc string) (string, bool) {
	_, after, ok := strings.Cut(doc, `<script type="application/json" id="report-data">`)
	data, _, closed := strings.Cut(after, "</script>")
	return data, ok && closed
}

func TestHTMLReport(t *testing.T) {
	for name, sp := range htmlCases() {
		t.Run(name, func(t *testing.T) {
			s := htmlSummary(sp)
			want := htmlWantCharts(s)
			path, doc := htmlWriteReport(t, s)
			htmlCheckDocument(t, s, doc, want)
			shot := ""
			if !sp.noScreenshot {
				shot = filepath.Join(testenv.ArtifactDir(t), "report-"+name+".png")
			}
			htmlCheckCharts(t, s, want, testenv.CheckHTMLReport(t, path, shot))
		})
	}
}

// htmlCheckDocument checks the page without a browser: self-contained, escaped,
// a canvas and the figures of each chart wanted, the tables.
func htmlCheckDocument(t *testing.T, s *Summary, doc string, want map[string]htmlWantChart) {
	t.Helper()
	if m := htmlExternalRef(doc); m != "" {
		t.Errorf("the page refers to the network: %q", m)
	}
	if strings.Contains(doc, "<script>alert") {
		t.Error("a target's name went into the page unescaped")
	}
	for _, tg := range s.Targets {
		if !strings.Contains(doc, ">"+htmlEscape(tg.Name)+"<") {
			t.Errorf("no column heading for target %q", tg.Name)
		}
	}
	// Issue 40: each verdict's interval; issue 48: with the tables' word
	// and text.
	var shown map[verdictKey]verdictCell
	if len(s.Verdicts) > 0 {
		shown = htmlVerdicts(t, doc, s.Rate)
	}
	for _, v := range s.Verdicts {
		if c := shown[verdictKey{v.Workload, v.Threads, v.Figure}]; c.word != string(v.Verdict) || c.text != v.Text() {
			t.Errorf("verdict %s %s at %d threads: the page shows %q (%q), want %q", v.Workload, v.Figure, v.Threads, c.text, c.word, v.Text())
		}
	}
	for _, c := range s.Cells {
		if c.Variation != nil && len(c.Series) > 1 && !strings.Contains(doc, "<td>"+htmlEscape(c.Variation.String())+"</td>") {
			t.Errorf("cell %s's variation %q is not in the page", c.ID, c.Variation)
		}
	}
	for _, c := range s.Cells {
		if c.Fatal != "" && !strings.Contains(doc, htmlEscape(c.Fatal)) {
			t.Errorf("cell %s's FATAL line is not in the page", c.ID)
		}
	}
	for _, w := range s.Warnings {
		if !strings.Contains(doc, htmlEscape(w.Message)) {
			t.Errorf("warning %q is not in the page", w.Message)
		}
	}
	for _, th := range s.Threads {
		if !strings.Contains(doc, fmt.Sprintf(`<section id="threads-%d">`, th)) {
			t.Errorf("no section for %d threads", th)
		}
	}

	canvases := map[string]string{}
	for _, m := range htmlCanvasKind.FindAllStringSubmatch(doc, -1) {
		canvases[m[1]] = m[2]
	}
	wantKinds := map[string]string{}
	for id, c := range want {
		wantKinds[id] = c.kind
	}
	if !maps.Equal(canvases, wantKinds) {
		t.Errorf("canvases (id: kind):\n got %v\nwant %v", canvases, wantKinds)
	}

	text, ok := htmlReportData(doc)
	if !ok {
		t.Fatal("no #report-data in the page")
	}
	var data htmlData
	if err := json.Unmarshal([]byte(text), &data); err != nil {
		t.Fatalf("#report-data: %v", err)
	}
	for _, c := range data.Charts {
		w := want[c.ID]
		var labels []string
		for _, ds := range c.Datasets {
			labels = append(labels, ds.Label)
		}
		if !slices.Equal(labels, w.labels) {
			t.Errorf("#report-data chart %s: datasets %q, want %q", c.ID, labels, w.labels)
		}
	}
	if len(data.Charts) != len(want) {
		t.Errorf("#report-data has %d charts, want %d", len(data.Charts), len(want))
	}
}

// htmlCheckCharts checks what the browser drew against the charts wanted:
// their datasets and points, a whisker for every range over the rounds,
// each workload's own y axis (its top near its largest value, not
// another workload's), and the over-time axes from 0 to the cells' time.
func htmlCheckCharts(t *testing.T, s *Summary, want map[string]htmlWantChart, got []testenv.ChartCheck) {
	t.Helper()
	seen := map[string]bool{}
	for _, c := range got {
		seen[c.ID] = true
		w, ok := want[c.ID]
		if !ok {
			t.Errorf("chart %s (%s) is not wanted", c.ID, c.Kind)
			continue
		}
		if c.Kind != w.kind {
			t.Errorf("chart %s is a %s chart, want %s", c.ID, c.Kind, w.kind)
		}
		if !slices.Equal(c.Labels(), w.labels) {
			t.Errorf("chart %s: datasets %q, want %q", c.ID, c.Labels(), w.labels)
			continue
		}
		for i, d := range c.Datasets {
			if d.Points != w.points[i] {
				t.Errorf("chart %s, dataset %q: %d points drawn, want %d", c.ID, d.Label, d.Points, w.points[i])
			}
		}
		if c.Whiskers != w.whiskers {
			t.Errorf("chart %s: %d whiskers drawn, want %d", c.ID, c.Whiskers, w.whiskers)
		}
		switch c.Kind {
		case chartThroughput, chartP95, chartServerCPU:
			if c.Y.Type != "linear" || c.Y.Max < w.top || c.Y.Max > 2*w.top {
				t.Errorf("chart %s: y axis %+v for values up to %v: not its own", c.ID, c.Y, w.top)
			}
		case chartChange:
			// The axis holds every interval, and 0: a whisker across it is
			// "no difference detected".
			var wi int
			fmt.Sscanf(c.ID, "change-w%d", &wi)
			for _, v := range s.Verdicts {
				if ch := v.Change; ch != nil && v.Workload == s.Workloads[wi] && (c.Y.Min > 100*ch.Low || c.Y.Max < 100*ch.High) {
					t.Errorf("chart %s: y axis %v to %v leaves out %s's interval %+.1f%% to %+.1f%%", c.ID, c.Y.Min, c.Y.Max, v.Figure, 100*ch.Low, 100*ch.High)
				}
			}
			if c.Y.Min > 0 || c.Y.Max < 0 {
				t.Errorf("chart %s: y axis %+v leaves out 0", c.ID, c.Y)
			}
		case chartRateTime, chartP95Time:
			if c.X.Type != "linear" || c.X.Min != 0 || c.X.Max != max(float64(s.TimeS), w.lastT) {
				t.Errorf("chart %s: x axis %+v, want seconds 0 to %v", c.ID, c.X, max(float64(s.TimeS), w.lastT))
			}
		}
	}
	for id := range want {
		if !seen[id] {
			t.Errorf("chart %s was not drawn", id)
		}
	}
}

// htmlEscape is s as the page's text shows it.
func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;", "+", "&#43;").Replace(s)
}

// TestHTMLBrowserCheckFindsFaults shows that the browser check fails the
// pages it should: a script that throws, a request to the network, a
// console.error, a canvas with no chart, a dataset with no values, a
// blank chart, and a page whose count of charts is wrong.
func TestHTMLBrowserCheckFindsFaults(t *testing.T) {
	chromium := testenv.Chromium(t)
	pages := map[string]struct {
		body string
		want []string // in the problems
	}{
		"throws": {
			body: `<script>throw new Error("boom")</script>`,
			want: []string{"JavaScript exception: Uncaught Error: boom", "did not set data-charts-ready"},
		},
		"faulty": {
			body: `<img src="http://127.0.0.1:9/x.png" alt="">
<canvas id="c1" data-chart="one"></canvas><canvas id="c2" data-chart="blank"></canvas><canvas id="c3" data-chart="none"></canvas>
<script>` + chartJS + `</script>
<script>
new Chart(document.getElementById('c1'), {type: 'line', options: {animation: false},
  data: {labels: ['a', 'b'], datasets: [{label: 'empty', data: [null, null]}, {label: 'full', data: [1, 2], borderColor: 'rgb(200,0,0)'}]}});
new Chart(document.getElementById('c2'), {type: 'bar', options: {animation: false},
  data: {labels: ['a'], datasets: [{label: 'clear', data: [1], backgroundColor: 'rgba(0,0,0,0)'}]}});
console.error('oops', 42);
document.body.dataset.chartsReady = '2';
</script>`,
			want: []string{
				"network request for http://127.0.0.1:9/x.png",
				"console.error: oops 42",
				`chart c1 (one): dataset "empty" has no values`,
				"chart c2 (blank): its plot area is blank",
				"chart c3 (none): Chart.js has no chart on the canvas",
				"the page says it drew 2 charts, it has 3",
			},
		},
	}
	for name, p := range pages {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name+".html")
			doc := "<!DOCTYPE html><html><head><meta charset=utf-8><link rel=icon href=\"data:,\"></head><body>" + p.body + "</body></html>"
			if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			in, err := testenv.InspectHTMLReport(t.Context(), chromium, path, false)
			if err != nil {
				t.Fatal(err)
			}
			all := strings.Join(in.Problems, "\n")
			for _, w := range p.want {
				if !strings.Contains(all, w) {
					t.Errorf("no problem %q in:\n%s", w, all)
				}
			}
		})
	}
}

// TestHTMLAssetsInline checks that the scripts can go inline: nothing in
// them ends a <script> element or the comment the license goes in.
func TestHTMLAssetsInline(t *testing.T) {
	for name, js := range map[string]string{"chart.umd.min.js": chartJS, "report.js": reportJS} {
		if l := strings.ToLower(js); strings.Contains(l, "</script") || strings.Contains(l, "<!--") {
			t.Errorf("%s has </script or <!--", name)
		}
	}
	if strings.Contains(chartJSLicense, "*/") {
		t.Error("Chart.js's license has */, which would end its comment")
	}
}

// TestHTMLNotFinite checks that figures JSON cannot hold (NaN, the
// infinities) neither stop the report nor reach its data.
func TestHTMLNotFinite(t *testing.T) {
	s := htmlSummary(htmlCases()["edge"])
	nan, inf := math.NaN(), math.Inf(1)
	g := &s.Groups[0]
	g.QPS = Agg{N: 1, Median: nan, Min: nan, Max: nan, SpreadPct: nan} // the edge case's rate
	g.P95MS = Agg{N: 2, Median: 3, Min: 1, Max: inf, SpreadPct: inf}
	g.ServerCPUPct = &Agg{N: 1, Median: inf}
	s.Cells[0].Series[0].P95MS = nan
	_, doc := htmlWriteReport(t, s)
	text, ok := htmlReportData(doc)
	if !ok {
		t.Fatal("no #report-data in the page")
	}
	var data htmlData
	if err := json.Unmarshal([]byte(text), &data); err != nil {
		t.Fatalf("#report-data: %v", err)
	}
	var ids []string
	for _, c := range data.Charts {
		ids = append(ids, c.ID)
	}
	// The NaN rate leaves its chart without a dataset; the infinite CPU
	// leaves its chart out; the NaN p95 leaves a gap.
	if want := []string{"p95-w0", "rate-time-w0-t16", "p95-time-w0-t16"}; !slices.Equal(ids, want) {
		t.Errorf("charts %q, want %q", ids, want)
	}
	for _, c := range data.Charts {
		if c.ID == "p95-time-w0-t16" && c.Datasets[0].Points[0].Y != nil {
			t.Errorf("the NaN p95 is %v in the chart, want null", *c.Datasets[0].Points[0].Y)
		}
	}
}

func TestHTMLNil(t *testing.T) {
	if err := WriteHTML(&bytes.Buffer{}, nil); err == nil {
		t.Error("WriteHTML(nil) did not fail")
	}
}

func TestHTMLNumbers(t *testing.T) {
	for _, c := range []struct {
		v     float64
		f     func(float64) string
		shown string
	}{
		{1234567.8, htmlNumber, "1,234,568"},
		{-1234, htmlNumber, "-1,234"},
		{999.6, htmlNumber, "1,000"},
		{123.4, htmlNumber, "123"},
		{12.34, htmlNumber, "12.3"},
		{1.234, htmlNumber, "1.23"},
		{math.NaN(), htmlNumber, "—"},
		{math.Inf(1), htmlPercent, "—"},
		{87.5, htmlPercent, "87.5%"},
		{0, htmlBytes, "0 B"},
		{512.4, htmlBytes, "512 B"},
		{1023.6, htmlBytes, "1.00 KiB"},
		{5376, htmlBytes, "5.25 KiB"},
		{3 << 30, htmlBytes, "3.00 GiB"},
	} {
		if got := c.f(c.v); got != c.shown {
			t.Errorf("%v shown as %q, want %q", c.v, got, c.shown)
		}
	}
}

// Issue 28, item 7: what the report of seed 000 hid. A point select's
// p95 of 0.25 ms against 0.40 ms beside order transactions' 14 ms, one
// target's throughput spread 110% across rounds, 0.3 bytes written per
// transaction (0 to 0.6), MariaDB's buffer pool in bytes beside
// PostgreSQL's shared_buffers in its units. Each workload gets its own
// axes, the spread is drawn as whiskers, units are a person's, memory has
// one name, and which target leads and the verdict on its lead are said at a glance.
func TestHTMLReportOfTheIssue(t *testing.T) {
	s := htmlSummary(htmlSpec{targets: []string{"mariadb", "postgresql"}, workloads: []string{"point_select", "order_trx"},
		threads: []int{10, 50}, rounds: 3, points: 2, rate: "tps", telemetry: map[string]bool{"mariadb": true, "postgresql": true}})
	s.Targets[0].Settings = append(s.Targets[0].Settings, Setting{"innodb_buffer_pool_size", "134217728"})
	s.Targets[1].Settings = append(s.Targets[1].Settings, Setting{"shared_buffers", "128MB"})
	for i := range s.Groups {
		g := &s.Groups[i]
		switch {
		case g.Workload == "point_select" && g.Target == "mariadb":
			g.P95MS = htmlAgg([]float64{0.24, 0.25, 0.27})
		case g.Workload == "point_select":
			g.P95MS = htmlAgg([]float64{0.38, 0.40, 0.41})
			g.TPS = htmlAgg([]float64{5000, 9000, 14900}) // 110% spread
		default:
			g.P95MS = htmlAgg([]float64{13.5, 14, 14.8})
		}
		g.BytesPerTrx = map[string]Agg{"wal_bytes": htmlAgg([]float64{0, 0.3, 0.6}), "total": htmlAgg([]float64{0, 0.3, 0.6})}
	}
	s.Verdicts = verdicts(s)
	want := htmlWantCharts(s)
	path, doc := htmlWriteReport(t, s)
	htmlCheckDocument(t, s, doc, want)
	body, _, _ := strings.Cut(doc, "<script")
	for _, w := range []string{
		"<td>128 MiB</td>",                      // innodb_buffer_pool_size
		"<td>128 MiB</td></tr>",                 // shared_buffers, the row's last
		"0.3 B<small>range 0 B – 0.6 B</small>", // not "0 B spread 200.0%"
		"<caption>server memory (peak PSS)</caption>",
		`<section id="glance">`,
		// point_select's p95: 3 rounds each, apart far enough for the
		// interval to leave out 0 (issue 48, item 4: once "not sure" here
		// and "difference detected" a line below)
		`data-verdict="better"><span class="figure">p95</span> <em class="word">better</em>: <span class="swatch" style="background-color: #`,
		"<strong>mariadb</strong> against postgresql, -36.2%, 95% CI -43.5% to -27.9%, 3 rounds each</div>",
		"<strong>postgresql</strong>",
	} {
		if !strings.Contains(body, w) {
			t.Errorf("the page lacks %q", w)
		}
	}
	for _, bad := range []string{"RSS", "spread 200.0%", "134217728"} {
		if strings.Contains(body, bad) {
			t.Errorf("the page shows %q", bad)
		}
	}
	charts := testenv.CheckHTMLReport(t, path, filepath.Join(testenv.ArtifactDir(t), "report-issue28.png"))
	htmlCheckCharts(t, s, want, charts)
	axes := map[string]float64{}
	for _, c := range charts {
		axes[c.ID] = c.Y.Max
	}
	// The point select's p95 on an axis of its own: under 1 ms, where the
	// order transactions' runs past 14 ms.
	if axes["p95-w0"] >= 1 || axes["p95-w1"] < 14 {
		t.Errorf("p95 axes: point_select up to %v ms, order_trx up to %v ms", axes["p95-w0"], axes["p95-w1"])
	}
}

// Outages of cells are shaded on the charts over time, in the cell's
// colour, over the seconds they lasted (issue 41): the page lists them
// and the browser draws them, clipped to the axis (the run's seconds); a
// cell without one adds no band.
func TestHTMLOutageBands(t *testing.T) {
	sp := htmlCases()["one-point"]
	sp.points = 10
	s := htmlSummary(sp)
	want := map[string][][2]float64{}
	for i := range s.Cells {
		c := &s.Cells[i]
		switch {
		case c.Target == "mariadb" && c.Round == 1:
			c.Outages = []OutageSpan{{StartS: 3.25, EndS: 5.5}, {StartS: 8, EndS: 12, Ongoing: true}}
		case c.Target == "postgresql" && c.Round == 2:
			c.Outages = []OutageSpan{{StartS: -0.5, EndS: 1.5}} // began in the warm-up
		}
	}
	// The axis is the run's 10 s: the ongoing outage is drawn to its end.
	for _, kind := range []string{chartRateTime, chartP95Time} {
		want[kind+"-w0-t4"] = [][2]float64{{3.25, 5.5}, {8, 10}, {0, 1.5}}
	}
	path, doc := htmlWriteReport(t, s)
	if !strings.Contains(doc, `"label":"mariadb r1: outage of 4.000s, ongoing at the end"`) {
		t.Errorf("the page does not name the ongoing outage")
	}
	charts := testenv.CheckHTMLReport(t, path, filepath.Join(testenv.ArtifactDir(t), "report-outages.png"))
	seen := 0
	for _, c := range charts {
		w, ok := want[c.ID]
		if !ok {
			if len(c.Bands) != 0 {
				t.Errorf("chart %s: bands %v, want none", c.ID, c.Bands)
			}
			continue
		}
		seen++
		if !reflect.DeepEqual(c.Bands, w) {
			t.Errorf("chart %s: bands %v drawn, want %v", c.ID, c.Bands, w)
		}
	}
	if seen != len(want) {
		t.Errorf("%d of the %d charts over time found", seen, len(want))
	}
}
