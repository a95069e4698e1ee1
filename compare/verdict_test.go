package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sysbench-go/sysbench-go/stats"
)

// verdictCell is one verdict as an output shows it: its word and, where
// the output has it, its whole text.
type verdictCell struct {
	word, text string
}

// verdictKey names a cell: workload, thread count, figure.
type verdictKey struct {
	workload string
	threads  int
	figure   string
}

func (k verdictKey) String() string {
	return fmt.Sprintf("%s, %d threads, %s", k.workload, k.threads, k.figure)
}

// verdictsSummary is a comparison whose cells come to every verdict word:
// a clear lead (better), a lead the rounds cannot tell from noise (no
// difference detected), medians that lead one way and geometric means the
// other (worse), and single rounds (no interval).
func verdictsSummary() *Summary {
	g := func(w string, th int, target string, tps, p95 []float64) Group {
		return Group{Workload: w, Threads: th, Target: target, Rounds: len(tps), TPS: aggregate(tps), P95MS: aggregate(p95)}
	}
	clusters := []float64{10, 10, 10, 10, 10, 10, 10, 10, 10, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50}
	steady := make([]float64, len(clusters))
	for i := range steady {
		steady[i] = 45 + float64(i%3)/10
	}
	s := &Summary{SchemaVersion: SummaryVersion, Title: "verdicts", Rate: RateTPS, Rounds: 3,
		Workloads: []string{"clear", "noisy", "clustered"}, Threads: []int{1, 8},
		Targets: []Target{{Name: "mariadb"}, {Name: "postgresql"}},
		Groups: []Group{
			g("clear", 1, "mariadb", []float64{110, 120, 115}, []float64{2, 2.1, 2.2}),
			g("clear", 1, "postgresql", []float64{90, 100, 95}, []float64{3, 3.1, 3.2}),
			g("noisy", 1, "mariadb", []float64{80, 120, 115}, []float64{2, 3.5, 2.2}),
			g("noisy", 1, "postgresql", []float64{90, 100, 95}, []float64{3, 3.1, 3.2}),
			g("clustered", 1, "mariadb", clusters, []float64{1, 1.2, 1.1}),
			g("clustered", 1, "postgresql", steady, []float64{1.1, 1.3, 1.2}),
			g("clear", 8, "mariadb", []float64{120}, []float64{2}),
			g("clear", 8, "postgresql", []float64{100}, []float64{3}),
			g("noisy", 8, "postgresql", []float64{100, 101}, []float64{3, 3.1}),
		},
	}
	s.Verdicts = verdicts(s)
	return s
}

// Issue 48, item 4: one comparison rendered through every output — the
// text tables, Markdown, compare.json and the HTML report — says each
// cell's verdict with the same word and the same text, and no output
// words it otherwise ("not sure", "difference detected" beside a word,
// an interval read as a limit on an improvement).
func TestVerdictsOneWordEverywhere(t *testing.T) {
	t.Parallel()
	s := verdictsSummary()
	seen := map[stats.Verdict]bool{}
	for _, v := range s.Verdicts {
		seen[v.Verdict] = true
	}
	for _, w := range stats.Verdicts {
		if !seen[w] {
			t.Fatalf("the comparison comes to no %q verdict: it would not test that word", w)
		}
	}

	var text, md, js, page bytes.Buffer
	s.WriteText(&text)
	s.WriteMarkdown(&md)
	if err := json.NewEncoder(&js).Encode(s); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&page, s); err != nil {
		t.Fatal(err)
	}
	outputs := map[string]map[verdictKey]verdictCell{
		"text":     tableVerdicts(t, text.String(), s.Rate, false),
		"markdown": tableVerdicts(t, md.String(), s.Rate, true),
		"json":     jsonVerdicts(t, js.Bytes()),
		"html":     htmlVerdicts(t, page.String(), s.Rate),
	}
	for _, v := range s.Verdicts {
		k := verdictKey{v.Workload, v.Threads, v.Figure}
		for name, cells := range outputs {
			c, ok := cells[k]
			switch {
			case !ok:
				t.Errorf("%s: no verdict for %s", name, k)
			case c.word != string(v.Verdict):
				t.Errorf("%s: %s is %q, want %q", name, k, c.word, v.Verdict)
			case c.text != "" && c.text != v.Text():
				t.Errorf("%s: %s reads\n  %q\nwant\n  %q", name, k, c.text, v.Text())
			}
		}
	}
	for name, cells := range outputs {
		if len(cells) != len(s.Verdicts) {
			t.Errorf("%s shows %d verdicts, want %d", name, len(cells), len(s.Verdicts))
		}
	}
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String(), "json": js.String(), "html": page.String()} {
		for _, bad := range []string{"not sure", "sure:", "every round better", "no better than", "no lower than", ">difference detected", `"difference detected`} {
			if strings.Contains(out, bad) {
				t.Errorf("%s says %q", name, bad)
			}
		}
	}
}

// tableVerdicts reads the verdict tables of the text or Markdown output:
// a title "N thread(s): verdicts ..." and rows of a workload, the rate's
// verdict and the p95's.
func tableVerdicts(t *testing.T, out, rate string, markdown bool) map[verdictKey]verdictCell {
	t.Helper()
	title := regexp.MustCompile(`^(?:\*\*)?(\d+) threads?: verdicts`)
	unescape := strings.NewReplacer(`\|`, "|", `\*`, "*", `\_`, "_", "&lt;", "<")
	cells := map[verdictKey]verdictCell{}
	threads := 0
	for line := range strings.Lines(out) {
		line = strings.TrimRight(line, "\n")
		if m := title.FindStringSubmatch(line); m != nil {
			threads, _ = strconv.Atoi(m[1])
			continue
		}
		if threads == 0 {
			continue
		}
		var row []string
		switch {
		case line == "" && !markdown, markdown && line != "" && !strings.HasPrefix(line, "|"):
			threads = 0
			continue
		case markdown:
			if line == "" || strings.HasPrefix(line, "|---") {
				continue
			}
			for _, c := range regexp.MustCompile(`\s\|\s`).Split(strings.Trim(line, "| "), -1) {
				row = append(row, unescape.Replace(c))
			}
		default:
			row = regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(line), -1)
		}
		if len(row) != 3 || row[0] == "workload" {
			continue
		}
		for i, figure := range []string{rate, FigureP95} {
			word, _, _ := strings.Cut(row[1+i], ":")
			cells[verdictKey{row[0], threads, figure}] = verdictCell{word: word, text: row[1+i]}
		}
	}
	return cells
}

// jsonVerdicts reads compare.json's verdicts: their words.
func jsonVerdicts(t *testing.T, b []byte) map[verdictKey]verdictCell {
	t.Helper()
	var doc struct {
		Verdicts []struct {
			Workload string `json:"workload"`
			Threads  int    `json:"threads"`
			Figure   string `json:"figure"`
			Verdict  string `json:"verdict"`
		} `json:"verdicts"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	cells := map[verdictKey]verdictCell{}
	for _, v := range doc.Verdicts {
		cells[verdictKey{v.Workload, v.Threads, v.Figure}] = verdictCell{word: v.Verdict}
	}
	return cells
}

var (
	glanceRowRE = regexp.MustCompile(`<tr><th scope="row">([^<]*)</th>(.*)</tr>`)
	glanceTDRE  = regexp.MustCompile(`<td>(.*?)</td>`)
	verdictElRE = regexp.MustCompile(`<div class="verdict [^"]*" data-verdict="([^"]*)"[^>]*><span class="figure">([^<]*)</span> (.*?)</div>`)
	tagRE       = regexp.MustCompile(`<[^>]*>`)
)

// htmlVerdicts reads the page's glance table: a row per workload, a cell
// per thread count (in the order of the header), in each the rate's and
// the p95's verdict: the word it is marked with (data-verdict) and what
// it shows, which must begin with that word.
func htmlVerdicts(t *testing.T, doc, rate string) map[verdictKey]verdictCell {
	t.Helper()
	_, glance, ok := strings.Cut(doc, `<table class="glance">`)
	glance, _, _ = strings.Cut(glance, "</table>")
	if !ok {
		t.Fatal("the page has no glance table")
	}
	var threads []int
	for _, m := range regexp.MustCompile(`<th scope="col">(\d+) threads?</th>`).FindAllStringSubmatch(glance, -1) {
		n, _ := strconv.Atoi(m[1])
		threads = append(threads, n)
	}
	cells := map[verdictKey]verdictCell{}
	for _, row := range glanceRowRE.FindAllStringSubmatch(glance, -1) {
		for i, td := range glanceTDRE.FindAllStringSubmatch(row[2], -1) {
			for _, el := range verdictElRE.FindAllStringSubmatch(td[1], -1) {
				figure := rate
				if el[2] == "p95" {
					figure = FigureP95
				}
				shown := html.UnescapeString(tagRE.ReplaceAllString(el[3], ""))
				word := html.UnescapeString(el[1])
				if !strings.HasPrefix(shown, word+": ") {
					t.Errorf("the page marks %q but shows %q", word, shown)
				}
				if i >= len(threads) {
					t.Fatalf("more cells than thread counts in %q", row[0])
				}
				cells[verdictKey{html.UnescapeString(row[1]), threads[i], figure}] = verdictCell{word: word, text: shown}
			}
		}
	}
	if len(cells) == 0 || !slices.IsSorted(threads) {
		t.Errorf("the glance table: threads %v, %d verdicts", threads, len(cells))
	}
	return cells
}

// A capacity matrix of one round has no spread over rounds to judge by:
// its verdict is the two searches' own intervals, better when the best's
// lies wholly above the runner-up's, no difference when they overlap;
// with rounds, the rounds decide as for any rate. The p95, at each
// target's own capacity, has no verdict.
func TestCapacityVerdicts(t *testing.T) {
	g := func(w, target string, tps []float64, ivs ...[2]float64) Group {
		return Group{Workload: w, Threads: 4, Target: target, Rounds: len(tps), TPS: aggregate(tps), P95MS: aggregate(tps),
			Capacity: &GroupCapacity{Intervals: ivs}}
	}
	s := &Summary{Rate: RateTPS, Rounds: 1, Workloads: []string{"apart", "overlap", "rounds"}, Threads: []int{4},
		Targets:  []Target{{Name: "mariadb"}, {Name: "postgresql"}},
		Capacity: &CapacityDesign{Objective: []string{"p99<=10ms"}, TimeS: 60},
		Groups: []Group{
			g("apart", "mariadb", []float64{1000}, [2]float64{950, 1100}),
			g("apart", "postgresql", []float64{800}, [2]float64{760, 940}),
			g("overlap", "mariadb", []float64{1000}, [2]float64{950, 1100}),
			g("overlap", "postgresql", []float64{900}, [2]float64{860, 990}),
			g("rounds", "mariadb", []float64{1000, 1010, 990}, [2]float64{950, 1100}, [2]float64{960, 1110}, [2]float64{940, 1090}),
			g("rounds", "postgresql", []float64{800, 810, 790}, [2]float64{760, 940}, [2]float64{770, 950}, [2]float64{750, 930}),
		}}
	vs := verdicts(s)
	if len(vs) != 3 {
		t.Fatalf("%d verdicts, want one per workload (the capacity's alone): %+v", len(vs), vs)
	}
	for _, c := range []struct {
		v    Verdict
		word stats.Verdict
		text string
	}{
		{vs[0], stats.Better, "better: mariadb against postgresql, medians +25.0%; their 95% intervals, 950.0-1100.0 and 760.0-940.0 tps, do not overlap"},
		{vs[1], stats.NoDifference, "no difference detected: mariadb against postgresql, medians +11.1%; their 95% intervals, 950.0-1100.0 and 860.0-990.0 tps, overlap"},
	} {
		if c.v.Verdict != c.word || c.v.Text() != c.text || c.v.Change != nil {
			t.Errorf("%s: %q (%s), want %q", c.v.Workload, c.v.Text(), c.v.Verdict, c.text)
		}
	}
	if r := vs[2]; r.Change == nil || r.Intervals != nil || r.Verdict != stats.Better {
		t.Errorf("three rounds: %q, want the rounds' change to decide", r.Text())
	}
	s.Verdicts = vs
	var text strings.Builder
	s.WriteText(&text)
	for _, want := range []string{"higher capacity within p99<=10ms", "1000.0 (95% CI 950.0-1100.0)", vs[0].Text()} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the text tables have no %q:\n%s", want, text.String())
		}
	}
}
