package compare

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sysbench-go/sysbench-go/metrics"
	"github.com/sysbench-go/sysbench-go/report"
	"github.com/sysbench-go/sysbench-go/stats"
)

// Build summarises a comparison directory from its manifest and results
// files alone.
func Build(dir string) (*Summary, error) {
	man, err := ReadManifest(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("compare: no comparison in '%s' (it has no %s)", dir, ManifestFile)
	}
	if err != nil {
		return nil, err
	}
	d := man.Design
	s := &Summary{SchemaVersion: SummaryVersion, Title: d.Title, Matrix: man.Matrix, Generated: time.Now().UTC(),
		Rate: d.Rate, Workloads: d.Workloads, Threads: d.Threads, Rounds: d.Rounds, TimeS: d.TimeS, Capacity: d.Capacity}
	if s.Title == "" {
		s.Title = "sysbench-go compare: " + filepath.Base(man.Matrix)
	}
	results := map[string]*report.Results{}
	cpus := 0
	for _, c := range man.Cells {
		cell := Cell{ID: c.ID, Target: c.Target, Workload: c.Workload, Threads: c.Threads, Round: c.Round,
			Status: c.Status, Fatal: c.Fatal, Series: []Point{}}
		if c.Status == StatusDone {
			r, err := report.ReadFile(filepath.Join(dir, c.Results))
			if err != nil {
				return nil, fmt.Errorf("cell %s: %w", c.ID, err)
			}
			if err := fillCell(&cell, r); err != nil {
				return nil, fmt.Errorf("cell %s: %w", c.ID, err)
			}
			cell.Results = c.Results
			results[c.ID] = r
			cpus = max(cpus, r.Host.CPUs)
		}
		s.Cells = append(s.Cells, cell)
	}
	s.Targets = targets(d, man.Cells, results)
	s.Groups = groups(s, man.Cells, results)
	s.Verdicts = verdicts(s)
	s.Warnings = warnings(s, cpus)
	return s, nil
}

// fillCell takes a cell's figures from its results file: rate and p95
// over the measured window (p95 from the whole histogram), and the
// per-second intervals of that window, but slivers of one.
func fillCell(c *Cell, r *report.Results) error {
	if r.Capacity != nil {
		return fillCapacity(c, r.Capacity)
	}
	snap, err := r.Total.Snapshot()
	if err != nil {
		return err
	}
	c.TPS, c.QPS, c.P95MS = r.Total.TPS, r.Total.QPS.Total, float64(snap.Percentile(95))/1e6
	key := report.PercentileKey(95)
	for _, iv := range r.Intervals {
		// A sliver (the few ms between the warm-up's end and the next
		// tick) is no second of the run: its rate is noise.
		if iv.Warmup || iv.Duration < r.Settings.ReportIntervalSec/2 {
			continue
		}
		c.Series = append(c.Series, Point{T: iv.Time, TPS: iv.TPS, QPS: iv.QPS.Total, P95MS: iv.Latency[key]})
	}
	for _, o := range r.Outages {
		if o.Source == "" { // a merged file's whole, not its instances'
			c.Outages = append(c.Outages, OutageSpan{StartS: o.Start, EndS: o.End, Ongoing: o.Ongoing})
		}
	}
	c.settle(r.Settings.ReportIntervalSec, r.Total.TPS == 0 && r.Total.QPS.Total > 0)
	return nil
}

// fillCapacity takes a capacity search's cell figures from its record:
// the rate it sustained within the objective, with its interval, and the
// QPS and p95 of its confirming rounds together (the steps at the
// answer's offered rate). It has no series: a search is many runs.
func fillCapacity(c *Cell, rec *report.Capacity) error {
	a := rec.Answer
	if a == nil {
		return fmt.Errorf("the capacity search found no answer (%s)", rec.Outcome)
	}
	c.TPS = a.Rate
	c.Capacity = &CellCapacity{Low: a.Low, High: a.High, Offered: a.Offered, Saturation: a.Saturation, Line: rec.Line}
	var snaps []*metrics.Snapshot
	queries, sec := 0.0, 0.0
	for _, st := range rec.Steps {
		if st.Model != "open" || st.Offered != a.Offered || st.Window == nil {
			continue
		}
		snap, err := st.Window.Snapshot()
		if err != nil {
			return err
		}
		snaps = append(snaps, snap)
		queries, sec = queries+st.Window.QPS.Total*st.Window.Duration, sec+st.Window.Duration
	}
	if len(snaps) == 0 {
		return errors.New("the capacity search's record has no step at its answer's rate")
	}
	c.P95MS = float64(metrics.Merge(snaps...).Percentile(95)) / 1e6
	if sec > 0 {
		c.QPS = queries / sec
	}
	return nil
}

// DipBelow is the share of the median under which an interval counts as a
// dip in a cell's variation.
const DipBelow = 0.5

// settle finds where the cell's interval rate settled and measures its
// variation from there. The rounds' verdicts do not depend on it: it says
// whether a cell was measured before it was steady, and how much it
// wobbled.
func (c *Cell) settle(intervalS float64, qps bool) {
	if len(c.Series) == 0 || !(intervalS > 0) {
		return
	}
	rates := make([]float64, len(c.Series))
	for i, p := range c.Series {
		rates[i] = p.TPS
		if qps {
			rates[i] = p.QPS
		}
	}
	from := 0
	if st, err := stats.SteadyState(rates, intervalS); err != nil {
		c.SteadyNote = err.Error()
	} else {
		c.Steady = &st
		from = st.Start
	}
	if v, err := stats.MeasureVariation(rates, from, intervalS, DipBelow); err == nil {
		c.Variation = &v
	}
}

// targets are the design's targets with what their runs found: the server
// version and settings of their first finished cell.
func targets(d Design, cells []CellState, results map[string]*report.Results) []Target {
	var out []Target
	for _, dt := range d.Targets {
		t := Target{Name: dt.Name, Driver: dt.Driver, ServerVersion: dt.ServerVersion, Settings: []Setting{}}
		for _, c := range cells {
			r := results[c.ID]
			if c.Target != dt.Name || r == nil {
				continue
			}
			if r.Driver != nil && r.Driver.ServerVersion != "" {
				t.ServerVersion = r.Driver.ServerVersion
			}
			if r.Server != nil {
				for _, st := range r.Server.Settings {
					t.Settings = append(t.Settings, Setting(st))
				}
				t.Durable = durable(dt.Driver, t.Settings)
			}
			break
		}
		out = append(out, t)
	}
	return out
}

// durable says whether a commit waits for its log on disk: MySQL's and
// MariaDB's innodb_flush_log_at_trx_commit=1 (and sync_binlog=1 with the
// binary log on), PostgreSQL's fsync with synchronous_commit not off. Nil
// when the settings do not say.
func durable(driver string, settings []Setting) *bool {
	get := func(name string) (string, bool) {
		for _, s := range settings {
			if s.Name == name {
				return strings.ToLower(s.Value), true
			}
		}
		return "", false
	}
	var yes bool
	switch driver {
	case "mysql":
		flush, ok := get("innodb_flush_log_at_trx_commit")
		if !ok {
			return nil
		}
		yes = flush == "1"
		if bin, _ := get("log_bin"); yes && (bin == "on" || bin == "1") {
			sync, _ := get("sync_binlog")
			yes = sync == "1"
		}
	case "pgsql":
		fsync, ok1 := get("fsync")
		sc, ok2 := get("synchronous_commit")
		if !ok1 || !ok2 {
			return nil
		}
		yes = fsync == "on" && sc != "off"
	default:
		return nil
	}
	return &yes
}

// groups aggregate the rounds of each workload × threads × target, and
// mark the best target of each workload and thread count.
func groups(s *Summary, cells []CellState, results map[string]*report.Results) []Group {
	var out []Group
	for _, w := range s.Workloads {
		for _, th := range s.Threads {
			first := len(out)
			for _, t := range s.Targets {
				g := Group{Workload: w, Threads: th, Target: t.Name}
				var tps, qps, p95, cpu, rss, client, saturation []float64
				intervals := [][2]float64{}
				bytes := map[string][]float64{}
				for i, c := range cells {
					r := results[c.ID]
					if c.Workload != w || c.Threads != th || c.Target != t.Name || r == nil {
						continue
					}
					cell := s.Cells[i]
					tps, qps, p95 = append(tps, cell.TPS), append(qps, cell.QPS), append(p95, cell.P95MS)
					if cc := cell.Capacity; cc != nil {
						intervals, saturation = append(intervals, [2]float64{cc.Low, cc.High}), append(saturation, cc.Saturation)
					}
					if c.WallS > 0 {
						client = append(client, 100*c.ClientCPUS/c.WallS)
					}
					if srv := r.Server; srv != nil {
						if srv.Others("") {
							g.OtherClients++
						}
						if srv.CPU != nil {
							cpu, rss = append(cpu, srv.CPU.AvgPct), append(rss, float64(srv.CPU.PeakBytes))
						}
						total, any := 0.0, false
						for k, v := range srv.PerTransaction {
							bytes[k] = append(bytes[k], v)
							total, any = total+v, true
						}
						if any {
							bytes[BytesTotal] = append(bytes[BytesTotal], total)
						}
					}
				}
				g.Rounds = len(tps)
				g.TPS, g.QPS, g.P95MS, g.ClientCPUPct = aggregate(tps), aggregate(qps), aggregate(p95), aggregate(client)
				if s.Capacity != nil {
					g.Capacity = &GroupCapacity{Intervals: intervals, Saturation: aggregate(saturation)}
				}
				if len(cpu) > 0 {
					a, b := aggregate(cpu), aggregate(rss)
					g.ServerCPUPct, g.PeakMemoryBytes = &a, &b
				}
				if len(bytes) > 0 {
					g.BytesPerTrx = map[string]Agg{}
					for k, v := range bytes {
						g.BytesPerTrx[k] = aggregate(v)
					}
				}
				out = append(out, g)
			}
			markBest(out[first:], s.Rate)
		}
	}
	return out
}

// markBest marks the highest median rate and the lowest median p95 among
// the targets with finished rounds.
func markBest(gs []Group, rate string) {
	bestRate, bestP95 := -1, -1
	for i, g := range gs {
		if g.Rounds == 0 {
			continue
		}
		if bestRate < 0 || g.Rate(rate).Median > gs[bestRate].Rate(rate).Median {
			bestRate = i
		}
		if bestP95 < 0 || g.P95MS.Median < gs[bestP95].P95MS.Median {
			bestP95 = i
		}
	}
	if bestRate >= 0 && len(gs) > 1 {
		gs[bestRate].BestRate, gs[bestP95].BestP95 = true, true
	}
}

// Rate is the group's throughput figure: TPS or QPS.
func (g *Group) Rate(rate string) Agg {
	if rate == RateQPS {
		return g.QPS
	}
	return g.TPS
}

// aggregate is the median, min, max and spread of values.
func aggregate(values []float64) Agg {
	if len(values) == 0 {
		return Agg{}
	}
	v := slices.Sorted(slices.Values(values))
	n := len(v)
	med := v[n/2]
	if n%2 == 0 {
		med = (v[n/2-1] + v[n/2]) / 2
	}
	a := Agg{N: n, Median: med, Min: v[0], Max: v[n-1], Rounds: slices.Clone(values)}
	if med != 0 {
		a.SpreadPct = 100 * (a.Max - a.Min) / math.Abs(med)
	}
	return a
}

// group is the aggregate of a workload, thread count and target.
func (s *Summary) group(workload string, threads int, target string) *Group {
	for i := range s.Groups {
		g := &s.Groups[i]
		if g.Workload == workload && g.Threads == threads && g.Target == target {
			return g
		}
	}
	return nil
}
