package report

import (
	"fmt"
	"io"
	"maps"
	"sort"
	"strconv"
	"time"
)

// Outage is a stretch of a run in which the service did not answer: no
// event completed for longer than --outage-threshold while events were
// running or failing (docs/availability.md). It begins at the last event
// that completed before it and ends when the first event completed after
// it; one still open when the run ended is Ongoing, its End the run's end.
type Outage struct {
	// Start and End are seconds from the measured window's start (as the
	// intervals' time_s; an outage during --warmup-time starts before 0).
	Start float64 `json:"start_s"`
	End   float64 `json:"end_s"`
	// StartTime and EndTime are the same instants on the wall clock.
	StartTime time.Time `json:"start_time"`
	EndTime   time.Time `json:"end_time"`
	// Duration is End - Start, in seconds.
	Duration float64 `json:"duration_s"`
	// Ongoing says the run ended during the outage.
	Ongoing bool `json:"ongoing,omitempty"`
	// Failures are the failed tries of events during the outage by error
	// code (as failures_by_code: restarts and events given up), with
	// "HYT00" for --query-timeout's; Errors and Reconnects are the
	// ignored errors and the reconnects counted during it.
	Failures   map[string]uint64 `json:"failures_by_code"`
	Errors     uint64            `json:"errors"`
	Reconnects uint64            `json:"reconnects"`
	// TPSBefore is the throughput over the seconds before it began (at
	// most OutageTPSWindow), TPSAfter over those after it ended (0 for an
	// ongoing outage).
	TPSBefore float64 `json:"tps_before"`
	TPSAfter  float64 `json:"tps_after"`
	// HostsBefore and HostsAfter are the endpoints that served before
	// and after it (AttachHosts): a failover's old and new server.
	HostsBefore []string `json:"hosts_before,omitempty"`
	HostsAfter  []string `json:"hosts_after,omitempty"`
	// Source names who saw the outage in a merge: the results file of the
	// instance, or "" for an outage of the whole service.
	Source string `json:"source,omitempty"`
}

// OutageTPSWindow is how far before and after an outage its throughput
// before and after is measured.
const OutageTPSWindow = 5 * time.Second

// FailureCount is the outage's failures of every code.
func (o *Outage) FailureCount() uint64 {
	var n uint64
	for _, v := range o.Failures {
		n += v
	}
	return n
}

// WriteAvailability writes the "Availability:" block after the final
// report: the number of outages, their total length, then one line per
// outage (when, how long, the throughput before and after, the failures
// and reconnects in it) with its failures by code below it. It writes
// nothing without outages: a run that had none prints the reference's
// report unchanged.
func WriteAvailability(w io.Writer, outages []Outage) {
	if len(outages) == 0 {
		return
	}
	var total, longest float64
	for _, o := range outages {
		total += o.Duration
		longest = max(longest, o.Duration)
	}
	fmt.Fprintf(w, "Availability:\n")
	fmt.Fprintf(w, "    outages:                             %d (%.3fs in all, the longest %.3fs)\n", len(outages), total, longest)
	fmt.Fprintf(w, "    %-4s %10s %10s %9s  %-21s %9s %11s\n", "", "start", "end", "length", "tps before/after", "failures", "reconnects")
	for i, o := range outages {
		end := fmt.Sprintf("%.3fs", o.End)
		after := fmt.Sprintf("%.2f", o.TPSAfter)
		if o.Ongoing {
			end, after = "end", "-"
		}
		fmt.Fprintf(w, "    #%-3d %9.3fs %10s %8.3fs  %-21s %9d %11d", i+1, o.Start, end, o.Duration,
			fmt.Sprintf("%.2f/%s", o.TPSBefore, after), o.FailureCount(), o.Reconnects)
		if o.Ongoing {
			fmt.Fprintf(w, "  ongoing at end of run")
		}
		writeOutageHosts(w, o)
		if o.Source != "" {
			fmt.Fprintf(w, "  (%s)", o.Source)
		}
		fmt.Fprintf(w, "\n")
		codes := make([]string, 0, len(o.Failures))
		for c := range o.Failures {
			codes = append(codes, c)
		}
		sort.Slice(codes, func(i, j int) bool {
			if o.Failures[codes[i]] != o.Failures[codes[j]] {
				return o.Failures[codes[i]] > o.Failures[codes[j]]
			}
			return codes[i] < codes[j]
		})
		for _, c := range codes {
			fmt.Fprintf(w, "          %-36s %d\n", ErrorLabel(c)+":", o.Failures[c])
		}
	}
	fmt.Fprintf(w, "\n")
}

// mergeOutages are the outages of results merged (Merge): first those of
// the whole, then, when some files ran together, each file's own with
// its name as Source. Files whose measured windows overlap ran together
// (instances of one run): the whole was out while every one of them was,
// for at least the threshold (the first file's --outage-threshold); its
// failures, reconnects and throughput are the sums of the instances'
// outages that make it up. A file alone in its time (a round) was the
// whole: its outages are the whole's. Offsets count from start, the
// merged window's.
func mergeOutages(rs []*Results, names []string, start time.Time) []Outage {
	order := make([]int, len(rs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return rs[order[a]].Total.Start.Before(rs[order[b]].Total.Start) })
	var groups [][]int
	var end time.Time
	for _, i := range order {
		w := rs[i].Total
		if len(groups) == 0 || !w.Start.Before(end) {
			groups, end = append(groups, nil), w.End
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], i)
		if w.End.After(end) {
			end = w.End
		}
	}
	threshold := outageThreshold(rs[0])
	var whole, own []Outage
	for _, g := range groups {
		if len(g) == 1 {
			whole = append(whole, ownOutages(rs[g[0]])...)
			continue
		}
		cur := ownOutages(rs[g[0]])
		for _, i := range g[1:] {
			cur = intersectOutages(cur, ownOutages(rs[i]))
		}
		for _, o := range cur {
			if o.EndTime.Sub(o.StartTime) >= threshold {
				whole = append(whole, o)
			}
		}
		for _, i := range g {
			for _, o := range ownOutages(rs[i]) {
				o.Source = names[i]
				own = append(own, o)
			}
		}
	}
	out := append(whole, own...)
	for i := range out {
		o := &out[i]
		o.Start, o.End = o.StartTime.Sub(start).Seconds(), o.EndTime.Sub(start).Seconds()
		o.Duration = o.EndTime.Sub(o.StartTime).Seconds()
		if o.Failures == nil {
			o.Failures = map[string]uint64{}
		}
	}
	return out
}

// ownOutages are the outages of the whole that r records (a merged
// file's, without those of its parts).
func ownOutages(r *Results) []Outage {
	var out []Outage
	for _, o := range r.Outages {
		if o.Source == "" {
			o.Failures = maps.Clone(o.Failures)
			out = append(out, o)
		}
	}
	return out
}

// outageThreshold is r's --outage-threshold (1 s when it does not say).
func outageThreshold(r *Results) time.Duration {
	if f, err := strconv.ParseFloat(r.Options["outage-threshold"], 64); err == nil && f >= 0 {
		return time.Duration(f * float64(time.Second))
	}
	return time.Second
}

// intersectOutages are the stretches in which an outage of a and one of
// b were both on, each with the two outages' figures added.
func intersectOutages(a, b []Outage) []Outage {
	var out []Outage
	for _, x := range a {
		for _, y := range b {
			s, e := x.StartTime, x.EndTime
			if y.StartTime.After(s) {
				s = y.StartTime
			}
			if y.EndTime.Before(e) {
				e = y.EndTime
			}
			if !e.After(s) {
				continue
			}
			o := Outage{StartTime: s, EndTime: e, Ongoing: x.Ongoing && y.Ongoing, Failures: maps.Clone(x.Failures),
				Errors: x.Errors + y.Errors, Reconnects: x.Reconnects + y.Reconnects,
				TPSBefore: x.TPSBefore + y.TPSBefore, TPSAfter: x.TPSAfter + y.TPSAfter}
			if o.Failures == nil {
				o.Failures = map[string]uint64{}
			}
			for k, v := range y.Failures {
				o.Failures[k] += v
			}
			out = append(out, o)
		}
	}
	return out
}
