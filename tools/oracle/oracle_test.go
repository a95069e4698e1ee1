package main

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

var (
	full   = flag.Bool("oracle.full", false, "run every generated case, not the quick subset (make oracle runs them all)")
	update = flag.Bool("update", false, "rewrite docs/differences.md from docs/differences.toml")
)

// reference is sysbench 1.0.20 as the Debian package installs it; without
// it the comparison is Unavailable (skipped, or failed under CI=true,
// where .ci/run installs the package).
func reference(t *testing.T) string {
	t.Helper()
	const path = "/usr/bin/sysbench"
	out, err := exec.Command(path, "--version").Output()
	if err != nil {
		testenv.Unavailable(t, "the reference sysbench 1.0.20 is not installed at "+path+
			" (apt-get install sysbench; .ci/run installs it): the differential harness is skipped")
	}
	if v := strings.TrimSpace(string(out)); v != "sysbench 1.0.20" {
		testenv.Unavailable(t, path+" is "+v+", not sysbench 1.0.20: the differential harness is skipped")
	}
	return path
}

// TestOracle runs our binary and the reference side by side on the
// generated cases, the quick subset in make test (-oracle.full for all of
// them, as make oracle does), and fails on every difference that
// docs/differences.toml does not list and on every listed one whose case
// no longer shows it.
func TestOracle(t *testing.T) {
	t.Parallel()
	cfg := config{root: "../..", ref: reference(t), ours: testenv.Binary(t), quick: !*full,
		sample: defaultSample, parallel: 4, requireDB: os.Getenv("CI") == "true"}
	ctx := context.Background()
	cases, l, err := prepareCases(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := runCases(ctx, cfg, cases, l)
	if err != nil {
		t.Fatal(err)
	}
	if rep.failed {
		t.Errorf("sysbench-go differs from sysbench 1.0.20 where docs/differences.toml says nothing "+
			"(fix it, or list it with a reason a user would accept):\n%s", rep.text)
		return
	}
	t.Log(strings.TrimSpace(rep.text))
}

// TestDifferencesDocCurrent: docs/differences.md shows the list as it is
// (go test ./tools/oracle -run TestDifferencesDocCurrent -update, or make
// differences, rewrites it).
func TestDifferencesDocCurrent(t *testing.T) {
	t.Parallel()
	l, err := readList(listPath("../.."))
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(docsPath("../.."))
	if err != nil {
		t.Fatal(err)
	}
	want, err := render(l, string(page))
	if err != nil {
		t.Fatal(err)
	}
	if want == string(page) {
		return
	}
	if *update {
		if err := os.WriteFile(docsPath("../.."), []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/differences.md is not docs/differences.toml rendered: run make differences\n%s",
		testenv.LineDiff(want, string(page)))
}

// TestNormalizeMasksOnlyMeasurements: figures a run measured become N
// (with the padding their width sets), the histogram's bars one line,
// repeated interval lines one; words, error texts and counts that are
// not measured stay as they are.
func TestNormalizeMasksOnlyMeasurements(t *testing.T) {
	t.Parallel()
	in := "FATAL: Invalid value for --threads: 0.\n" +
		"    transactions:                        12     (5.99 per sec.)\n" +
		"         95th percentile:                        1.23\n" +
		"Total operations: 16 (  5000.00 per second)\n" +
		"[ 1s ] thds: 2 tps: 10.00 qps: 20.00 (r/w/o: 1.00/2.00/3.00) lat (ms,95%): 1.00 err/s: 0.00 reconn/s: 0.00\n" +
		"[ 2s ] thds: 2 tps: 11.00 qps: 21.00 (r/w/o: 1.00/2.00/3.00) lat (ms,95%): 1.10 err/s: 0.00 reconn/s: 0.00\n" +
		"[ 3s ] thds: 0 tps: 11.00 qps: 21.00 (r/w/o: 1.00/2.00/3.00) lat (ms,95%): 1.10 err/s: 0.00 reconn/s: 0.00\n" +
		"       0.010 |**********                               12\n" +
		"       0.011 |***                                      3\n" +
		"Number of threads: 2\n"
	want := []string{
		"FATAL: Invalid value for --threads: 0.",
		"    transactions: N ( N per sec.)",
		"         95th percentile: N",
		"Total operations: N ( N per second)",
		"[ Ns ] thds: N tps: N qps: N (r/w/o: N/ N/ N) lat (ms, N%): N err/s: N reconn/s: N",
		// A run that ends with no thread running is not masked away.
		"[ Ns ] thds: 0 tps: N qps: N (r/w/o: N/ N/ N) lat (ms, N%): N err/s: N reconn/s: N",
		"HISTOGRAM",
		"Number of threads: 2",
	}
	if got := normalize(in); !slices.Equal(got, want) {
		t.Errorf("normalize:\n got  %q\n want %q", got, want)
	}
}

// TestListAccountsOnlyWhatItSays: an entry accounts for the lines its
// rules match in the cases it names, a pair only when the lines agree
// outside what differs, and nothing else.
func TestListAccountsOnlyWhatItSays(t *testing.T) {
	t.Parallel()
	d := &Difference{ID: "x", cases: []*regexp.Regexp{regexp.MustCompile(`^cmd/.*$`)},
		Where: []*Rule{{Stream: "stdout", Pair: true,
			ref:  regexp.MustCompile(`^(?:(.*?)/usr/share/sysbench/(\w+\.lua):\d+: (.*))$`),
			ours: regexp.MustCompile(`^(?:(.*?)(\w+\.lua):\d+: (.*))$`)}}}
	ref := []string{"FATAL: /usr/share/sysbench/oltp_common.lua:28: Command is required.", "FATAL: /usr/share/sysbench/oltp_common.lua:30: other"}
	ours := []string{"FATAL: oltp_common.lua:19: Command is required.", "FATAL: oltp_common.lua:20: different"}
	if !d.account("cmd/x", "stdout", &ref, &ours) {
		t.Fatal("the entry accounted for nothing")
	}
	if len(ref) != 1 || len(ours) != 1 || !strings.HasSuffix(ref[0], "other") {
		t.Errorf("left %q and %q: want only the lines whose messages differ", ref, ours)
	}
	r2, o2 := []string{"FATAL: /usr/share/sysbench/a.lua:1: m"}, []string{"FATAL: a.lua:2: m"}
	if d.account("opt/x", "stdout", &r2, &o2) || d.account("cmd/x", "stderr", &r2, &o2) {
		t.Error("the entry accounted for a case or a stream it does not name")
	}
}

// TestDiffLines: the lines only one side has, around what both have.
func TestDiffLines(t *testing.T) {
	t.Parallel()
	a, b := diffLines([]string{"x", "a", "b", "c"}, []string{"a", "y", "b", "c", "z"})
	if !slices.Equal(a, []string{"x"}) || !slices.Equal(b, []string{"y", "z"}) {
		t.Errorf("diffLines = %q, %q", a, b)
	}
}

// TestParseHelp: options, kinds and defaults as --help lists them,
// headed by their section.
func TestParseHelp(t *testing.T) {
	t.Parallel()
	secs := parseHelp("General options:\n  --threads=N   number of threads to use [1]\n  --debug[=on|off] print more [off]\n\n" +
		"Log options:\n  --verbosity=N verbosity level {5 - debug} [3]\n\n" +
		"  --percentile=N       percentile (1-100) [95]\n  --rand-pareto-h=N  parameter h [0.2]\n" +
		"  --config-file=FILENAME          File containing command line options\n")
	var got []string
	for _, s := range secs {
		for _, o := range s.opts {
			got = append(got, s.title+"|"+o.name+"|"+o.kind+"|"+o.def)
		}
	}
	want := []string{"General options|threads|int|1", "General options|debug|bool|off", "Log options|verbosity|int|3",
		"|percentile|int|95", "|rand-pareto-h|double|0.2", "|config-file|file|"}
	if !slices.Equal(got, want) {
		t.Errorf("parseHelp:\n got  %q\n want %q", got, want)
	}
}
