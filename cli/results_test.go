package cli

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sysbench-go/sysbench-go/internal/testenv"
	"github.com/sysbench-go/sysbench-go/report"
)

// readResults reads a results file a run wrote, validating it against
// docs/results.schema.json.
func readResults(t *testing.T, path string) *report.Results {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no results file: %v", err)
	}
	if err := testenv.ValidateResults(b); err != nil {
		t.Fatalf("%s does not validate against the schema: %v\n%s", path, err, b)
	}
	r, err := report.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// finalReport is the output from the "SQL statistics:" block on (or from
// "General statistics:" for a test without SQL).
func finalReport(t *testing.T, out string) string {
	t.Helper()
	for _, head := range []string{"SQL statistics:", "\nGeneral statistics:"} {
		if i := strings.Index(out, head); i >= 0 {
			return out[i:]
		}
	}
	t.Fatalf("no final report in:\n%s", out)
	return ""
}

// preparedOLTP prepares oltp_read_write's table (100 rows) on db, in a
// database of the test's own (its SQLite file in dir), and returns the
// arguments that run it with 2 threads.
func preparedOLTP(t *testing.T, db, dir string) []string {
	t.Helper()
	if db == "sqlite" {
		return preparedOLTPWith(t, []string{"--db-driver=sqlite", "--sqlite-db=" + filepath.Join(dir, "sb.db")})
	}
	return preparedOLTPWith(t, testenv.OwnDatabase(t, db).Args())
}

// preparedOLTPWith is preparedOLTP on the database conn points at.
func preparedOLTPWith(t *testing.T, conn []string) []string {
	t.Helper()
	common := append([]string{"oltp_read_write", "--tables=1", "--table-size=100", "--threads=2"}, conn...)
	if out, code := runCLI(t, append(common, "prepare")...); code != 0 {
		t.Fatalf("prepare: exit %d\n%s", code, out)
	}
	return common
}

// A real run on each database writes a results file that validates, with
// the server's version, secrets redacted, the intervals of the CSV; and
// 'report' prints from it the final report the run printed.
func TestResultsOfARun(t *testing.T) {
	t.Parallel()
	for _, db := range []string{"mysql", "pgsql", "sqlite"} {
		t.Run(db, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			common := preparedOLTP(t, db, dir)
			res, csvPath := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.csv")
			// Paced: what it checks is the file, not how many events
			// fit in a second (unpaced, the three runs took the suite 8
			// CPU-seconds of client and server).
			out, code := runCLI(t, append(common, "--time=3", "--rate=100", "--report-interval=1", "--percentile=50,95,99.9",
				"--results="+res, "--intervals-csv="+csvPath, "run")...)
			if code != 0 {
				t.Fatalf("run: exit %d\n%s", code, out)
			}
			r := readResults(t, res)
			if r.Exit.Status != 0 || r.Exit.Reason != "completed" || r.Total == nil {
				t.Fatalf("exit %+v, total %v", r.Exit, r.Total)
			}
			if r.Driver == nil || r.Driver.Name != db || r.Driver.ServerVersion == "" {
				t.Errorf("driver %+v, want %s with its server version", r.Driver, db)
			}
			if r.Workload.Test != "oltp_read_write" || r.Workload.Options["table_size"] != "100" || r.Settings.Threads != 2 {
				t.Errorf("workload %+v settings %+v", r.Workload, r.Settings)
			}
			if db != "sqlite" {
				key := db + "-password"
				if r.Options[key] != "<redacted>" {
					t.Errorf("%s written as %q", key, r.Options[key])
				}
				for _, a := range r.CommandLine {
					if strings.HasPrefix(a, "--"+key+"=") && a != "--"+key+"=<redacted>" {
						t.Errorf("command line holds %s", a)
					}
				}
			}
			// At least one: a reporter that wakes a second late skips
			// the report it missed (engine.reportLoop; a run beside
			// a suite loaded to 16 made one of three).
			if n := len(r.Intervals); n < 1 || n > 3 {
				t.Errorf("%d intervals in a 3 s run reporting every second", n)
			}
			var sum uint64
			for _, iv := range r.Intervals {
				sum += iv.Counters.Events
			}
			if sum > r.Total.Counters.Events {
				t.Errorf("the intervals hold %d events, the run %d", sum, r.Total.Counters.Events)
			}
			f, err := os.Open(csvPath)
			if err != nil {
				t.Fatal(err)
			}
			rows, err := csv.NewReader(f).ReadAll()
			f.Close()
			if err != nil || len(rows) != len(r.Intervals)+1 || rows[0][0] != "time_s" || !strings.Contains(strings.Join(rows[0], ","), "latency_p99.9_ms") {
				t.Errorf("CSV %v (%v), want a header and %d rows", rows, err, len(r.Intervals))
			}

			again, code := runCLI(t, "report", res)
			if code != 0 {
				t.Fatalf("report: exit %d\n%s", code, again)
			}
			// The run's output ends with its standard error, whose
			// trailing blank lines are not the report's (a starved run
			// whose outage ended in its last second failed on them, the
			// two texts otherwise equal).
			if got, want := strings.TrimRight(finalReport(t, again), "\n"), strings.TrimRight(finalReport(t, out), "\n"); got != want {
				t.Errorf("report of the results file:\n%s\nthe run printed:\n%s", got, want)
			}
		})
	}
}

// Two runs (different seeds), one after the other, merged (issue 28,
// item 2): counters summed, the threads of all, and, as rounds, their
// rates over the sum of their measured windows, not over the wall-clock
// time from the first start to the last end; the report says so.
func TestResultsMerge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b, m := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json"), filepath.Join(dir, "m.json")
	for i, path := range []string{a, b} {
		out, code := runCLI(t, "oltp_read_write", "--mysql-dry-run", "--events=300", "--time=0", "--threads=2",
			"--rand-seed="+string(rune('1'+i)), "--results="+path, "run")
		if code != 0 {
			t.Fatalf("run: exit %d\n%s", code, out)
		}
	}
	out, code := runCLI(t, "report", "--percentile=50,99", "--results="+m, a, b)
	if code != 0 {
		t.Fatalf("report: exit %d\n%s", code, out)
	}
	ra, rb, rm := readResults(t, a), readResults(t, b), readResults(t, m)
	if rm.Total.Counters.Events != 600 || rm.Total.Counters.Other != ra.Total.Counters.Other+rb.Total.Counters.Other ||
		rm.Settings.Threads != 2 || len(rm.Total.Threads) != 4 || len(rm.Merged) != 2 || len(rm.Parts) != 2 {
		t.Errorf("merged counters %+v, threads %d", rm.Total.Counters, rm.Settings.Threads)
	}
	if rm.Total.Latency.MinNS != min(ra.Total.Latency.MinNS, rb.Total.Latency.MinNS) ||
		rm.Total.Latency.MaxNS != max(ra.Total.Latency.MaxNS, rb.Total.Latency.MaxNS) ||
		rm.Total.Latency.SumNS != ra.Total.Latency.SumNS+rb.Total.Latency.SumNS {
		t.Errorf("merged latency %+v", rm.Total.Latency)
	}
	if !rm.Total.Start.Equal(ra.Total.Start) || !rm.Total.End.Equal(rb.Total.End) {
		t.Errorf("merged window %v..%v, want %v..%v", rm.Total.Start, rm.Total.End, ra.Total.Start, rb.Total.End)
	}
	sum := ra.Total.Duration + rb.Total.Duration
	span := rb.Total.End.Sub(ra.Total.Start).Seconds()
	if c := rm.Combined; c == nil || c.As != report.AsRounds || math.Abs(rm.Total.Duration-sum) > 1e-6 || sum >= span {
		t.Errorf("combined %+v over %.6f s; want rounds over %.6f s (the span is %.6f s)", rm.Combined, rm.Total.Duration, sum, span)
	}
	if want := 600 / sum; math.Abs(rm.Total.TPS-want) > 1e-6*want {
		t.Errorf("merged tps %.2f, want %.2f (600 events over the sum of the windows)", rm.Total.TPS, want)
	}
	if _, ok := rm.Total.Latency.Percentiles["99"]; !ok {
		t.Errorf("merged percentiles %v, want those of --percentile", rm.Total.Latency.Percentiles)
	}
	for _, want := range []string{"Merged 2 results", "Combined as 2 rounds, one after the other (their measured windows do not overlap): per-second figures over the sum of their windows",
		fmt.Sprintf("total time:                          %.4fs", sum),
		"total number of events:              600", "50th percentile:", "99th percentile:", "events (avg/stddev):           150.0000/"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	// Issue 28, item 3: a run counts once, given twice or inside a merge.
	for _, args := range [][]string{{a, a}, {m, b}} {
		out, code := runCLI(t, append([]string{"report"}, args...)...)
		if code != 1 || !strings.Contains(out, "FATAL: cannot merge '"+args[0]+"' and '"+args[1]+"': both hold the run measured on ") ||
			strings.Count(out, "\n") != 1 {
			t.Errorf("report %q: exit %d\n%s", args, code, out)
		}
	}
}

// Issue 37 item 4: report merges an interrupted part, and parts run with
// other threads or options, with a warning on standard error for each (one
// line), the merge made all the same; complete runs of one load merge
// without a word.
func TestMergeWarnsOfParts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	run := func(name string, extra ...string) string {
		path := filepath.Join(dir, name)
		args := append([]string{"oltp_read_write", "--mysql-dry-run", "--events=200", "--time=0", "--threads=2", "--results=" + path}, extra...)
		if out, code := runCLI(t, append(args, "run")...); code != 0 {
			t.Fatalf("run: exit %d\n%s", code, out)
		}
		return path
	}
	a, b := run("a.json"), run("b.json")
	threads := run("threads.json", "--threads=4", "--db-ps-mode=disable")
	cut := filepath.Join(dir, "cut.json")
	ctx, interrupt := interruptible()
	defer interrupt()
	r := startCLIContext(ctx, "oltp_read_write", "--mysql-dry-run", "--rate=200", "--time=60", "--threads=2", "--report-interval=1", "--results="+cut, "run")
	r.started(t)
	if !r.waitFor(20*time.Second, func() bool { return strings.Contains(r.out.String(), "[ 1s ]") }) {
		t.Fatalf("no intermediate report:\n%s", r.out.String())
	}
	interrupt()
	r.wait(t, 30*time.Second)

	stdout, stderr, code := runStreams(t, "report", a, b)
	if code != 0 || stderr != "" || !strings.Contains(stdout, "Merged 2 results") {
		t.Errorf("report of two complete runs: exit %d\n%s%s", code, stdout, stderr)
	}
	stdout, stderr, code = runStreams(t, "report", a, b, cut, threads)
	want := []string{
		"WARNING: '" + cut + "' is a run that did not complete (interrupted, ",
		"WARNING: '" + a + "' and '" + cut + "' ran different loads (--time=0 against --time=60, --events=200 against --events=0, --rate=0 against --rate=200): merged all the same\n",
		"WARNING: '" + a + "' and '" + threads + "' ran different loads (--threads=2 against --threads=4, --db-ps-mode=auto against --db-ps-mode=disable): merged all the same\n",
	}
	if code != 0 || !strings.Contains(stdout, "Merged 4 results") || strings.Count(stderr, "\n") != len(want) {
		t.Errorf("report: exit %d, want 0 and %d warnings\n%s%s", code, len(want), stdout, stderr)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("standard error lacks %q:\n%s", w, stderr)
		}
	}
	if !strings.Contains(stderr, "s measured of --time=60): merged with the others all the same\n") {
		t.Errorf("the interrupted part's warning does not say its window:\n%s", stderr)
	}
}

// Issue 37 item 11: the warm-up's interval lines are marked ("[ warmup
// 1s ]"), so that sysbench 1.0.20's line pattern finds the measured ones
// only, and the results file and the CSV mark the same intervals; with
// several percentiles, each is on the line, the first in the reference's
// place.
func TestIntervalLinesWarmupAndPercentiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	res, csvPath := filepath.Join(dir, "w.json"), filepath.Join(dir, "w.csv")
	out, code := runCLI(t, "oltp_read_only", "--mysql-dry-run", "--rate=200", "--warmup-time=2", "--time=2", "--report-interval=1",
		"--percentile=50,99.9", "--results="+res, "--intervals-csv="+csvPath, "run")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	r := readResults(t, res)
	var warm, measured []report.Interval
	for _, iv := range r.Intervals {
		if iv.Warmup {
			warm = append(warm, iv)
		} else {
			measured = append(measured, iv)
		}
	}
	if len(warm) == 0 || len(measured) == 0 {
		t.Fatalf("%d warm-up and %d measured intervals, want some of each", len(warm), len(measured))
	}
	// sysbench 1.0.20's line, as its parsers read it.
	ref := regexp.MustCompile(`^\[ (\d+)s \] thds: \d+ tps: [\d.]+ qps: [\d.]+ \(r/w/o: [\d.]+/[\d.]+/[\d.]+\) lat \(ms,50%\): ([\d.]+) err/s: [\d.]+ reconn/s: [\d.]+`)
	var refLines, warmLines []string
	for _, l := range strings.Split(out, "\n") {
		switch {
		case ref.MatchString(l):
			refLines = append(refLines, l)
		case strings.HasPrefix(l, "[ warmup ") && strings.Contains(l, "thds:"):
			warmLines = append(warmLines, l)
		}
	}
	if len(refLines) != len(measured) || len(warmLines) != len(warm) {
		t.Fatalf("%d lines of the reference's shape, %d marked warm-up lines; want %d and %d:\n%s",
			len(refLines), len(warmLines), len(measured), len(warm), out)
	}
	// The file keeps the percentiles to more digits than the line's two
	// decimals: a value the line rounds up (0.015) may print as 0.01 from
	// the file, so each printed figure is held to within its rounding.
	last := regexp.MustCompile(` reconn/s: [\d.]+ lat \(ms,99\.9%\): ([\d.]+)$`)
	near := func(printed string, v float64) bool {
		f, err := strconv.ParseFloat(printed, 64)
		return err == nil && math.Abs(f-v) <= 0.005+1e-9
	}
	for i, l := range refLines {
		iv := measured[i]
		m, m999 := ref.FindStringSubmatch(l), last.FindStringSubmatch(l)
		if m[1] != fmt.Sprintf("%.0f", iv.Time) || !near(m[2], iv.Latency["50"]) || m999 == nil || !near(m999[1], iv.Latency["99.9"]) {
			t.Errorf("line %q, want time %.0f, lat (ms,50%%) %.3f and the 99.9th percentile %.3f at its end", l, iv.Time, iv.Latency["50"], iv.Latency["99.9"])
		}
	}
	for i, l := range warmLines {
		if want := fmt.Sprintf("[ warmup %.0fs ] thds: ", warm[i].Time); !strings.HasPrefix(l, want) {
			t.Errorf("warm-up line %q, want it to begin %q", l, want)
		}
	}
	f, err := os.Open(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) != len(r.Intervals)+1 || rows[0][len(rows[0])-1] != "warmup" {
		t.Fatalf("the CSV: %v, %q", err, rows)
	}
	for i, iv := range r.Intervals {
		if got, want := rows[i+1][len(rows[0])-1], map[bool]string{true: "1", false: "0"}[iv.Warmup]; got != want {
			t.Errorf("CSV row %d: warmup %s, want %s", i+1, got, want)
		}
	}
}

// However a run ends, it writes its results file: interrupted, failed in
// an event, failed to start its threads, forced to shut down.
func TestResultsHoweverTheRunEnds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	t.Run("interrupted", func(t *testing.T) {
		path := filepath.Join(dir, "int.json")
		ctx, interrupt := interruptible()
		defer interrupt()
		r := startCLIContext(ctx, "oltp_read_write", "--mysql-dry-run", "--rate=200", "--time=60", "--report-interval=1", "--results="+path, "run")
		r.started(t)
		if !r.waitFor(20*time.Second, func() bool { return strings.Contains(r.out.String(), "[ 1s ]") }) {
			t.Fatalf("no intermediate report:\n%s", r.out.String())
		}
		interrupt()
		out, code := r.wait(t, 30*time.Second)
		res := readResults(t, path)
		if code != 130 || res.Exit.Status != 130 || res.Exit.Reason != "interrupted" || res.Total == nil ||
			res.Total.Counters.Events == 0 || len(res.Intervals) == 0 {
			t.Errorf("exit %d, results %+v, total %+v\n%s", code, res.Exit, res.Total, out)
		}
	})
	for _, c := range []struct {
		name, script string
		args         []string
		code         int
		reason       string
		fatal        string
		total        bool
	}{
		{"event fails", "bad_runtime.lua", nil, 1, "failed", "`thread_run' function failed", true},
		{"thread_init fails", "bad_init.lua", nil, 1, "failed", "Thread initialization failed!", false},
		{"forced shutdown", "hang.lua", []string{"--time=1", "--forced-shutdown=1"}, 2, "forced_shutdown", "The --max-time limit has expired, forcing shutdown...", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.script+".json")
			args := append([]string{filepath.Join("testdata", "scripts", c.script), "--threads=2", "--results=" + path}, c.args...)
			out, code := runCLI(t, append(args, "run")...)
			res := readResults(t, path)
			if code != c.code || res.Exit.Status != c.code || res.Exit.Reason != c.reason || (res.Total != nil) != c.total {
				t.Errorf("exit %d, results %+v, total %v\n%s", code, res.Exit, res.Total != nil, out)
			}
			if !strings.Contains(strings.Join(res.Exit.Fatal, "\n"), c.fatal) {
				t.Errorf("FATAL messages %q lack %q", res.Exit.Fatal, c.fatal)
			}
			// The run printed each FATAL line once.
			if n := strings.Count(out, "FATAL: "+c.fatal); n != 1 {
				t.Errorf("%q printed %d times:\n%s", c.fatal, n, out)
			}
		})
	}
}

// Bad results paths fail before the run; 'report' refuses what is not a
// results file it can read or merge: one line each, exit 1.
func TestResultsBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	if out, code := runCLI(t, "cpu", "--events=50", "--time=0", "--results="+good, "run"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	other := filepath.Join(dir, "other.json")
	if out, code := runCLI(t, "cpu", "--cpu-max-prime=2000", "--events=50", "--time=0", "--results="+other, "run"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	b, _ := os.ReadFile(good)
	truncated := filepath.Join(dir, "truncated.json")
	os.WriteFile(truncated, b[:len(b)/3], 0o644)
	notResult := filepath.Join(dir, "not.json")
	os.WriteFile(notResult, []byte(`{"tps": 1}`), 0o644)
	old := filepath.Join(dir, "old.json")
	os.WriteFile(old, []byte(strings.Replace(string(b), `"schema_version": 1`, `"schema_version": 0`, 1)), 0o644)
	readOnly := filepath.Join(dir, "ro")
	os.Mkdir(readOnly, 0o555)
	// Issue 28, item 6: edited files are refused, naming the file.
	edited := func(name string, edit func(total map[string]any)) string {
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		edit(doc["total"].(map[string]any))
		out, _ := json.Marshal(doc)
		path := filepath.Join(dir, name)
		os.WriteFile(path, out, 0o644)
		return path
	}
	noCounters := edited("nocounters.json", func(w map[string]any) { delete(w, "counters") })
	badHist := edited("badhist.json", func(w map[string]any) {
		w["latency"].(map[string]any)["histogram"].(map[string]any)["hdr_v2_base64"] = "bm90IGEgaGlzdG9ncmFt"
	})

	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"missing directory", []string{"cpu", "--results=" + filepath.Join(dir, "no", "r.json"), "run"}, "FATAL: --results: cannot write '" + filepath.Join(dir, "no", "r.json") + "': no such file or directory"},
		{"csv in a missing directory", []string{"cpu", "--intervals-csv=" + filepath.Join(dir, "no", "r.csv"), "run"}, "FATAL: --intervals-csv: cannot write"},
		{"not a results file", []string{"report", notResult}, "FATAL: '" + notResult + "': not a results file (no schema_version and tool)"},
		{"truncated", []string{"report", truncated}, "FATAL: '" + truncated + "': not a whole results file (truncated?)"},
		{"older schema", []string{"report", old}, "FATAL: '" + old + "': results schema version 0 is not read by this program (it reads version 1)"},
		{"missing file", []string{"report", filepath.Join(dir, "none.json")}, "FATAL: cannot read '" + filepath.Join(dir, "none.json") + "': no such file or directory"},
		{"different workloads", []string{"report", good, other}, "FATAL: cannot merge '" + good + "' and '" + other + "': --cpu-max-prime=10000 against --cpu-max-prime=2000 (--force merges them anyway)"},
		{"counters deleted", []string{"report", noCounters}, "FATAL: '" + noCounters + "': not a valid results file: at /total: missing property 'counters'"},
		{"bad histogram", []string{"report", badHist}, "FATAL: '" + badHist + "': inconsistent total: the latency histogram does not decode"},
		{"bad histogram in a merge", []string{"report", good, badHist}, "FATAL: '" + badHist + "': inconsistent total: the latency histogram does not decode"},
		{"no file", []string{"report"}, "FATAL: report: no results file given"},
		{"bad option", []string{"report", "--nope", good}, "invalid option: --nope"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, code := runCLI(t, c.args...)
			if code != 1 || !strings.Contains(out, c.want) || strings.Count(strings.TrimSpace(out), "\n") > 1 ||
				strings.Contains(out, "Threads started!") || strings.Contains(out, "goroutine") {
				t.Errorf("exit %d, output:\n%s\nwant one line with %q, exit 1", code, out, c.want)
			}
		})
	}
	if os.Geteuid() != 0 { // root writes anywhere
		out, code := runCLI(t, "cpu", "--results="+filepath.Join(readOnly, "r.json"), "run")
		if code != 1 || !strings.Contains(out, "permission denied") {
			t.Errorf("read-only directory: exit %d\n%s", code, out)
		}
	}
	if out, code := runCLI(t, "report", "--force", good, other); code != 0 || !strings.Contains(out, "total number of events:              100") {
		t.Errorf("--force: exit %d\n%s", code, out)
	}
}

// Secrets never reach the results file: password options, passwords in
// URLs and in key/value connection strings.
func TestRedact(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, val, want string }{
		{"mysql-password", "s3cret", "<redacted>"},
		{"pgsql-password", "", ""},
		{"api_token", "abc", "<redacted>"},
		{"pgsql-host", "db1,db2", "db1,db2"},
		{"dsn", "postgres://bob:s3cret@db:5432/sb?sslmode=disable", "postgres://bob:<redacted>@db:5432/sb?sslmode=disable"},
		{"dsn", "postgres://bob@db/sb", "postgres://bob@db/sb"},
		{"conninfo", "host=db password=s3cret user=bob", "host=db password=<redacted> user=bob"},
		{"conninfo", "Server=db;Pwd='a b';Uid=bob", "Server=db;Pwd=<redacted>;Uid=bob"},
	} {
		if got := report.RedactValue(c.name, c.val); got != c.want {
			t.Errorf("report.RedactValue(%s, %q) = %q, want %q", c.name, c.val, got, c.want)
		}
	}
	got := report.RedactArgs([]string{"--mysql-password=s3cret", "--dsn=mysql://u:p@h/db", "oltp_read_write", "run"})
	want := []string{"--mysql-password=<redacted>", "--dsn=mysql://u:<redacted>@h/db", "oltp_read_write", "run"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("redactArgs: %q, want %q", got, want)
	}
}

// --statement-stats on oltp_read_write lists each of its statements with
// its SQL, and their executions add up to the queries of the report, on
// every database; the results file keeps them and 'report' prints them.
func TestStatementStats(t *testing.T) {
	t.Parallel()
	for _, db := range []string{"mysql", "pgsql", "sqlite"} {
		t.Run(db, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			common := preparedOLTP(t, db, dir)
			path := filepath.Join(dir, "r.json")
			out, code := runCLI(t, append(common, "--events=200", "--time=0", "--statement-stats", "--percentile=50,99", "--results="+path, "run")...)
			if code != 0 {
				t.Fatalf("run: exit %d\n%s", code, out)
			}
			res := readResults(t, path)
			var count, errs uint64
			seen := map[string]bool{}
			for _, s := range res.Statements {
				count += s.Count
				errs += s.Errors
				seen[s.SQL] = true
				if s.Timed == 0 || s.AvgMS <= 0 || s.Percentiles["99"] < s.Percentiles["50"] {
					t.Errorf("statement %+v", s)
				}
			}
			c := res.Total.Counters
			if count-errs != c.Reads+c.Writes+c.Other || errs != c.Errors {
				t.Errorf("statements: %d executions, %d failed; the report: %d queries, %d errors", count, errs, c.Reads+c.Writes+c.Other, c.Errors)
			}
			for _, want := range []string{
				"SELECT c FROM sbtest1 WHERE id=?",
				"SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?",
				"SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN ? AND ?",
				"SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c",
				"SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c",
				"UPDATE sbtest1 SET k=k+1 WHERE id=?", // prepared: as it was prepared
				"UPDATE sbtest1 SET c=? WHERE id=?",
				"DELETE FROM sbtest1 WHERE id=?",
				"INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)",
				map[bool]string{true: "BEGIN IMMEDIATE", false: "BEGIN"}[db == "sqlite"], "COMMIT",
			} {
				if !seen[want] {
					t.Errorf("no statement %q in %v", want, seen)
				}
				if !strings.Contains(out, "  "+want+"\n") {
					t.Errorf("the table lacks %q:\n%s", want, out)
				}
			}
			again, code := runCLI(t, "report", path)
			if code != 0 || !strings.Contains(again, "Statements (latency in ms, the most total time first):") ||
				!strings.Contains(again, "  SELECT c FROM sbtest1 WHERE id=?\n") {
				t.Errorf("report: exit %d\n%s", code, again)
			}
		})
	}
}

// Issue 28, item 5: a prepared statement is listed with the text it was
// prepared with, its literals kept; a query with its literals made '?'.
func TestStatementStatsPreparedText(t *testing.T) {
	t.Parallel()
	script := filepath.Join("testdata", "scripts", "prepared_literals.lua")
	for _, db := range []string{"mysql", "pgsql", "sqlite"} {
		t.Run(db, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			conn := []string{"--db-driver=sqlite", "--sqlite-db=" + filepath.Join(dir, "sb.db")}
			if db != "sqlite" {
				conn = testenv.OwnDatabase(t, db).Args()
			}
			if out, code := runCLI(t, append([]string{script, "prepare"}, conn...)...); code != 0 {
				t.Fatalf("prepare: exit %d\n%s", code, out)
			}
			path := filepath.Join(dir, "r.json")
			out, code := runCLI(t, append([]string{script, "--events=20", "--time=0", "--statement-stats", "--results=" + path, "run"}, conn...)...)
			if code != 0 {
				t.Fatalf("run: exit %d\n%s", code, out)
			}
			got := map[string]uint64{}
			for _, s := range readResults(t, path).Statements {
				got[s.SQL] = s.Count
			}
			want := map[string]uint64{
				"SELECT v + 100 FROM sbtest_literals WHERE id = ? AND 'abc' = 'abc'": 20,
				"SELECT v + ? FROM sbtest_literals WHERE id = ? AND ? = ?":           20,
			}
			for sql, n := range want {
				if got[sql] != n {
					t.Errorf("statement %q: %d executions, want %d (statements %v)", sql, got[sql], n, got)
				}
				if !strings.Contains(out, "  "+sql+"\n") {
					t.Errorf("the table lacks %q:\n%s", sql, out)
				}
			}
		})
	}
}
