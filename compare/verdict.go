package compare

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/sysbench-go/sysbench-go/stats"
)

// Verdict is which target leads on one figure of a workload at a thread
// count (by median) and what the rounds say of its lead over the next
// target: one of the words of stats.Verdicts, from the lead's change
// against the runner-up with its 95% confidence interval. It is what a
// reader of the comparison decides on, and every output (the text and
// Markdown tables, compare.json, the HTML report) says it with the same
// word and the same text (Text).
type Verdict struct {
	Workload string `json:"workload"`
	Threads  int    `json:"threads"`
	// Figure is "tps" or "qps" (higher is better) or "p95_ms" (lower is).
	Figure string `json:"figure"`
	// Best is the target with the better median; Next the runner-up, ""
	// when the best is the only target with finished rounds.
	Best string `json:"best"`
	Next string `json:"next,omitempty"`
	// Verdict is the word: stats.Better when the interval of Best's
	// change against Next lies wholly on the better side of 0,
	// stats.Worse when wholly on the other (the rounds' geometric means
	// disagree with the medians: rare, rounds in two clusters),
	// stats.NoDifference when it holds 0, stats.NoInterval without one.
	Verdict stats.Verdict `json:"verdict"`
	// MarginPct is how much better the best's median is than the
	// runner-up's, in per cent of the runner-up's.
	MarginPct float64 `json:"margin_pct"`
	// Rounds is the fewer finished rounds of the two.
	Rounds int `json:"rounds"`
	// Change is the best's change against the runner-up (the baseline)
	// with its 95% confidence interval, from their rounds (stats.Compare:
	// Welch's t on the logs): positive for a higher rate, negative for a
	// lower p95. Nil with fewer than 2 rounds of either, or a round that
	// measured nothing (NoInterval then says why).
	Change     *stats.Change `json:"change,omitempty"`
	NoInterval string        `json:"no_interval,omitempty"`
	// Intervals are, in a capacity matrix of one round (no change over
	// rounds to judge by), the two searches' 95% intervals of their
	// answers: stats.Better when the best's lies wholly above the
	// runner-up's, stats.NoDifference when they overlap.
	Intervals *CapacityIntervals `json:"intervals,omitempty"`
}

// CapacityIntervals are the best's and the runner-up's intervals of
// their capacity, low and high, in tps.
type CapacityIntervals struct {
	Best [2]float64 `json:"best"`
	Next [2]float64 `json:"next"`
}

// FigureP95 is the latency figure of a Verdict.
const FigureP95 = "p95_ms"

// verdicts are the summary's: for each workload and thread count, the
// rate's and the p95's.
func verdicts(s *Summary) []Verdict {
	out := []Verdict{}
	for _, w := range s.Workloads {
		for _, th := range s.Threads {
			var gs []*Group
			for _, t := range s.Targets {
				if g := s.group(w, th, t.Name); g != nil && g.Rounds > 0 {
					gs = append(gs, g)
				}
			}
			if len(gs) == 0 {
				continue
			}
			rate := func(g *Group) Agg { return g.Rate(s.Rate) }
			p95 := func(g *Group) Agg { return g.P95MS }
			if s.Capacity != nil {
				// The capacity alone: each target's p95 is at its own
				// capacity, a load the others were not offered.
				v := verdict(w, th, s.Rate, gs, rate, true)
				byIntervals(&v, s.group(w, th, v.Best), s.group(w, th, v.Next))
				out = append(out, v)
				continue
			}
			out = append(out, verdict(w, th, s.Rate, gs, rate, true), verdict(w, th, FigureP95, gs, p95, false))
		}
	}
	return out
}

// verdict ranks groups gs on the figure agg (higher better or lower).
func verdict(workload string, threads int, figure string, gs []*Group, agg func(*Group) Agg, higher bool) Verdict {
	ranked := slices.Clone(gs)
	slices.SortStableFunc(ranked, func(a, b *Group) int {
		if higher {
			return cmp.Compare(agg(b).Median, agg(a).Median)
		}
		return cmp.Compare(agg(a).Median, agg(b).Median)
	})
	best := agg(ranked[0])
	v := Verdict{Workload: workload, Threads: threads, Figure: figure, Best: ranked[0].Target, Rounds: best.N, Verdict: stats.NoInterval}
	if len(ranked) == 1 {
		v.NoInterval = "the only target with finished rounds"
		return v
	}
	next := agg(ranked[1])
	v.Next, v.Rounds = ranked[1].Target, min(best.N, next.N)
	if next.Median != 0 {
		v.MarginPct = math.Abs(100 * (best.Median - next.Median) / next.Median)
	}
	if v.Rounds < 2 {
		v.NoInterval = "one round: no spread to judge by"
		return v
	}
	c, err := stats.Compare(next.Rounds, best.Rounds, 0)
	if err != nil {
		v.NoInterval = err.Error()
		return v
	}
	v.Change, v.Verdict = &c, c.Verdict(higher)
	return v
}

// byIntervals judges a capacity verdict that the rounds cannot (a single
// round of either target) by the searches' own intervals: each holds its
// target's capacity, so the best is better when its interval lies wholly
// above the runner-up's; when they overlap the capacities may be equal.
// (Two 95% intervals apart is a stricter test than a 95% interval of the
// difference: the verdict errs towards no difference.)
func byIntervals(v *Verdict, best, next *Group) {
	if v.Change != nil || next == nil || best.Capacity == nil || next.Capacity == nil ||
		len(best.Capacity.Intervals) == 0 || len(next.Capacity.Intervals) == 0 {
		return
	}
	v.Intervals = &CapacityIntervals{Best: span(best.Capacity.Intervals), Next: span(next.Capacity.Intervals)}
	v.NoInterval, v.Verdict = "", stats.NoDifference
	if v.Intervals.Best[0] > v.Intervals.Next[1] {
		v.Verdict = stats.Better
	}
}

// span is the intervals' lowest low to their highest high.
func span(ivs [][2]float64) [2]float64 {
	out := ivs[0]
	for _, iv := range ivs[1:] {
		out[0], out[1] = min(out[0], iv[0]), max(out[1], iv[1])
	}
	return out
}

// Text says the verdict, its word first: "better: pg against mariadb,
// +54.7%, 95% CI +45.2% to +64.8%, 5 rounds each", "no difference
// detected: pg against mariadb, +1.3%, 95% CI -5.0% to +7.9%, 5 rounds
// each; these rounds detect about ±9.0% or more", "no interval: pg
// against mariadb, medians +20.0%; one round: no spread to judge by".
// The interval's notes (too few rounds, rounds that do not vary) are in
// compare.json and on the page, not in the tables' cells.
func (v Verdict) Text() string { return string(v.Verdict) + ": " + v.Best + v.Detail() }

// Detail is Text after the word and the best target's name.
func (v Verdict) Detail() string {
	switch {
	case v.Next == "":
		return ", " + v.NoInterval
	case v.Change != nil:
		return fmt.Sprintf(" against %s, %s", v.Next, v.Change)
	case v.Intervals != nil:
		b, n := v.Intervals.Best, v.Intervals.Next
		apart := "overlap"
		if v.Verdict == stats.Better {
			apart = "do not overlap"
		}
		return fmt.Sprintf(" against %s, medians %+.1f%%; their 95%% intervals, %.1f-%.1f and %.1f-%.1f tps, %s",
			v.Next, v.MarginPct, b[0], b[1], n[0], n[1], apart)
	}
	margin := v.MarginPct
	if v.Figure == FigureP95 {
		margin = -margin
	}
	return fmt.Sprintf(" against %s, medians %+.1f%%; %s", v.Next, margin, v.NoInterval)
}

// verdictWords lists the words a verdict may be, for the tables' titles
// and the page's legend.
func verdictWords() string {
	words := make([]string, len(stats.Verdicts))
	for i, w := range stats.Verdicts {
		words[i] = string(w)
	}
	return strings.Join(words, ", ")
}

// verdictOf is the verdict of a workload, thread count and figure.
func (s *Summary) verdictOf(workload string, threads int, figure string) *Verdict {
	for i := range s.Verdicts {
		v := &s.Verdicts[i]
		if v.Workload == workload && v.Threads == threads && v.Figure == figure {
			return v
		}
	}
	return nil
}
