package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/sysbench-go/sysbench-go/metrics"
)

// Merge combines results files (rounds of a comparison, client machines
// of one run) into one: counters summed, histograms merged, the threads of
// all, the union of their time windows. Files of different workloads are
// refused, naming the difference, unless force is set. names label the
// files in messages and in the result's "merged" list.
func Merge(rs []*Results, names []string, force bool) (*Results, error) {
	if len(rs) == 0 {
		return nil, fmt.Errorf("no results to merge")
	}
	first := rs[0]
	for i, r := range rs {
		if r.Total == nil {
			return nil, fmt.Errorf("'%s' has no measurement to merge (the run failed before it began)", names[i])
		}
		if i == 0 || force {
			continue
		}
		if d := workloadDiff(&first.Workload, &r.Workload); d != "" {
			return nil, fmt.Errorf("cannot merge '%s' and '%s': %s (--force merges them anyway)", names[0], names[i], d)
		}
	}
	if len(rs) == 1 {
		out := *first
		return &out, nil
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
	out := *first
	out.Merged = append([]string(nil), names...)
	out.Intervals, out.Checkpoints = []Interval{}, []Window{}
	// Servers' records do not add up (one server watched by several
	// clients, or several servers): a merge keeps none.
	out.Server = nil
	out.Settings.Threads, out.Settings.Rate, out.Settings.Events = 0, 0, 0
	out.Instance = nil
	align := Align(rs)
	out.Alignment = &align
	out.Exit = Exit{Reason: "completed", Fatal: []string{}}
	for _, r := range rs {
		out.Settings.Threads += r.Settings.Threads
		out.Settings.Rate += r.Settings.Rate
		out.Settings.Events += r.Settings.Events
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
	}
	w, err := NewWindow(total, first.Settings.Percentiles)
	if err != nil {
		return nil, err
	}
	out.Total = w
	if out.Statements, err = mergeStatements(rs, first.Settings.Percentiles); err != nil {
		return nil, err
	}
	out.Thresholds = []ThresholdResult{}
	return &out, nil
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

// Alignment is how the measured windows of merged results line up: for
// the instances of one distributed run (--start-at), they should start
// and end together.
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

// Align measures how the results' measured windows line up.
func Align(rs []*Results) Alignment {
	var a Alignment
	var first, last, firstEnd, lastEnd time.Time
	for i, r := range rs {
		w := r.Total
		if i == 0 || w.Start.Before(first) {
			first = w.Start
		}
		if i == 0 || w.Start.After(last) {
			last = w.Start
		}
		if i == 0 || w.End.Before(firstEnd) {
			firstEnd = w.End
		}
		if i == 0 || w.End.After(lastEnd) {
			lastEnd = w.End
		}
		a.LongestS = max(a.LongestS, w.End.Sub(w.Start).Seconds())
	}
	a.StartSpreadS, a.EndSpreadS = last.Sub(first).Seconds(), lastEnd.Sub(firstEnd).Seconds()
	a.OverlapS = max(0, firstEnd.Sub(last).Seconds())
	return a
}

// WriteAlignment says how merged windows line up, and warns when they do
// not overlap at all.
func WriteAlignment(w io.Writer, a *Alignment) {
	fmt.Fprintf(w, "Measured windows: starts within %s, ends within %s; %.3fs of the longest %.3fs common to all\n",
		spreadText(a.StartSpreadS), spreadText(a.EndSpreadS), a.OverlapS, a.LongestS)
	if a.OverlapS == 0 {
		fmt.Fprintf(w, "WARNING: the measured windows do not overlap: the merged rates are not those of simultaneous load (--start-at aligns instances)\n")
	}
}

func spreadText(sec float64) string {
	if sec < 1 {
		return fmt.Sprintf("%.1f ms", sec*1000)
	}
	return fmt.Sprintf("%.3f s", sec)
}
