package compare

import (
	"math"
	"strings"
	"testing"

	"github.com/sysbench-go/sysbench-go/stats"
)

func ptr[T any](v T) *T { return &v }

// Each unfairness the summary shows is warned about, once, and a fair
// comparison gets no warning.
func TestWarnings(t *testing.T) {
	durable := []Setting{{"innodb_flush_log_at_trx_commit", "1"}, {"log_bin", "OFF"}, {"sync_binlog", "0"}}
	relaxed := []Setting{{"innodb_flush_log_at_trx_commit", "2"}, {"log_bin", "OFF"}, {"sync_binlog", "0"}}
	group := func(target string, threads int, spread, client float64) Group {
		return Group{Workload: "w", Threads: threads, Target: target, Rounds: 3,
			TPS: Agg{N: 3, Median: 100, SpreadPct: spread}, ClientCPUPct: Agg{N: 3, Max: client}}
	}
	fair := &Summary{Rate: RateTPS, Targets: []Target{
		{Name: "a", Driver: "mysql", ServerVersion: "10.11.6-MariaDB", Settings: durable, Durable: ptr(true)},
		{Name: "b", Driver: "mysql", ServerVersion: "10.11.6-MariaDB", Settings: durable, Durable: ptr(true)},
		{Name: "c", Driver: "sqlite"},
	}, Groups: []Group{group("a", 4, 2, 100), group("b", 4, 4.9, 150), group("c", 1, 1, 100)}}
	if w := warnings(fair, 2); len(w) != 0 {
		t.Errorf("a fair comparison warned: %v", w)
	}

	unfair := &Summary{Rate: RateTPS, Targets: []Target{
		{Name: "a", Driver: "mysql", ServerVersion: "10.11.6-MariaDB", Settings: durable, Durable: ptr(true)},
		{Name: "b", Driver: "mysql", ServerVersion: "11.4.2-MariaDB", Settings: relaxed, Durable: ptr(false)},
		{Name: "m", Driver: "mysql", ServerVersion: "8.4.0"},
	}, Groups: []Group{func() Group { g := group("a", 1, 2, 95); g.OtherClients = 2; return g }(), group("b", 4, 7.5, 20),
		group("m", 1, 6, 10), group("m", 2, 7, 10), group("m", 4, 8, 10), group("m", 8, 9, 10)}}
	got := map[string][]string{}
	for _, w := range warnings(unfair, 2) {
		got[w.Kind] = append(got[w.Kind], w.Message)
	}
	want := map[string][]string{
		"server_version": {"MariaDB targets run different server versions: a 10.11.6-MariaDB, b 11.4.2-MariaDB"},
		"durability": {"commits do not wait for the disk on b (log_bin=OFF, sync_binlog=0, innodb_flush_log_at_trx_commit=2), and do on a",
			"a and b have different durability settings: innodb_flush_log_at_trx_commit 1 / 2"},
		"client_cpu": {"a, w, 1 thread: the client used 95% CPU"},
		// Issue 28, item 7: one form whatever the count.
		"spread": {"b: TPS spread across rounds above 5% in 1 of 1 workloads and thread counts: w, 4 threads 7.5%",
			"m: TPS spread across rounds above 5% in 4 of 4 workloads and thread counts: w, 8 threads 9.0%; w, 4 threads 8.0%; w, 2 threads 7.0%; and 1 more"},
		"other_clients": {"a: other clients worked on the server during 2 of its 3 cells (w, 1 thread): the server's CPU"},
	}
	for kind, msgs := range want {
		if len(got[kind]) != len(msgs) {
			t.Errorf("%s: %q, want %d", kind, got[kind], len(msgs))
			continue
		}
		for i, m := range msgs {
			if !strings.HasPrefix(got[kind][i], m) {
				t.Errorf("%s warning %q, want it to start %q", kind, got[kind][i], m)
			}
		}
	}
}

// Verdicts: the leading target by its median, then the word its change
// against the runner-up with its 95% interval comes to (stats.Judge) and
// the interval; none for one round.
func TestVerdicts(t *testing.T) {
	g := func(target string, tps, p95 []float64) Group {
		return Group{Workload: "w", Threads: 8, Target: target, Rounds: len(tps), TPS: aggregate(tps), P95MS: aggregate(p95)}
	}
	for _, c := range []struct {
		name     string
		a, b     Group
		rate     string
		p95      string
		wordRate stats.Verdict
	}{
		{"apart", g("a", []float64{110, 120, 115, 112}, []float64{2, 2.1, 2.2, 2}), g("b", []float64{90, 100, 95, 92}, []float64{3, 3.1, 3.2, 3}),
			"better: a against b, +21.3%, 95% CI +12.7% to +30.5%, 4 rounds each", "better: a against b, -32.5%, 95% CI -37.1% to -27.7%, 4 rounds each", stats.Better},
		// Issue 48, item 4: rounds apart in too few rounds were "not
		// sure" in the tables while the page said "difference detected";
		// now one word, the interval's, everywhere.
		{"apart in 3 rounds", g("a", []float64{110, 120, 115}, []float64{2, 2.1, 2.2}), g("b", []float64{90, 100, 95}, []float64{3, 3.1, 3.2}),
			"better: a against b, +21.1%, 95% CI +8.4% to +35.3%, 3 rounds each", "better: a against b, -32.3%, 95% CI -38.6% to -25.4%, 3 rounds each", stats.Better},
		{"apart in 3 rounds against 5", g("a", []float64{110, 120, 115}, []float64{2, 2.1, 2.2}), g("b", []float64{90, 100, 95, 91, 92}, []float64{3, 3.1, 3.2, 3, 3}),
			"better: a against b, +22.9%, 95% CI +12.8% to +33.8%, 5 baseline and 3 candidate rounds", "better: a against b, -31.4%, 95% CI -37.8% to -24.3%, 5 baseline and 3 candidate rounds", stats.Better},
		{"overlapping", g("a", []float64{80, 120, 115}, []float64{2, 3.5, 2.2}), g("b", []float64{90, 100, 95}, []float64{3, 3.1, 3.2}),
			"no difference detected: a against b, +8.9%, 95% CI -35.1% to +82.7%, 3 rounds each; these rounds detect about ±92.4% or more",
			"no difference detected: a against b, -19.7%, 95% CI -61.4% to +66.9%, 3 rounds each; these rounds detect about ±149.8% or more", stats.NoDifference},
		{"one round", g("a", []float64{120}, []float64{2}), g("b", []float64{100}, []float64{3}),
			"no interval: a against b, medians +20.0%; one round: no spread to judge by", "no interval: a against b, medians -33.3%; one round: no spread to judge by", stats.NoInterval},
		{"far apart in 2 rounds", g("a", []float64{2000, 2100}, []float64{1, 1.1}), g("b", []float64{30, 31}, []float64{900, 1000}),
			"better: a against b, +6620.2%, 95% CI +5710.6% to +7672.2%, 2 rounds each",
			"better: a against b, -99.9%, 95% CI -99.9% to -99.8%, 2 rounds each", stats.Better},
		{"tied", g("a", []float64{100, 100}, []float64{3, 3}), g("b", []float64{100, 100}, []float64{3, 3}),
			"no difference detected: a against b, +0.0%, 95% CI +0.0% to +0.0%, 2 rounds each; these rounds detect about ±0.0% or more",
			"no difference detected: a against b, +0.0%, 95% CI +0.0% to +0.0%, 2 rounds each; these rounds detect about ±0.0% or more", stats.NoDifference},
		// The medians lead one way, the geometric means the other (rounds
		// in two clusters): the word says so rather than hide it.
		{"medians against means", g("a", []float64{10, 10, 10, 10, 10, 10, 10, 10, 10, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50}, []float64{1, 1}),
			g("b", []float64{45, 45.1, 44.9, 45, 45.2, 44.8, 45, 45, 45.1, 44.9, 45, 45, 45, 45.1, 44.9, 45, 45, 45, 45.1, 44.9}, []float64{1, 1}),
			"worse: a against b, -46.1%, 95% CI -63.3% to -20.9%, 20 rounds each", "no difference detected: a against b, +0.0%, 95% CI +0.0% to +0.0%, 2 rounds each; these rounds detect about ±0.0% or more", stats.Worse},
	} {
		s := &Summary{Rate: RateTPS, Workloads: []string{"w"}, Threads: []int{8}, Targets: []Target{{Name: "a"}, {Name: "b"}},
			Groups: []Group{c.a, c.b}}
		vs := verdicts(s)
		if len(vs) != 2 || vs[0].Text() != c.rate || vs[1].Text() != c.p95 || vs[0].Verdict != c.wordRate {
			t.Errorf("%s: %q / %q (%q), want %q / %q (%q)", c.name, vs[0].Text(), vs[1].Text(), vs[0].Verdict, c.rate, c.p95, c.wordRate)
		}
	}
	only := verdicts(&Summary{Rate: RateTPS, Workloads: []string{"w"}, Threads: []int{8}, Targets: []Target{{Name: "a"}},
		Groups: []Group{g("a", []float64{1, 2}, []float64{1, 2})}})
	if len(only) != 2 || only[0].Text() != "no interval: a, the only target with finished rounds" {
		t.Errorf("a single target: %+v", only)
	}
}

// Issue 40, item 4: a cell whose rate was still climbing when its
// measured window began is warned about, with where it settled; a cell
// steady from the start, or too short to tell, is not; the variation is
// measured from the steady start.
func TestSteadyWarnings(t *testing.T) {
	series := func(warm int) []Point {
		var ps []Point
		for i := 0; i < 120; i++ {
			tps := 1000 + 20*math.Sin(float64(i)*1.7) // wobbles, does not drift
			if i < warm {
				tps *= 0.3 + 0.6*float64(i)/float64(warm)
			}
			ps = append(ps, Point{T: float64(i + 1), TPS: tps})
		}
		return ps
	}
	cells := []Cell{
		{ID: "warm", Target: "a", Workload: "w", Threads: 4, Round: 1, Status: StatusDone, Series: series(30)},
		{ID: "steady", Target: "b", Workload: "w", Threads: 4, Round: 1, Status: StatusDone, Series: series(0)},
		{ID: "short", Target: "b", Workload: "w", Threads: 4, Round: 2, Status: StatusDone, Series: series(0)[:20]},
	}
	for i := range cells {
		cells[i].settle(1, false)
	}
	warm, steady, short := cells[0], cells[1], cells[2]
	if warm.Steady == nil || !warm.Steady.Steady || warm.Steady.Start < 25 || warm.Steady.Start > 35 || warm.Variation == nil || warm.Variation.From != warm.Steady.Start {
		t.Fatalf("warming cell: steady %+v, variation %+v; want steady from about 30 s, measured from there", warm.Steady, warm.Variation)
	}
	if warm.Variation.CV > 0.03 || warm.Variation.Dip.Length != 0 {
		t.Errorf("warming cell: variation from its steady start %+v, want the wobble's CV (about 1.4%%) and no dip", warm.Variation)
	}
	if steady.Steady == nil || steady.Steady.Start != 0 || short.Steady != nil || short.SteadyNote == "" || short.Variation == nil {
		t.Errorf("steady %+v / short %+v %q %+v", steady.Steady, short.Steady, short.SteadyNote, short.Variation)
	}
	ws := steadyWarnings(&Summary{Rate: RateTPS, Cells: cells})
	if len(ws) != 1 || ws[0].Kind != "not_steady" ||
		!strings.HasPrefix(ws[0].Message, "cell warm (a, w, 4 threads, round 1) was measured before it was steady: its tps settled ") {
		t.Fatalf("warnings %+v, want one for the warming cell", ws)
	}
	t.Log(ws[0].Message)
}
