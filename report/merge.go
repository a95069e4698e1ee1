package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"sysbench-go/metrics"
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
	out.Settings.Threads = 0
	out.Exit = Exit{Reason: "completed", Fatal: []string{}}
	for _, r := range rs {
		out.Settings.Threads += r.Settings.Threads
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
