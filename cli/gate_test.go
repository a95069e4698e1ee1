package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sysbench-go/sysbench-go/report"
	"github.com/sysbench-go/sysbench-go/stats"
)

// gateRounds runs rounds of one second of testdata/scripts/wait.lua
// for each set (a name and its extra options), the sets alternated round
// by round (A B A B) as a user would, each round with a seed of its own
// and writing a results file into dir; their names, by set. The rounds
// run on a fake clock (runSimulated): their rates and latencies are the
// loads' own, not what the machine's other work leaves them.
func gateRounds(t *testing.T, dir string, rounds int, sets ...gateSet) map[string][]string {
	t.Helper()
	files := map[string][]string{}
	for i := 1; i <= rounds; i++ {
		for k, set := range sets {
			f := filepath.Join(dir, set.name+string(rune('0'+i))+".json")
			args := append([]string{"testdata/scripts/wait.lua", "--time=1", "--threads=1",
				"--rand-seed=" + strconv.Itoa(100*i+k+1), "--results=" + f}, set.extra...)
			if out, code := runSimulated(t, append(args, "run")...); code != 0 {
				t.Fatalf("round %s: exit %d\n%s", f, code, out)
			}
			files[set.name] = append(files[set.name], f)
		}
	}
	return files
}

// gateSet is a set of rounds of one load.
type gateSet struct {
	name  string
	extra []string
}

func readGate(t *testing.T, path string) report.GateReport {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var g report.GateReport
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return g
}

// TestReportGate: report --baseline passes a new set of rounds of the same
// load (exit 0) although its medians moved, and fails a load at half the
// rate with exit status 98, one line per figure, a last FAIL line and the
// verdicts in --gate-json.
func TestReportGate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sets := gateRounds(t, dir, 3, gateSet{"base", nil}, gateSet{"same", nil}, gateSet{"slow", []string{"--wait=400"}})
	base, same, slow := sets["base"], sets["same"], sets["slow"]

	sameJSON := filepath.Join(dir, "same-gate.json")
	out, code := runCLI(t, "report", "--baseline="+strings.Join(base, ","), "--gate-json="+sameJSON, same[0], same[1], same[2])
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 3 || lines[2] != "PASS: no figure shown worse than the 5.0% tolerated" ||
		!strings.HasPrefix(lines[0], "tps ") || !strings.HasPrefix(lines[1], "p95 ") {
		t.Fatalf("same load: exit %d, want 0 with a tps, a p95 and a PASS line\n%s", code, out)
	}
	t.Logf("same load:\n%s", out)
	g := readGate(t, sameJSON)
	gateWordsAgree(t, out, g)
	if g.Verdict != "pass" || len(g.Figures) != 2 || g.Figures[0].Figure != "tps" || len(g.Figures[0].Candidate) != 3 || g.Figures[0].CandidateRounds != 3 {
		t.Fatalf("same load: gate JSON %+v", g)
	}
	if g.Figures[0].BaselineMedian == g.Figures[0].CandidateMedian {
		t.Errorf("same load: the medians did not move (%v), so the test shows nothing", g.Figures[0].BaselineMedian)
	}

	// A directory stands for its files: the baseline given as one.
	baseDir := filepath.Join(dir, "baseline")
	if err := os.Mkdir(baseDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range base {
		if err := os.Rename(f, filepath.Join(baseDir, filepath.Base(f))); err != nil {
			t.Fatal(err)
		}
	}
	slowJSON := filepath.Join(dir, "slow-gate.json")
	out, code = runCLI(t, "report", "--baseline="+baseDir, "--gate=tps,p99", "--gate-threshold=10%", "--gate-json="+slowJSON, slow[0], slow[1], slow[2])
	lines = strings.Split(strings.TrimSpace(out), "\n")
	if code != GateFailed || len(lines) != 3 || !strings.HasPrefix(lines[0], "tps ") || !strings.Contains(lines[0], ": worse: -") || !strings.HasSuffix(lines[0], "; fail: beyond the -10.0% tolerated") ||
		!strings.HasPrefix(lines[1], "p99 ") || !strings.HasPrefix(lines[2], "FAIL: tps") || !strings.HasSuffix(lines[2], " worse than the 10.0% tolerated") {
		t.Fatalf("slowed load: exit %d, want %d with a failing tps line, a p99 line and a FAIL line\n%s", code, GateFailed, out)
	}
	t.Logf("slowed load:\n%s", out)
	g = readGate(t, slowJSON)
	gateWordsAgree(t, out, g)
	if g.Verdict != "fail" || !g.Figures[0].Failed() || g.Figures[0].Change >= -0.1 || g.Figures[0].Bound >= -0.1 || g.Threshold != 0.1 || len(g.Baseline) != 3 {
		t.Errorf("slowed load: gate JSON %+v", g)
	}

	// Issue 48, item 4: the other way round, an improvement. It passes,
	// called better, and its interval's far end is no cap on anything.
	fastJSON := filepath.Join(dir, "fast-gate.json")
	out, code = runCLI(t, "report", "--baseline="+strings.Join(slow, ","), "--gate-json="+fastJSON, same[0], same[1], same[2])
	lines = strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 3 || !strings.Contains(lines[0], ": better: +") || !strings.HasSuffix(lines[0], "; pass") ||
		!strings.Contains(lines[1], ": better: -") || lines[2] != "PASS: no figure shown worse than the 5.0% tolerated" {
		t.Fatalf("faster load: exit %d, want 0 with two better lines and PASS\n%s", code, out)
	}
	t.Logf("faster load:\n%s", out)
	gateWordsAgree(t, out, readGate(t, fastJSON))
}

// gateWordsAgree: each figure's line says the verdict of --gate-json
// with the same words (issue 48, item 4): the change's, then the gate's
// outcome; a failure is always a worsening, and the interval is never
// worded as a limit on an improvement.
func gateWordsAgree(t *testing.T, out string, g report.GateReport) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(g.Figures)+1 {
		t.Fatalf("%d lines for %d figures:\n%s", len(lines), len(g.Figures), out)
	}
	for i, f := range g.Figures {
		_, verdict, ok := strings.Cut(lines[i], "/s: ")
		if !ok {
			_, verdict, ok = strings.Cut(lines[i], " ms: ")
		}
		word, _, _ := strings.Cut(verdict, ": ")
		_, outcome, _ := strings.Cut(verdict, "; ")
		outcome, _, _ = strings.Cut(outcome, ":")
		if !strings.HasPrefix(lines[i], f.Figure+" ") || word != string(f.ChangeVerdict) || outcome != f.Verdict {
			t.Errorf("%q says %q then %q; its JSON %q then %q", lines[i], word, outcome, f.ChangeVerdict, f.Verdict)
		}
		if f.Failed() && f.ChangeVerdict != stats.Worse {
			t.Errorf("%s failed on %q", f.Figure, f.ChangeVerdict)
		}
		if strings.Contains(lines[i], "no better than") || strings.Contains(lines[i], "no lower than") {
			t.Errorf("an interval worded as a limit: %q", lines[i])
		}
	}
}

// TestReportGateRefuses: bad gate input is one line and exit 1, and the
// verdicts never overwrite an input.
func TestReportGateRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := gateRounds(t, dir, 2, gateSet{"r", nil})["r"]
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--baseline=" + files[0] + "," + files[1], "--gate-json=" + files[0], files[0], files[1]}, "--gate-json: "},
		{[]string{"--baseline=" + files[0], "--gate=tps,p200", files[1]}, "FATAL: --gate: 'p200' is no figure"},
		{[]string{"--baseline=" + files[0], "--gate-threshold=lots", files[1]}, "FATAL: --gate-threshold: 'lots' is no percentage"},
		{[]string{"--baseline=" + files[0], files[1]}, "too few rounds"},
		{[]string{"--gate=tps", files[1]}, "FATAL: report: --gate needs --baseline"},
		{[]string{"--baseline=" + files[0], "--results=" + filepath.Join(dir, "m.json"), files[1]}, "FATAL: report: --results cannot be used with --baseline"},
	} {
		out, code := runCLI(t, append([]string{"report"}, c.args...)...)
		if code != 1 || !strings.Contains(out, c.want) || strings.Count(strings.TrimSpace(out), "\n") != 0 {
			t.Errorf("report %v: exit %d, want 1 and one line with %q\n%s", c.args, code, c.want, out)
		}
	}
	if _, err := report.ReadFile(files[0]); err != nil {
		t.Errorf("an input was overwritten: %v", err)
	}
}
