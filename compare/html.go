package compare

import (
	"cmp"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/sysbench-go/sysbench-go/report"
	"github.com/sysbench-go/sysbench-go/stats"
)

// The page's assets. Chart.js is vendored (MIT, its license beside it);
// report.js and report.css are ours.
var (
	//go:embed assets/chart.umd.min.js
	chartJS string
	//go:embed assets/chart.js.LICENSE.md
	chartJSLicense string
	//go:embed assets/report.js
	reportJS string
	//go:embed assets/report.css
	reportCSS string
	//go:embed assets/report.html.tmpl
	reportTemplate string
)

// The kinds of chart of the report, each canvas's data-chart attribute.
//
// A workload's throughput and p95 get charts of their own, so that each
// has an axis of its own: a point select's 0.3 ms is not a sliver beside
// an order transaction's 40 ms. Medians are drawn with whiskers from the
// rounds' min to their max, so that how sure a difference is shows
// without hovering.
const (
	chartThroughput   = "throughput"    // a workload's median rate by thread count, a line per target
	chartP95          = "p95"           // a workload's median p95 by thread count, a line per target
	chartRateTime     = "rate-time"     // a workload's rate each second, a line per cell
	chartP95Time      = "p95-time"      // a workload's p95 each second, a line per cell
	chartBytes        = "bytes-per-trx" // bytes written per transaction, stacked by kind
	chartServerCPU    = "server-cpu"    // the server's CPU %
	chartServerMemory = "server-memory" // the server's memory: its peak PSS
	chartChange       = "change"        // a workload's verdicts: the best's change against the runner-up, with its 95% CI
)

// htmlStatic is what every report shares: the parsed template, the inline
// scripts and the Content-Security-Policy allowing just those scripts.
type htmlStatic struct {
	tmpl    *template.Template
	chartJS template.JS
	csp     string
}

var htmlAssets = sync.OnceValue(func() htmlStatic {
	// The license goes into the page with the code it covers.
	lib := "/*! Chart.js license:\n" + chartJSLicense + "*/\n" + chartJS
	return htmlStatic{
		tmpl: template.Must(template.New("report").
			Funcs(template.FuncMap{"threads": htmlThreadCount}).Parse(reportTemplate)),
		chartJS: template.JS(lib),
		// No network at all; inline scripts only if they are ours, so a
		// name that got past the escaping still could not run.
		csp: "default-src 'none'; img-src data:; style-src 'unsafe-inline'; " +
			"script-src " + htmlScriptHash(lib) + " " + htmlScriptHash(reportJS),
	}
})

// htmlScriptHash is the CSP source allowing an inline script with text js.
func htmlScriptHash(js string) string {
	sum := sha256.Sum256([]byte(js))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// WriteHTML writes s as one self-contained HTML document: tables drawn in
// the page itself, and charts that Chart.js, inlined with the page's own
// script and styles, draws from the figures embedded as JSON. Viewing it
// needs no network. When its script has drawn every chart it sets the
// body's data-charts-ready attribute to how many it drew.
func WriteHTML(w io.Writer, s *Summary) error {
	if s == nil {
		return errors.New("html report: no summary")
	}
	static := htmlAssets()
	p := newHTMLBuilder(s).page()
	data, err := json.Marshal(htmlData{Charts: p.charts()})
	if err != nil {
		return fmt.Errorf("html report: %v", err)
	}
	p.Data = data
	p.CSP = static.csp
	p.ChartJS = static.chartJS
	p.Script = template.JS(reportJS)
	p.Style = template.CSS(reportCSS)
	if err := static.tmpl.Execute(w, p); err != nil {
		return fmt.Errorf("html report: %v", err)
	}
	return nil
}

// htmlData is the JSON the page's script reads.
type htmlData struct {
	Charts []htmlChart `json:"charts"`
}

// htmlPage is what the template shows.
type htmlPage struct {
	Title, Generated, Matrix, Rate string
	// Capacity is a capacity matrix's objective ("" for runs at a fixed
	// load).
	Capacity      string
	Rounds        int
	VerdictWords  string
	CellCounts    string
	Targets       []htmlTarget
	Warnings      []Warning
	TargetRows    []htmlSettingRow
	Glance        []htmlGlanceRow
	GlanceThreads []int
	Changes       []htmlChart
	Throughput    []htmlChart
	ByThreads     []htmlThreads
	OverTime      []htmlOverTime
	Failed        []Cell

	Data    json.RawMessage
	CSP     string
	ChartJS template.JS
	Script  template.JS
	Style   template.CSS
}

// charts lists every chart of the page in the order it shows them (an
// empty list, not JSON's null, when there are none).
func (p *htmlPage) charts() []htmlChart {
	all := append(append([]htmlChart{}, p.Changes...), p.Throughput...)
	for _, t := range p.ByThreads {
		all = append(all, t.Charts...)
	}
	for _, o := range p.OverTime {
		all = append(all, o.Charts...)
	}
	return all
}

// htmlGlanceRow is a workload's verdicts, one per thread count.
type htmlGlanceRow struct {
	Workload string
	Cells    []htmlGlance
}

// htmlGlance is the verdicts of a workload at a thread count: the better
// target on the rate and on the p95, and the verdict on its lead.
type htmlGlance struct {
	Rate, P95 *htmlVerdict
}

// htmlVerdict is a verdict as the page shows it: its word, the best
// target's name in its colour, the rest of its text (Verdict.Detail); the
// interval's notes as a tooltip. The words and the text are the tables'.
type htmlVerdict struct {
	Figure, Best, Color string
	Word                stats.Verdict
	Class, Detail       string
	Notes               string
}

// htmlTarget is a target's column heading.
type htmlTarget struct {
	Name  string
	Color string // #rrggbb
}

// htmlSettingRow is a row of the targets table: a setting's value on each
// target ("" where it has none); Differ when two targets' values differ.
type htmlSettingRow struct {
	Name   string
	Values []string
	Differ bool
}

// htmlThreads is the section of one thread count.
type htmlThreads struct {
	Threads int
	Tables  []htmlTable
	Charts  []htmlChart
}

// htmlOverTime is the charts of one workload at one thread count over time.
type htmlOverTime struct {
	Workload string
	Threads  int
	Charts   []htmlChart
	Cells    []htmlSteadiness
}

// htmlSteadiness is how steady a cell's rate was: where it settled, its
// CV and its longest dip below half the median.
type htmlSteadiness struct {
	Target, Color     string
	Round             int
	Steady, Variation string
	Unsteady          bool
}

// htmlTable is a table with a row per workload and a column per target.
type htmlTable struct {
	Caption string
	Columns []htmlTarget
	Rows    []htmlRow
}

// htmlRow is a workload's row.
type htmlRow struct {
	Workload string
	Cells    []htmlCell
}

// htmlCell is a figure: its median, a note (the spread, the rounds that
// finished), and the details as a tooltip.
type htmlCell struct {
	Value, Note, Title string
	Best, Missing      bool
}

// htmlChart is a chart: a canvas in the page, and what its script needs to
// draw it.
type htmlChart struct {
	ID       string        `json:"id"`
	Kind     string        `json:"kind"`
	Type     string        `json:"type"` // "line" or "bar"
	Title    string        `json:"title"`
	X        htmlAxis      `json:"x"`
	Y        htmlAxis      `json:"y"`
	Stacked  bool          `json:"stacked,omitempty"`
	Labels   []string      `json:"labels,omitempty"` // the categories of the x axis, unless it is linear
	Datasets []htmlDataset `json:"datasets"`
	// RangeLabel names what the whiskers span in the tooltip: the rounds'
	// min and max unless it says otherwise ("95% CI").
	RangeLabel string `json:"range_label,omitempty"`
	// Bands are the stretches shaded across a chart over time: the
	// cells' outages.
	Bands []htmlBand `json:"bands,omitempty"`
}

// htmlBand is a stretch of the x axis shaded in a cell's colour.
type htmlBand struct {
	From  float64 `json:"from"`
	To    float64 `json:"to"`
	Color string  `json:"color"`
	Label string  `json:"label"`
}

// htmlAxis is a chart's axis.
type htmlAxis struct {
	Title  string `json:"title"`
	Linear bool   `json:"linear,omitempty"` // numbers (seconds), not categories
	// Unit is how its ticks are shown: "bytes" (binary units), "ms",
	// "%", or "" (plain numbers).
	Unit string `json:"unit,omitempty"`
	// Min and Max fix its range (a run's seconds from 0 to its time).
	Min *float64 `json:"min,omitempty"`
	Max *float64 `json:"max,omitempty"`
}

// htmlDataset is a line or a set of bars. Values (null where a category
// has none) go with categories, Points with a linear x axis. Ranges are
// the values' min and max over the rounds.
type htmlDataset struct {
	Label  string        `json:"label"`
	Color  string        `json:"color"`
	Fill   string        `json:"fill"`
	Dash   []int         `json:"dash,omitempty"`
	Stack  string        `json:"stack,omitempty"`
	Values []*float64    `json:"values,omitempty"`
	Ranges []*[2]float64 `json:"ranges,omitempty"`
	Points []htmlPoint   `json:"points,omitempty"`
}

// htmlPoint is a point of a line over time.
type htmlPoint struct {
	X float64  `json:"x"`
	Y *float64 `json:"y"`
}

// htmlPalette are the targets' colours, by their place in the Summary.
var htmlPalette = [][3]uint8{
	{0x2b, 0x6c, 0xb0}, {0xdd, 0x6b, 0x20}, {0x2f, 0x85, 0x5a}, {0xc5, 0x30, 0x30}, {0x6b, 0x46, 0xc1},
	{0xb7, 0x79, 0x1f}, {0xd5, 0x3f, 0x8c}, {0x31, 0x97, 0x95}, {0x97, 0x5a, 0x16}, {0x00, 0xa3, 0xc4},
}

// htmlDashes tell a target's rounds apart in the charts over time.
var htmlDashes = [][]int{nil, {6, 4}, {2, 3}, {10, 3, 2, 3}}

// htmlKey names a group: a workload, a thread count, a target.
type htmlKey struct {
	workload string
	threads  int
	target   string
}

// htmlBuilder turns a Summary into the page.
type htmlBuilder struct {
	s       *Summary
	targets []string // the Summary's, then any only a group or cell names
	color   map[string]int
	groups  map[htmlKey]*Group
	failed  map[htmlKey]int // failed or interrupted cells
}

func newHTMLBuilder(s *Summary) *htmlBuilder {
	b := &htmlBuilder{s: s, color: map[string]int{}, groups: map[htmlKey]*Group{}, failed: map[htmlKey]int{}}
	add := func(name string) {
		if _, ok := b.color[name]; !ok {
			b.color[name] = len(b.targets)
			b.targets = append(b.targets, name)
		}
	}
	for _, t := range s.Targets {
		add(t.Name)
	}
	for i := range s.Groups {
		g := &s.Groups[i]
		add(g.Target)
		b.groups[htmlKey{g.Workload, g.Threads, g.Target}] = g
	}
	for _, c := range s.Cells {
		add(c.Target)
		if c.Status == StatusFailed || c.Status == StatusInterrupted {
			b.failed[htmlKey{c.Workload, c.Threads, c.Target}]++
		}
	}
	return b
}

// finished returns the group if any of its rounds finished.
func (b *htmlBuilder) finished(workload string, threads int, target string) *Group {
	if g := b.groups[htmlKey{workload, threads, target}]; g != nil && g.Rounds > 0 {
		return g
	}
	return nil
}

// qps says whether the rate shown is queries rather than transactions.
func (b *htmlBuilder) qps() bool { return b.s.Rate == RateQPS }

// rate is a group's rate figure.
func (b *htmlBuilder) rate(g *Group) *Agg {
	a := g.Rate(b.s.Rate)
	return &a
}

// pointRate is an interval's rate figure.
func (b *htmlBuilder) pointRate(p Point) float64 {
	if b.qps() {
		return p.QPS
	}
	return p.TPS
}

// rateName is the rate's name in headings.
func (b *htmlBuilder) rateName() string {
	if b.qps() {
		return RateQPS
	}
	return RateTPS
}

// rgba is target's colour with opacity alpha, for Chart.js.
func (b *htmlBuilder) rgba(target string, alpha float64) string {
	c := htmlPalette[b.color[target]%len(htmlPalette)]
	return fmt.Sprintf("rgba(%d,%d,%d,%g)", c[0], c[1], c[2], alpha)
}

// hex is target's colour, for the page's styles.
func (b *htmlBuilder) hex(target string) string {
	c := htmlPalette[b.color[target]%len(htmlPalette)]
	return fmt.Sprintf("#%02x%02x%02x", c[0], c[1], c[2])
}

// page is what the template shows of the Summary.
func (b *htmlBuilder) page() *htmlPage {
	s := b.s
	p := &htmlPage{
		Title:        cmp.Or(s.Title, "sysbench-go comparison"),
		Matrix:       s.Matrix,
		Rate:         b.rateName(),
		Rounds:       s.Rounds,
		CellCounts:   htmlCellCounts(s.Cells),
		VerdictWords: verdictWords(),
		Warnings:     s.Warnings,
		TargetRows:   b.targetRows(),
	}
	if c := s.Capacity; c != nil {
		p.Capacity = strings.Join(c.Objective, ", ")
	}
	if !s.Generated.IsZero() {
		p.Generated = s.Generated.Format("2006-01-02 15:04:05 MST")
	}
	for _, t := range b.targets {
		p.Targets = append(p.Targets, htmlTarget{Name: t, Color: b.hex(t)})
	}
	p.Glance, p.GlanceThreads = b.glance()
	for i, w := range s.Workloads {
		p.Changes = htmlAppendCharts(p.Changes, b.changeChart(i, w))
	}
	for i, w := range s.Workloads {
		p.Throughput = htmlAppendCharts(p.Throughput,
			b.byThreads(chartThroughput, i, w, b.rateName()+" by threads", htmlAxis{Title: b.rateName() + " (median)"}, b.rate),
			b.byThreads(chartP95, i, w, "p95 latency by threads", htmlAxis{Title: "p95 (ms)", Unit: "ms"}, func(g *Group) *Agg { return &g.P95MS }))
	}
	for _, t := range s.Threads {
		p.ByThreads = append(p.ByThreads, b.threadsSection(t, p.Targets))
	}
	for i, w := range s.Workloads {
		for _, t := range s.Threads {
			if o, ok := b.overTime(i, w, t); ok {
				p.OverTime = append(p.OverTime, o)
			}
		}
	}
	for _, c := range s.Cells {
		if c.Status == StatusFailed || c.Status == StatusInterrupted {
			p.Failed = append(p.Failed, c)
		}
	}
	return p
}

// htmlCellCounts says how many cells there are by status: "12 cells: 11
// done, 1 failed".
func htmlCellCounts(cells []Cell) string {
	n := map[string]int{}
	for _, c := range cells {
		n[c.Status]++
	}
	var parts []string
	for _, st := range slices.Sorted(maps.Keys(n)) {
		parts = append(parts, fmt.Sprintf("%d %s", n[st], cmp.Or(st, "unknown")))
	}
	return fmt.Sprintf("%d cells: %s", len(cells), strings.Join(parts, ", "))
}

// targetRows are the targets side by side: driver, server version,
// durability, then every setting any of them read.
func (b *htmlBuilder) targetRows() []htmlSettingRow {
	byName := map[string]*Target{}
	for i := range b.s.Targets {
		byName[b.s.Targets[i].Name] = &b.s.Targets[i]
	}
	// row is a row of values; differ says whether to mark values that
	// differ (not drivers and versions, which differ between engines
	// anyway).
	row := func(name string, differ bool, value func(t *Target) string) htmlSettingRow {
		r := htmlSettingRow{Name: name}
		seen := ""
		for _, tn := range b.targets {
			v := ""
			if t := byName[tn]; t != nil {
				v = value(t)
			}
			r.Values = append(r.Values, v)
			if differ && v != "" && seen != "" && v != seen {
				r.Differ = true
			}
			seen = cmp.Or(seen, v)
		}
		return r
	}
	rows := []htmlSettingRow{
		row("driver", false, func(t *Target) string { return t.Driver }),
		row("server version", false, func(t *Target) string { return t.ServerVersion }),
		row("durable commits", true, func(t *Target) string { return htmlYesNo(t.Durable) }),
	}
	for _, n := range b.s.settingNames() {
		rows = append(rows, row(n, true, func(t *Target) string {
			v, _ := setting(*t, n)
			return settingText(n, v)
		}))
	}
	return rows
}

// htmlYesNo shows a durability: "yes", "no", or "" when unknown.
func htmlYesNo(b *bool) string {
	switch {
	case b == nil:
		return ""
	case *b:
		return "yes"
	}
	return "no"
}

// htmlBytesDetail is a group's bytes written per transaction by kind.
func htmlBytesDetail(g *Group) string {
	var parts []string
	for _, k := range htmlBytesKinds(g.BytesPerTrx) {
		parts = append(parts, htmlBytesKindName(k)+" "+htmlBytes(g.BytesPerTrx[k].Median))
	}
	return strings.Join(parts, ", ")
}

// htmlBytesKinds are the kinds of bytes written in m, sorted: its keys but
// "total", or just "total" if that is all it has.
func htmlBytesKinds(m map[string]Agg) []string {
	ks := slices.Sorted(maps.Keys(m))
	if len(ks) > 1 {
		ks = slices.DeleteFunc(ks, func(k string) bool { return k == BytesTotal })
	}
	return ks
}

// htmlBytesKindName is a kind of bytes written as the page names it: "wal"
// for wal_bytes.
func htmlBytesKindName(k string) string { return strings.TrimSuffix(k, "_bytes") }

// threadsSection is the tables and charts of one thread count.
func (b *htmlBuilder) threadsSection(threads int, cols []htmlTarget) htmlThreads {
	sec := htmlThreads{Threads: threads}
	for _, f := range b.s.figures() {
		if t, ok := b.table(threads, f, cols); ok {
			sec.Tables = append(sec.Tables, t)
		}
	}
	sec.Charts = htmlAppendCharts(nil,
		b.bytesChart(threads).inBinaryUnits(),
		b.bars(chartServerCPU, threads, "server CPU", htmlAxis{Title: "CPU % (100 = one core)", Unit: "%"}, func(g *Group) *Agg { return g.ServerCPUPct }),
		b.bars(chartServerMemory, threads, "server memory (peak PSS)", htmlAxis{Title: "peak PSS"}, func(g *Group) *Agg { return g.PeakMemoryBytes }).inBinaryUnits(),
	)
	return sec
}

// table is the figure f of every workload and target at threads; ok is
// false when the table is to be left out.
func (b *htmlBuilder) table(threads int, f figure, cols []htmlTarget) (t htmlTable, ok bool) {
	t = htmlTable{Caption: f.caption, Columns: cols}
	ok = f.always
	for _, w := range b.s.Workloads {
		row := htmlRow{Workload: w}
		for _, tn := range b.targets {
			c := b.cell(htmlKey{w, threads, tn}, f)
			ok = ok || !c.Missing
			row.Cells = append(row.Cells, c)
		}
		t.Rows = append(t.Rows, row)
	}
	return t, ok
}

// cell is the figure f of group k.
func (b *htmlBuilder) cell(k htmlKey, f figure) htmlCell {
	g := b.finished(k.workload, k.threads, k.target)
	var a *Agg
	if g != nil {
		a = f.agg(g)
	}
	if a == nil || a.N == 0 {
		if b.failed[k] > 0 && g == nil {
			return htmlCell{Value: "failed", Title: "no round finished", Missing: true}
		}
		return htmlCell{Value: "—", Missing: true}
	}
	c := htmlCell{
		Value: f.html(a.Median),
		Title: fmt.Sprintf("median of %d round(s); min %s, max %s", a.N, f.html(a.Min), f.html(a.Max)),
		Best:  f.best != nil && f.best(g),
	}
	var note []string
	switch {
	case a.N < 2 || a.Min == a.Max:
	case f.spread && htmlIsFinite(a.SpreadPct):
		note = append(note, "spread "+strconv.FormatFloat(a.SpreadPct, 'f', 1, 64)+"%")
	case !f.spread:
		// A spread in per cent of a median near 0 says nothing (0.3 B
		// between 0 and 0.6 is 200%): the range does.
		note = append(note, "range "+f.html(a.Min)+" – "+f.html(a.Max))
	}
	if g.Rounds < b.s.Rounds {
		note = append(note, fmt.Sprintf("%d/%d rounds", g.Rounds, b.s.Rounds))
	}
	if f.note != nil {
		if n := f.note(g); n != "" {
			note = append(note, n)
		}
	}
	c.Note = strings.Join(note, " · ")
	if f.detail != nil {
		if d := f.detail(g); d != "" {
			c.Title += "; " + d
		}
	}
	return c
}

// byThreads is a workload's figure agg by thread count, a line per
// target, its medians with whiskers over the rounds' range.
func (b *htmlBuilder) byThreads(kind string, wi int, workload, title string, y htmlAxis, agg func(*Group) *Agg) htmlChart {
	c := htmlChart{
		ID: fmt.Sprintf("%s-w%d", kind, wi), Kind: kind, Type: "line",
		Title: workload + ": " + title,
		X:     htmlAxis{Title: "threads"}, Y: y,
	}
	for _, t := range b.s.Threads {
		c.Labels = append(c.Labels, strconv.Itoa(t))
	}
	for _, tn := range b.targets {
		ds := b.dataset(tn, tn)
		for _, t := range b.s.Threads {
			var a *Agg
			if g := b.finished(workload, t, tn); g != nil {
				a = agg(g)
			}
			ds.add(a, 1)
		}
		c.addDataset(ds)
	}
	return c
}

// bars is the figure agg of every workload at threads, a bar per target,
// with whiskers over the rounds' range.
func (b *htmlBuilder) bars(kind string, threads int, title string, y htmlAxis, agg func(*Group) *Agg) htmlChart {
	c := htmlChart{
		ID: fmt.Sprintf("%s-t%d", kind, threads), Kind: kind, Type: "bar",
		Title: title + ", " + htmlThreadCount(threads),
		X:     htmlAxis{Title: "workload"}, Y: y,
	}
	c.Labels = slices.Clone(b.s.Workloads)
	for _, tn := range b.targets {
		ds := b.dataset(tn, tn)
		for _, w := range b.s.Workloads {
			var a *Agg
			if g := b.finished(w, threads, tn); g != nil {
				a = agg(g)
			}
			ds.add(a, 1)
		}
		c.addDataset(ds)
	}
	return c
}

// glance is the verdicts of every workload (rows) at every thread count
// (columns).
func (b *htmlBuilder) glance() ([]htmlGlanceRow, []int) {
	var rows []htmlGlanceRow
	for _, w := range b.s.Workloads {
		row := htmlGlanceRow{Workload: w}
		any := false
		for _, th := range b.s.Threads {
			cell := htmlGlance{Rate: b.verdict(b.s.verdictOf(w, th, b.s.Rate)), P95: b.verdict(b.s.verdictOf(w, th, FigureP95))}
			any = any || cell.Rate != nil
			row.Cells = append(row.Cells, cell)
		}
		if any {
			rows = append(rows, row)
		}
	}
	return rows, b.s.Threads
}

func (b *htmlBuilder) verdict(v *Verdict) *htmlVerdict {
	if v == nil {
		return nil
	}
	figure := "p95"
	if v.Figure != FigureP95 {
		figure = b.rateName()
	}
	h := &htmlVerdict{Figure: figure, Best: v.Best, Color: b.hex(v.Best), Word: v.Verdict,
		Class: strings.ReplaceAll(string(v.Verdict), " ", "-"), Detail: v.Detail()}
	if v.Change != nil {
		h.Notes = strings.Join(v.Change.Notes, "; ")
	}
	return h
}

// changeChart is a workload's verdicts as bars: for each thread count, the
// best's change against the runner-up in per cent, on the rate and on the
// p95, with whiskers from its 95% confidence interval's low to its high
// end. A whisker across 0 is "no difference detected".
func (b *htmlBuilder) changeChart(wi int, workload string) htmlChart {
	c := htmlChart{
		ID: fmt.Sprintf("%s-w%d", chartChange, wi), Kind: chartChange, Type: "bar",
		Title:      workload + ": the best against the runner-up, 95% CI",
		X:          htmlAxis{Title: "threads"},
		Y:          htmlAxis{Title: "change (%)", Unit: "%"},
		RangeLabel: "95% CI",
	}
	lo, hi := 0.0, 0.0
	for _, fig := range []string{b.s.Rate, FigureP95} {
		name := strings.ToUpper(b.rateName()) + ": higher"
		if fig == FigureP95 {
			name = "p95: lower"
		}
		// Colours of their own: a bar is two targets, not one.
		ds := &htmlDataset{Label: name + ", best against runner-up", Color: "rgba(26,77,143,1)", Fill: "rgba(26,77,143,0.55)"}
		if fig == FigureP95 {
			ds.Color, ds.Fill = "rgba(156,66,33,1)", "rgba(156,66,33,0.55)"
		}
		for _, th := range b.s.Threads {
			v := b.s.verdictOf(workload, th, fig)
			if v == nil || v.Change == nil {
				ds.Values, ds.Ranges = append(ds.Values, nil), append(ds.Ranges, nil)
				continue
			}
			ch := v.Change
			ds.Values = append(ds.Values, htmlFinite(100*ch.Estimate))
			ds.Ranges = append(ds.Ranges, &[2]float64{100 * ch.Low, 100 * ch.High})
			lo, hi = min(lo, 100*ch.Low), max(hi, 100*ch.High)
		}
		c.addDataset(ds)
	}
	for _, th := range b.s.Threads {
		c.Labels = append(c.Labels, strconv.Itoa(th))
	}
	// The whiskers decide the axis: Chart.js fits the bars alone.
	lo, hi = math.Floor(lo/5)*5, math.Ceil(hi/5)*5
	if lo == hi {
		hi = lo + 5
	}
	c.Y.Min, c.Y.Max = &lo, &hi
	return c
}

// steadiness is how steady each of cells was, for the page.
func (b *htmlBuilder) steadiness(cells []Cell) []htmlSteadiness {
	var out []htmlSteadiness
	for _, c := range cells {
		h := htmlSteadiness{Target: c.Target, Color: b.hex(c.Target), Round: c.Round, Steady: "too short to tell", Variation: "—"}
		switch st := c.Steady; {
		case st == nil:
			if c.SteadyNote != "" {
				h.Steady = fmt.Sprintf("too short to tell (%d intervals, %d needed)", len(c.Series), stats.MinBatches*stats.BatchSize)
			}
		case !st.Steady:
			h.Steady, h.Unsteady = "not steady: "+st.Reason, true
		case st.Start == 0:
			h.Steady = "steady from the start"
		default:
			h.Steady, h.Unsteady = fmt.Sprintf("steady from %g s (%+.1f%% before)", st.StartSeconds, 100*st.WarmupDifference), true
		}
		if c.Variation != nil {
			h.Variation = c.Variation.String()
		}
		out = append(out, h)
	}
	return out
}

// bytesChart is the bytes written per transaction of every workload at
// threads: a stack of bars per target, a bar per kind of bytes.
func (b *htmlBuilder) bytesChart(threads int) htmlChart {
	c := htmlChart{
		ID: fmt.Sprintf("%s-t%d", chartBytes, threads), Kind: chartBytes, Type: "bar",
		Title: "bytes written per transaction, " + htmlThreadCount(threads),
		X:     htmlAxis{Title: "workload"}, Y: htmlAxis{Title: "written per transaction"}, Stacked: true,
	}
	c.Labels = slices.Clone(b.s.Workloads)
	for _, tn := range b.targets {
		kinds := map[string]Agg{} // every kind this target wrote at threads
		for _, w := range b.s.Workloads {
			if g := b.finished(w, threads, tn); g != nil {
				maps.Copy(kinds, g.BytesPerTrx)
			}
		}
		for i, k := range htmlBytesKinds(kinds) {
			ds := b.dataset(tn, tn+" "+htmlBytesKindName(k))
			ds.Stack = tn
			ds.Fill = b.rgba(tn, 0.85-0.25*float64(i%3))
			for _, w := range b.s.Workloads {
				var a *Agg
				if g := b.finished(w, threads, tn); g != nil {
					if v, ok := g.BytesPerTrx[k]; ok {
						a = &v
					}
				}
				ds.add(a, 1)
			}
			ds.Ranges = nil // a stack's parts have no whiskers of their own
			c.addDataset(ds)
		}
	}
	return c
}

// overTime is the rate and the p95 of workload at threads each second, a
// line per finished cell; ok is false when no cell finished.
func (b *htmlBuilder) overTime(wi int, workload string, threads int) (o htmlOverTime, ok bool) {
	var cells []Cell
	for _, c := range b.s.Cells {
		if c.Workload == workload && c.Threads == threads && c.Status == StatusDone && len(c.Series) > 0 {
			cells = append(cells, c)
		}
	}
	if len(cells) == 0 {
		return o, false
	}
	slices.SortStableFunc(cells, func(x, y Cell) int {
		return cmp.Or(cmp.Compare(b.color[x.Target], b.color[y.Target]), cmp.Compare(x.Round, y.Round))
	})
	zero := 0.0
	line := func(kind, title string, y htmlAxis, value func(Point) float64) htmlChart {
		c := htmlChart{
			ID: fmt.Sprintf("%s-w%d-t%d", kind, wi, threads), Kind: kind, Type: "line",
			Title: fmt.Sprintf("%s, %s: %s", workload, htmlThreadCount(threads), title),
			X:     htmlAxis{Title: "seconds of the measured run", Linear: true, Min: &zero}, Y: y,
		}
		// The axis spans the run: from 0 to its time, or to its last
		// interval's end, a few ms past it (left to Chart.js, a 2 s run's
		// axis went to 3).
		end := float64(b.s.TimeS)
		for _, cell := range cells {
			ds := b.dataset(cell.Target, fmt.Sprintf("%s r%d", cell.Target, cell.Round))
			ds.Dash = htmlDashes[max(cell.Round-1, 0)%len(htmlDashes)]
			for _, p := range cell.Series {
				if htmlIsFinite(p.T) {
					ds.Points = append(ds.Points, htmlPoint{X: p.T, Y: htmlFinite(value(p))})
					end = max(end, p.T)
				}
			}
			c.addDataset(ds)
			for _, o := range cell.Outages {
				if !htmlIsFinite(o.StartS) || !htmlIsFinite(o.EndS) || o.EndS <= 0 {
					continue
				}
				what := fmt.Sprintf("%s r%d: outage of %.3fs", cell.Target, cell.Round, o.EndS-o.StartS)
				if o.Ongoing {
					what += ", ongoing at the end"
				}
				// Drawn within the axis, which stays the run's: an outage
				// past --time (events that ended late) is cut at its end.
				c.Bands = append(c.Bands, htmlBand{From: max(o.StartS, 0), To: o.EndS, Color: b.rgba(cell.Target, 0.18), Label: what})
			}
		}
		if end > 0 {
			c.X.Max = &end
		}
		return c
	}
	o = htmlOverTime{Workload: workload, Threads: threads, Charts: []htmlChart{
		line(chartRateTime, b.rateName()+" per second", htmlAxis{Title: b.rateName()}, b.pointRate),
		line(chartP95Time, "p95 per second", htmlAxis{Title: "p95 (ms)", Unit: "ms"}, func(p Point) float64 { return p.P95MS }),
	}, Cells: b.steadiness(cells)}
	return o, true
}

// dataset is an empty dataset in target's colour.
func (b *htmlBuilder) dataset(target, label string) *htmlDataset {
	return &htmlDataset{Label: label, Color: b.rgba(target, 1), Fill: b.rgba(target, 0.75)}
}

// add appends a's median times scale to the values (null for a nil a),
// and its range over the rounds (null with one round: no whisker).
func (ds *htmlDataset) add(a *Agg, scale float64) {
	if a == nil || a.N == 0 {
		ds.Values = append(ds.Values, nil)
		ds.Ranges = append(ds.Ranges, nil)
		return
	}
	ds.Values = append(ds.Values, htmlFinite(a.Median*scale))
	var r *[2]float64
	if lo, hi := a.Min*scale, a.Max*scale; a.N > 1 && htmlIsFinite(lo) && htmlIsFinite(hi) {
		r = &[2]float64{lo, hi}
	}
	ds.Ranges = append(ds.Ranges, r)
}

// empty says whether the dataset would draw nothing.
func (ds *htmlDataset) empty() bool {
	for _, v := range ds.Values {
		if v != nil {
			return false
		}
	}
	for _, p := range ds.Points {
		if p.Y != nil {
			return false
		}
	}
	return true
}

// inBinaryUnits shows a chart of bytes in the binary unit of its largest
// value (B, KiB, MiB, GiB), named in its y axis's title, so that its ticks
// are round numbers of that unit.
func (c htmlChart) inBinaryUnits() htmlChart {
	top := 0.0
	for _, ds := range c.Datasets {
		for _, v := range ds.Values {
			if v != nil {
				top = max(top, *v)
			}
		}
		for _, r := range ds.Ranges {
			if r != nil {
				top = max(top, r[1])
			}
		}
	}
	div, unit := binaryUnit(top)
	c.Y.Title += " (" + unit + ")"
	c.Datasets = slices.Clone(c.Datasets)
	for k := range c.Datasets {
		ds := &c.Datasets[k]
		vals := make([]*float64, len(ds.Values))
		for j, v := range ds.Values {
			if v != nil {
				vals[j] = htmlFinite(*v / div)
			}
		}
		ds.Values = vals
		if ds.Ranges != nil {
			rs := make([]*[2]float64, len(ds.Ranges))
			for j, r := range ds.Ranges {
				if r != nil {
					rs[j] = &[2]float64{r[0] / div, r[1] / div}
				}
			}
			ds.Ranges = rs
		}
	}
	return c
}

// htmlAppendCharts appends to dst the charts of cs that have something to draw.
func htmlAppendCharts(dst []htmlChart, cs ...htmlChart) []htmlChart {
	for _, c := range cs {
		if len(c.Datasets) > 0 {
			dst = append(dst, c)
		}
	}
	return dst
}

// addDataset adds ds to the chart unless it would draw nothing.
func (c *htmlChart) addDataset(ds *htmlDataset) {
	if !ds.empty() {
		c.Datasets = append(c.Datasets, *ds)
	}
}

func htmlIsFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// htmlFinite is &v, or nil (JSON's null) for NaN or an infinity.
func htmlFinite(v float64) *float64 {
	if !htmlIsFinite(v) {
		return nil
	}
	return &v
}

// htmlThreadCount is "1 thread", "8 threads".
func htmlThreadCount(n int) string { return plural(n, "thread") }

// htmlNumber shows v with the digits that matter at its size.
func htmlNumber(v float64) string {
	switch a := math.Abs(v); {
	case !htmlIsFinite(v):
		return "—"
	case math.Round(a) >= 1000:
		return report.Thousands(v)
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func htmlPercent(v float64) string {
	if !htmlIsFinite(v) {
		return "—"
	}
	return htmlNumber(v) + "%"
}

// htmlBytes shows a number of bytes in binary units: "5.25 KiB", and a
// fraction of a byte per transaction as one: "0.3 B".
func htmlBytes(v float64) string {
	if !htmlIsFinite(v) {
		return "—"
	}
	if a := math.Abs(v); a < 9.95 && a != math.Trunc(a) {
		return strconv.FormatFloat(v, 'f', 1, 64) + " B"
	}
	if math.Round(math.Abs(v)) < 1024 {
		return strconv.FormatFloat(v, 'f', 0, 64) + " B"
	}
	div, unit := binaryUnit(math.Round(v)) // 1023.6 B shows as 1.00 KiB
	return htmlNumber(v/div) + " " + unit
}

// binaryUnit is the largest binary unit that n fills, and its size: 1024
// and "KiB" for 1536.
func binaryUnit(n float64) (float64, string) {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i, div := 0, 1.0
	for ; i < len(units)-1 && math.Abs(n)/div >= 1024; i++ {
		div *= 1024
	}
	return div, units[i]
}
