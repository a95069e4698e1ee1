package report

import (
	"crypto/rand"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/sysbench-go/sysbench-go/metrics"
)

// MergeOptions say how results files are merged.
type MergeOptions struct {
	// Force merges files of different workloads.
	Force bool
	// As is how the measured windows combine: AsRounds, AsInstances, or
	// "" to read it from the windows themselves (Combine).
	As string
}

// Merge combines results files (rounds of a comparison, instances of one
// distributed run, or both) into one: counters summed, histograms merged,
// the threads of all, and the measured time as Combine defines it. Files
// of different workloads are refused, naming the difference, unless
// forced; a run found twice (the same file, or a merged file and one of
// its parts) is refused. names label the files in messages and in the
// result's "merged" list.
func Merge(rs []*Results, names []string, opts MergeOptions) (*Results, error) {
	if len(rs) == 0 {
		return nil, fmt.Errorf("no results to merge")
	}
	first := rs[0]
	for i, r := range rs {
		if r.Total == nil {
			return nil, fmt.Errorf("'%s' has no measurement to merge (the run failed before it began)", names[i])
		}
		if i == 0 || opts.Force {
			continue
		}
		if d := workloadDiff(&first.Workload, &r.Workload); d != "" {
			return nil, fmt.Errorf("cannot merge '%s' and '%s': %s (--force merges them anyway)", names[0], names[i], d)
		}
	}
	parts, err := partsOf(rs, names)
	if err != nil {
		return nil, err
	}
	if len(rs) == 1 {
		out := *first
		return &out, nil
	}
	comb, err := Combine(parts, opts.As)
	if err != nil {
		return nil, err
	}
	snaps := make([]*metrics.Snapshot, len(rs))
	for i, r := range rs {
		s, err := r.Total.Snapshot()
		if err != nil {
			return nil, fmt.Errorf("'%s': %v", names[i], err)
		}
		snaps[i] = s
	}
	total := metrics.Merge(snaps...)
	total.Measured = seconds64(comb.MeasuredS)
	out := *first
	out.RunID = ""
	out.Merged = append([]string(nil), names...)
	out.Parts, out.Combined, out.Alignment = parts, comb, nil
	if comb.As == AsInstances {
		align := alignParts(parts)
		out.Alignment = &align
	}
	out.Intervals, out.Checkpoints = []Interval{}, []Window{}
	// Servers' records do not add up (one server watched by several
	// clients, or several servers): a merge keeps none.
	out.Server = nil
	out.Instance = nil
	out.Connections = mergeConnections(rs, comb.As)
	// Each run's warm-up, steady state and variation describe its own
	// intervals, which a merge does not keep.
	out.Warmup, out.Steady, out.Variation = nil, nil, nil
	out.Settings.Threads, out.Settings.Rate, out.Settings.Events = comb.settings(parts)
	out.Exit = Exit{Reason: "completed", Fatal: []string{}}
	for _, r := range rs {
		if r.Start.Before(out.Start) {
			out.Start = r.Start
		}
		if r.End.After(out.End) {
			out.End = r.End
		}
		if r.Exit.Status > out.Exit.Status || (out.Exit.Reason == "completed" && r.Exit.Reason != "completed") {
			out.Exit.Status, out.Exit.Reason = max(out.Exit.Status, r.Exit.Status), r.Exit.Reason
		}
		out.Exit.Fatal = append(out.Exit.Fatal, r.Exit.Fatal...)
		for _, why := range append([]string{r.Exit.Reason}, r.Exit.Reasons...) {
			if why != "completed" && !slices.Contains(out.Exit.Reasons, why) {
				out.Exit.Reasons = append(out.Exit.Reasons, why)
			}
		}
	}
	if len(out.Exit.Reasons) < 2 {
		out.Exit.Reasons = nil // the reason says it all
	}
	w, err := NewWindow(total, first.Settings.Percentiles)
	if err != nil {
		return nil, err
	}
	out.Total = w
	out.Outages = mergeOutages(rs, names, w.Start)
	for i := range out.Outages {
		if out.Outages[i].Source == "" { // the whole service's: hosts of all
			AttachHosts(out.Outages[i:i+1], total.Hosts)
		}
	}
	if out.Statements, err = mergeStatements(rs, first.Settings.Percentiles); err != nil {
		return nil, err
	}
	out.Thresholds = []ThresholdResult{}
	out.Warnings = MergeWarnings(rs, names)
	return &out, nil
}

// MergeWarnings are, one line each, what a merge takes in that its
// figures do not show: a run that did not complete (interrupted, failed,
// shut down: a short window merged with whole ones), and a file whose load
// differs from the first's (threads, time, rate, the workload's options,
// another workload when forced). The merge goes on: the lines say it.
func MergeWarnings(rs []*Results, names []string) []string {
	var out []string
	first := rs[0]
	for i, r := range rs {
		if ok, why := r.Exit.Complete(); !ok {
			out = append(out, incompleteWarning(r, names[i], why))
		}
		if i == 0 {
			continue
		}
		var diffs []string
		if d := workloadDiff(&first.Workload, &r.Workload); d != "" {
			diffs = append(diffs, d)
		}
		diffs = append(diffs, settingsDiff(&first.Settings, &r.Settings)...)
		diffs = append(diffs, optionsDiff(first.Options, r.Options)...)
		if len(diffs) > 0 {
			out = append(out, fmt.Sprintf("'%s' and '%s' ran different loads (%s): merged all the same",
				names[0], names[i], strings.Join(diffs, ", ")))
		}
	}
	return out
}

func incompleteWarning(r *Results, name, why string) string {
	what := "is a run that"
	if len(r.Parts) > 0 {
		what = "holds a run that"
	}
	planned := ""
	if r.Settings.TimeSeconds > 0 && len(r.Parts) == 0 {
		planned = fmt.Sprintf(" of --time=%g", r.Settings.TimeSeconds)
	}
	return fmt.Sprintf("'%s' %s did not complete (%s, %.3f s measured%s): merged with the others all the same",
		name, what, why, r.Total.Duration, planned)
}

// settingsDiff is how b's run settings differ from a's: those a merge of
// instances shares too (their --rate and --events are split).
func settingsDiff(a, b *Settings) []string {
	var out []string
	add := func(name string, x, y float64) {
		if x != y {
			out = append(out, fmt.Sprintf("--%s=%g against --%s=%g", name, x, name, y))
		}
	}
	add("threads", float64(a.Threads), float64(b.Threads))
	add("time", a.TimeSeconds, b.TimeSeconds)
	add("warmup-time", a.WarmupSeconds, b.WarmupSeconds)
	add("max-tries", float64(a.MaxTries), float64(b.MaxTries))
	return out
}

// sameLoadOptions are the general options that do not change the load a
// run puts on its target (what is printed or written, where the run is in
// a distributed one, secrets), or that settingsDiff compares.
var sameLoadOptions = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range []string{
		"config-file", "db-debug", "debug", "failures-detailed", "help", "histogram", "intervals-csv", "percentile",
		"rand-seed", "report-checkpoints", "report-interval", "results", "server-pid", "server-stats",
		"statement-stats", "thread-stack-size", "threshold", "verbosity", "version", "await-start", "instance",
		"metrics-addr", "serve-results", "start-at", "mysql-debug", "forced-shutdown", "mysql-password", "pgsql-password",
		"outage-threshold",
		"threads", "num-threads", "time", "max-time", "warmup-time", "max-tries", // settingsDiff's
	} {
		m[k] = true
	}
	return m
}()

// optionsDiff is how b's general options differ from a's, among those
// both files name and that change the load.
func optionsDiff(a, b map[string]string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(a)) {
		bv, ok := b[k]
		if !ok || sameLoadOptions[k] || bv == a[k] {
			continue
		}
		out = append(out, fmt.Sprintf("--%s=%s against --%s=%s", k, a[k], k, bv))
	}
	return out
}

// Part is one run in a merged file: where it came from, and its measured
// window, which says how it combines with the others.
type Part struct {
	File  string    `json:"file"`
	RunID string    `json:"run_id,omitempty"`
	Host  string    `json:"host"`
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Duration is the window's measured time.
	Duration float64 `json:"duration_s"`
	Events   uint64  `json:"events"`
	// Threads, Rate and EventLimit are its --threads, --rate and --events.
	Threads    int     `json:"threads"`
	Rate       float64 `json:"rate,omitempty"`
	EventLimit uint64  `json:"event_limit,omitempty"`
}

// NewRunID is a new run's id: 128 random bits as text.
func NewRunID() string {
	return rand.Text()
}

// identity is what tells two runs apart: the run id, or for a file
// without one (written before ids), its host and measured window.
func (p *Part) identity() string {
	if p.RunID != "" {
		return p.RunID
	}
	return fmt.Sprintf("%s|%s|%s|%d", p.Host, p.Start.Format(time.RFC3339Nano), p.End.Format(time.RFC3339Nano), p.Events)
}

// partsOf lists the runs in the files, a merged file standing for its
// parts, and refuses a run that is there twice.
func partsOf(rs []*Results, names []string) ([]Part, error) {
	var parts []Part
	from := map[string]int{} // identity -> the file it came from
	for i, r := range rs {
		own := r.Parts
		if len(own) == 0 {
			w := r.Total
			own = []Part{{File: names[i], RunID: r.RunID, Host: r.Host.Name, Start: w.Start, End: w.End, Duration: w.Duration,
				Events: w.Counters.Events, Threads: r.Settings.Threads, Rate: r.Settings.Rate, EventLimit: r.Settings.Events}}
		}
		for _, p := range own {
			if j, ok := from[p.identity()]; ok {
				held := ""
				if len(rs[i].Parts) > 0 || len(rs[j].Parts) > 0 {
					held = fmt.Sprintf(" (%s)", p.File)
				}
				return nil, fmt.Errorf("cannot merge '%s' and '%s': both hold the run measured on %s from %s%s: a run counts once",
					names[j], names[i], p.Host, p.Start.Format(time.RFC3339Nano), held)
			}
			from[p.identity()] = i
			parts = append(parts, p)
		}
	}
	return parts, nil
}

// How measured windows combine.
const (
	// AsRounds: one after the other, the same load again; per-second
	// figures are over the sum of the windows (the pauses between them
	// are no measured time).
	AsRounds = "rounds"
	// AsInstances: together, parts of one load; per-second figures are
	// over the mean of the windows, so that they are the sum of the
	// instances' own (exactly when the windows are as long, which --time
	// makes them).
	AsInstances = "instances"
	// AsRoundsOfInstances: rounds, each of instances together.
	AsRoundsOfInstances = "rounds of instances"
)

// Combination is how merged windows combined into the merged one.
type Combination struct {
	As string `json:"as"`
	// By is "windows" when read from the windows, "--merge" when the
	// command line said it.
	By     string     `json:"by"`
	Rounds []Together `json:"rounds"`
	// MeasuredS is the time the per-second figures are over; SpanS the
	// time from the first start to the last end.
	MeasuredS float64 `json:"measured_s"`
	SpanS     float64 `json:"span_s"`
}

// Together is one round: the parts whose windows ran together.
type Together struct {
	Parts []int `json:"parts"` // indexes into the merged file's parts
	// CommonS is the time all its windows cover; MeasuredS its time, the
	// mean of its windows.
	CommonS   float64 `json:"common_s"`
	MeasuredS float64 `json:"measured_s"`
}

// minTogether is the share of the longest window that windows which ran
// together have in common: less is neither rounds nor instances.
const minTogether = 0.5

// Combine says how the parts' windows combine: those that overlap ran
// together (instances), and such groups one after another are rounds.
// Windows that overlap by less than half the longest are neither, and
// refused unless as (AsRounds, AsInstances) says which they are.
func Combine(parts []Part, as string) (*Combination, error) {
	order := make([]int, len(parts))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return parts[a].Start.Compare(parts[b].Start) })
	c := &Combination{As: as, By: "--merge"}
	var groups [][]int
	switch as {
	case AsRounds:
		for _, i := range order {
			groups = append(groups, []int{i})
		}
	case AsInstances:
		groups = [][]int{order}
	case "":
		c.By = "windows"
		var end time.Time
		for _, i := range order {
			p := &parts[i]
			if len(groups) == 0 || !p.Start.Before(end) {
				groups, end = append(groups, nil), p.End
			}
			groups[len(groups)-1] = append(groups[len(groups)-1], i)
			if p.End.After(end) {
				end = p.End
			}
		}
	default:
		return nil, fmt.Errorf("unknown way to merge %q (rounds or instances)", as)
	}
	first, last := parts[order[0]].Start, parts[order[0]].End
	for _, g := range groups {
		t := together(parts, g)
		if c.By == "windows" && len(g) > 1 {
			longest := 0.0
			for _, i := range g {
				longest = max(longest, parts[i].Duration)
			}
			if t.CommonS < minTogether*longest {
				var files []string
				for _, i := range g {
					files = append(files, "'"+parts[i].File+"'")
				}
				return nil, fmt.Errorf("cannot tell how %s ran: their measured windows overlap, but only %.3f s of the longest %.3f s are common to all: "+
					"neither one after the other (rounds) nor together (instances); --merge=rounds or --merge=instances says which",
					strings.Join(files, ", "), t.CommonS, longest)
			}
		}
		c.Rounds = append(c.Rounds, t)
		c.MeasuredS += t.MeasuredS
		for _, i := range g {
			if parts[i].End.After(last) {
				last = parts[i].End
			}
		}
	}
	c.SpanS = last.Sub(first).Seconds()
	if c.By == "windows" {
		switch {
		case len(groups) == 1:
			c.As = AsInstances
		case len(groups) == len(parts):
			c.As = AsRounds
		default:
			c.As = AsRoundsOfInstances
		}
	}
	return c, nil
}

// together is the round of parts g.
func together(parts []Part, g []int) Together {
	t := Together{Parts: slices.Clone(g)}
	var latestStart, earliestEnd time.Time
	for k, i := range g {
		p := &parts[i]
		t.MeasuredS += p.Duration
		if k == 0 || p.Start.After(latestStart) {
			latestStart = p.Start
		}
		if k == 0 || p.End.Before(earliestEnd) {
			earliestEnd = p.End
		}
	}
	t.MeasuredS /= float64(len(g))
	t.CommonS = max(0, earliestEnd.Sub(latestStart).Seconds())
	return t
}

// settings are the merged --threads, --rate and --events: those of one
// round, its instances' summed (the largest round's).
func (c *Combination) settings(parts []Part) (threads int, rate float64, events uint64) {
	for _, t := range c.Rounds {
		var th int
		var r float64
		var ev uint64
		for _, i := range t.Parts {
			th, r, ev = th+parts[i].Threads, r+parts[i].Rate, ev+parts[i].EventLimit
		}
		threads, rate, events = max(threads, th), max(rate, r), max(events, ev)
	}
	return threads, rate, events
}

// Statement says in a line how the windows combined and what the
// per-second figures are over.
func (c *Combination) Statement(files int) string {
	why := map[string]string{AsRounds: "their measured windows do not overlap", AsInstances: "their measured windows overlap",
		AsRoundsOfInstances: "windows that overlap ran together, and such rounds one after the other"}[c.As]
	if c.By != "windows" {
		why = "as --merge says"
	}
	switch c.As {
	case AsRounds:
		return fmt.Sprintf("Combined as %d rounds, one after the other (%s): per-second figures over the sum of their windows, %.3fs (not the %.3fs from the first start to the last end)",
			len(c.Rounds), why, c.MeasuredS, c.SpanS)
	case AsInstances:
		return fmt.Sprintf("Combined as %d instances run together (%s): per-second figures over the mean of their windows, %.3fs: the sum of the instances' own rates",
			files, why, c.MeasuredS)
	}
	return fmt.Sprintf("Combined as %d rounds of instances run together (%s): per-second figures over the sum of the rounds' times (each the mean of its instances' windows), %.3fs",
		len(c.Rounds), why, c.MeasuredS)
}

// workloadDiff says how b's workload differs from a's, "" when it does not.
func workloadDiff(a, b *Workload) string {
	switch {
	case a.Test != b.Test:
		return fmt.Sprintf("test %s against %s", a.Test, b.Test)
	case a.Command != b.Command:
		return fmt.Sprintf("command %s against %s", a.Command, b.Command)
	case a.Driver != b.Driver:
		return fmt.Sprintf("driver %s against %s", a.Driver, b.Driver)
	}
	var diffs []string
	for _, k := range slices.Sorted(maps.Keys(union(a.Options, b.Options))) {
		av, aok := a.Options[k]
		bv, bok := b.Options[k]
		switch {
		case !aok:
			diffs = append(diffs, fmt.Sprintf("--%s=%s only in the second", k, bv))
		case !bok:
			diffs = append(diffs, fmt.Sprintf("--%s=%s only in the first", k, av))
		case av != bv:
			diffs = append(diffs, fmt.Sprintf("--%s=%s against --%s=%s", k, av, k, bv))
		}
	}
	return strings.Join(diffs, ", ")
}

func union(a, b map[string]string) map[string]string {
	out := maps.Clone(a)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, b)
	return out
}

// Alignment is how the measured windows of instances merged as run
// together line up: for one distributed run (--start-at), they should
// start and end together.
type Alignment struct {
	// StartSpreadS and EndSpreadS are the latest start (end) minus the
	// earliest, in seconds.
	StartSpreadS float64 `json:"start_spread_s"`
	EndSpreadS   float64 `json:"end_spread_s"`
	// OverlapS is the time every window covers (0 when they do not all
	// overlap); LongestS the longest window.
	OverlapS float64 `json:"overlap_s"`
	LongestS float64 `json:"longest_s"`
}

// alignParts measures how the parts' measured windows line up.
func alignParts(parts []Part) Alignment {
	var a Alignment
	var first, last, firstEnd, lastEnd time.Time
	for i, p := range parts {
		if i == 0 || p.Start.Before(first) {
			first = p.Start
		}
		if i == 0 || p.Start.After(last) {
			last = p.Start
		}
		if i == 0 || p.End.Before(firstEnd) {
			firstEnd = p.End
		}
		if i == 0 || p.End.After(lastEnd) {
			lastEnd = p.End
		}
		a.LongestS = max(a.LongestS, p.End.Sub(p.Start).Seconds())
	}
	a.StartSpreadS, a.EndSpreadS = last.Sub(first).Seconds(), lastEnd.Sub(firstEnd).Seconds()
	a.OverlapS = max(0, firstEnd.Sub(last).Seconds())
	return a
}

// WriteAlignment says how the windows of instances line up, and warns
// when they do not overlap at all (merged as instances by --merge).
func WriteAlignment(w io.Writer, a *Alignment) {
	fmt.Fprintf(w, "Measured windows: starts within %s, ends within %s; %.3fs of the longest %.3fs common to all\n",
		spreadText(a.StartSpreadS), spreadText(a.EndSpreadS), a.OverlapS, a.LongestS)
	if a.OverlapS == 0 {
		fmt.Fprintf(w, "WARNING: the measured windows do not overlap: merged as instances run together, they were not (--start-at aligns instances)\n")
	}
}

func spreadText(sec float64) string {
	if sec < 1 {
		return fmt.Sprintf("%.1f ms", sec*1000)
	}
	return fmt.Sprintf("%.3f s", sec)
}
