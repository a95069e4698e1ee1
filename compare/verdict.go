package compare

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/sysbench-go/sysbench-go/stats"
)

// Verdict is which target did better on one figure of a workload at a
// thread count, by how much, and how sure that is: what a reader of the
// comparison decides on.
type Verdict struct {
	Workload string `json:"workload"`
	Threads  int    `json:"threads"`
	// Figure is "tps" or "qps" (higher is better) or "p95_ms" (lower is).
	Figure string `json:"figure"`
	Best   string `json:"best"`
	// Next is the runner-up, "" when the best is the only target with
	// finished rounds.
	Next string `json:"next,omitempty"`
	// MarginPct is how much better the best's median is than the
	// runner-up's, in per cent of the runner-up's.
	MarginPct float64 `json:"margin_pct"`
	// Apart says that every round of the best did better than every round
	// of the runner-up (their ranges over the rounds do not overlap).
	Apart bool `json:"apart"`
	// Sure says that they are apart, with rounds enough that this is
	// unlikely by chance alone (SeparationChance under SureChance).
	Sure bool `json:"sure"`
	// Rounds is the fewer finished rounds of the two.
	Rounds int `json:"rounds"`
	// Change is the best's change against the runner-up (the baseline)
	// with its 95% confidence interval, from their rounds (stats.Compare:
	// Welch's t on the logs): positive for a higher rate, negative for a
	// lower p95. Nil with fewer than 2 rounds of either, or a round that
	// measured nothing (NoInterval then says why).
	Change     *stats.Change `json:"change,omitempty"`
	NoInterval string        `json:"no_interval,omitempty"`
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
	v := Verdict{Workload: workload, Threads: threads, Figure: figure, Best: ranked[0].Target, Rounds: best.N}
	if len(ranked) == 1 {
		return v
	}
	next := agg(ranked[1])
	v.Next, v.Rounds = ranked[1].Target, min(best.N, next.N)
	if next.Median != 0 {
		v.MarginPct = math.Abs(100 * (best.Median - next.Median) / next.Median)
	}
	apart := best.Min > next.Max
	if !higher {
		apart = best.Max < next.Min
	}
	v.Apart = v.Rounds >= 2 && apart
	v.Sure = v.Apart && SeparationChance(best.N, next.N) < SureChance
	if v.Rounds >= 2 {
		if c, err := stats.Compare(next.Rounds, best.Rounds, 0); err == nil {
			v.Change = &c
		} else {
			v.NoInterval = err.Error()
		}
	}
	return v
}

// SureChance is the most that chance alone may explain of a verdict
// called sure.
const SureChance = 0.05

// MinSureRounds is how many rounds of each target a sure verdict needs
// when both have as many: with 3 each, two equal targets fall apart one
// time in ten.
const MinSureRounds = 4

// SeparationChance is the chance that a rounds of one target and b of
// another, all drawn from the same distribution, come out with every
// round of one beating every round of the other (either way): 2 of the
// C(a+b, a) equally likely orders. 2 rounds each: 1 in 3; 4 each: 1 in 35.
func SeparationChance(a, b int) float64 {
	if a < 1 || b < 1 {
		return 1
	}
	orders := 1.0 // C(a+b, a), built up without overflow
	for i := 1; i <= a; i++ {
		orders = orders * float64(b+i) / float64(i)
	}
	return math.Min(1, 2/orders)
}

// Text says the verdict in a few words: "postgresql, 14% more: every
// round", "mariadb, 3% lower: not sure, the rounds overlap".
func (v Verdict) Text() string {
	if v.Next == "" {
		return v.Best + " (the only one)"
	}
	if v.MarginPct == 0 {
		return fmt.Sprintf("%s, tied with %s: equal medians%s", v.Best, v.Next, v.intervalText())
	}
	more := "more"
	if v.Figure == FigureP95 {
		more = "lower"
	}
	by := fmt.Sprintf("%.1f%% %s", v.MarginPct, more)
	if v.MarginPct >= 100 && v.Figure != FigureP95 {
		by = fmt.Sprintf("%.1f times as much", 1+v.MarginPct/100)
	}
	how := "every round better"
	switch {
	case v.Rounds < 2:
		how = "one round: not sure"
	case !v.Apart:
		how = "not sure: the rounds overlap"
	case !v.Sure:
		how = fmt.Sprintf("not sure: rounds apart, but %d are too few (%d needed)", v.Rounds, MinSureRounds)
	}
	return fmt.Sprintf("%s, %s: %s%s", v.Best, by, how, v.intervalText())
}

// intervalText is the verdict's confidence interval as its text ends:
// "; +12.4%, 95% CI +8.1% to +16.9%, 5 rounds each". The interval's notes
// (too few rounds, rounds that do not vary) are in compare.json and on the
// page, not in the tables' cells.
func (v Verdict) intervalText() string {
	switch {
	case v.Change != nil:
		return "; " + v.Change.String()
	case v.NoInterval != "":
		return "; no interval: " + v.NoInterval
	}
	return ""
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
