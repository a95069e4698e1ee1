package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/sysbench-go/sysbench-go/builtin"
	"github.com/sysbench-go/sysbench-go/internal/testenv"
	"github.com/sysbench-go/sysbench-go/logging"
)

// runCLI runs the whole program in-process and returns stdout+stderr and
// the exit code, as the recorded reference outputs show them.
func runCLI(t *testing.T, args ...string) (string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return out.String() + errb.String(), code
}

// sideBySide runs f for each name as a subtest, all at once, in the
// calling test's slot: subtests that called t.Parallel would each wait
// for a free slot behind every parallel test still waiting
// (docs/testing.md).
func sideBySide(t *testing.T, names []string, f func(t *testing.T, name string)) {
	t.Helper()
	var wg sync.WaitGroup
	for _, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(name, func(t *testing.T) { f(t, name) })
		}()
	}
	wg.Wait()
}

// runOwnProcess runs the program as a process of its own and returns its
// output and exit status, for a run that must not depend on the runs of
// the tests beside it (seeded runs whose rows a test compares): in the
// test binary they would share its memory policy and goroutine scheduler.
func runOwnProcess(t *testing.T, args ...string) (string, int) {
	t.Helper()
	out, err := exec.Command(testenv.Binary(t), args...).CombinedOutput()
	return string(out), processExit(t, err)
}

// processExit is the exit status of a process that ran to its end with
// err from its Run, Wait or Output; a process that could not be run or
// waited for fails the test.
func processExit(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0
}

// runSimulated runs the program in the test binary on a fake clock
// (testing/synctest), for a run whose rates or intervals the test checks
// and whose events are paced by sleeps (slow_start.lua): the clock moves
// on only when every goroutine of the run waits, so the run's seconds
// hold exactly what its script paces into them whatever else the machine
// does, and a minute's run takes a fraction of one. Nothing of the run
// may wait on the network or a process (those do not stop the clock).
func runSimulated(t *testing.T, args ...string) (out string, code int) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		out, code = runCLI(t, args...)
	})
	return out, code
}

// fatalLines are the FATAL lines of a run's output.
func fatalLines(out string) []string {
	var fatal []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "FATAL: ") {
			fatal = append(fatal, l)
		}
	}
	return fatal
}

var (
	numRE   = regexp.MustCompile(`\d+(\.\d+)?`)
	spaceRE = regexp.MustCompile(`[ \t]+`)
	histRE  = regexp.MustCompile(`^\s+[\d.]+ \|\**\s+\d+$`)
)

// shape masks what legitimately differs between two runs (numbers, the
// banner, script paths, histogram bucket lines) so that the layout of our
// output can be compared with the reference's recorded output.
func shape(s, script string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	var out []string
	for i, l := range lines {
		if i == 0 && strings.HasPrefix(l, "sysbench ") {
			continue
		}
		if histRE.MatchString(l) {
			l = "HISTOGRAM-LINE"
		}
		if script != "" {
			l = strings.ReplaceAll(l, script, "SCRIPT")
		}
		l = numRE.ReplaceAllString(l, "N")
		l = spaceRE.ReplaceAllString(l, " ")
		if l == "HISTOGRAM-LINE" && len(out) > 0 && out[len(out)-1] == l {
			continue
		}
		// How many intermediate reports fit in a run depends on timing:
		// within a run of "[ Ns ]" lines keep each distinct line once.
		if strings.HasPrefix(l, "[ Ns ]") && !strings.Contains(l, "Checkpoint") {
			dup := false
			for j := len(out) - 1; j >= 0 && strings.HasPrefix(out[j], "[ Ns ]") && !strings.Contains(out[j], "Checkpoint"); j-- {
				if out[j] == l {
					dup = true
					break
				}
			}
			if dup {
				continue
			}
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

func reference(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "reference", "sysbench-1.0.20", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func withExit(out string, code int) string {
	return out + "[exit " + string(rune('0'+code)) + "]\n"
}

// TestReferenceShapes compares our output layout, numbers masked, with
// sysbench 1.0.20's recorded output for the same command lines. The dry
// run needs no server: it counts every query as "other", which the mask
// hides.
func TestReferenceShapes(t *testing.T) {
	t.Parallel()
	dry := []string{"--mysql-dry-run"}
	cases := []struct {
		ref  string
		args []string
	}{
		{"mysql.dry-run.txt", append([]string{"oltp_read_write", "--threads=2", "--time=1", "run"}, dry...)},
		{"mysql.run.report-interval.txt", append([]string{"oltp_read_write", "--threads=8", "--time=3", "--report-interval=1", "run"}, dry...)},
		{"mysql.run.rate.txt", append([]string{"oltp_read_only", "--threads=2", "--time=3", "--rate=200", "--report-interval=1", "run"}, dry...)},
		{"mysql.run.checkpoints.txt", append([]string{"oltp_read_write", "--threads=2", "--time=3", "--report-interval=1", "--report-checkpoints=2", "run"}, dry...)},
		{"mysql.run.histogram.txt", append([]string{"oltp_point_select", "--threads=4", "--time=1", "--histogram", "--percentile=99", "run"}, dry...)},
		{"error.bad-option.txt", []string{"oltp_read_write", "--no-such-option=1", "run"}},
		{"error.no-such-test.txt", []string{"no_such_test", "run"}},
	}
	for _, c := range cases {
		t.Run(c.ref, func(t *testing.T) {
			t.Parallel()
			want := shape(reference(t, c.ref), "")
			out, code := runCLI(t, c.args...)
			got := shape(withExit(out, code), "")
			if got != want {
				t.Errorf("output shape differs from the reference\n--- got\n%s\n--- want\n%s", got, want)
			}
		})
	}
}

func TestScriptErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		script string
		ref    string
		want   string
	}{
		{"bad_syntax.lua", "error.lua-syntax.txt", "FATAL: SCRIPT:3: '<eof>' expected near 'end'"},
		{"bad_runtime.lua", "error.lua-runtime.txt", "FATAL: `thread_run' function failed: SCRIPT:2: boom"},
		{"bad_init.lua", "", "FATAL: `thread_init' function failed: SCRIPT:2: init failed here\nFATAL: Thread initialization failed!"},
		{"no_event.lua", "", "FATAL: cannot find the event() function in no_event.lua"},
	}
	for _, c := range cases {
		t.Run(c.script, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join("testdata", "scripts", c.script)
			// One event, however long the start takes on a busy machine
			// (--time=1 could end the run before its first).
			out, code := runCLI(t, path, "--events=1", "--time=0", "run")
			if code != 1 {
				t.Fatalf("exit code %d, want 1\n%s", code, out)
			}
			norm := strings.ReplaceAll(out, path, "SCRIPT")
			if !strings.Contains(norm, c.want) {
				t.Errorf("output lacks %q:\n%s", c.want, norm)
			}
			if strings.Contains(out, "goroutine ") || strings.Contains(out, "panic:") {
				t.Errorf("Go panic or stack trace in output:\n%s", out)
			}
			if c.ref != "" {
				ref := shape(reference(t, c.ref), "")
				got := shape(withExit(out, code), path)
				// The reference stops at the FATAL line; we go on to print
				// what the run measured, so compare up to it.
				if i := strings.Index(got, "FATAL"); i >= 0 {
					got = got[:i]
				}
				if i := strings.Index(ref, "FATAL"); i >= 0 {
					ref = ref[:i]
				}
				if got != ref {
					t.Errorf("line count differs from the reference\n--- got\n%s\n--- want\n%s", got, ref)
				}
			}
		})
	}
}

// TestErrorObjectsAsReference: an error raised with an object that is not
// a string (a table, nil) in init, thread_init or event prints what
// sysbench 1.0.20 prints, "(not a string)", not the table's address; a
// number becomes the text of error()'s message, with its position. The
// lines were printed by the real sysbench for this script.
func TestErrorObjectsAsReference(t *testing.T) {
	t.Parallel()
	const script = "testdata/scripts/error_object.lua"
	fn := map[string]string{"init": "init", "thread_init": "thread_init", "event": "thread_run"}
	for _, where := range []string{"init", "thread_init", "event"} {
		for what, msg := range map[string]string{"table": "(not a string)", "nil": "(not a string)", "number": script + ":19: 42"} {
			t.Run(where+"/"+what, func(t *testing.T) {
				out, code := runCLI(t, script, "--where="+where, "--what="+what, "--events=1", "--time=0", "run")
				want := "FATAL: `" + fn[where] + "' function failed: " + msg
				if f := fatalLines(out); code != 1 || len(f) == 0 || f[0] != want {
					t.Errorf("exit %d, FATAL lines %q, want the first %q\n%s", code, f, want, out)
				}
			})
		}
	}
}

// TestSyntaxErrorsAsReference: a script that does not parse gets the
// reference's FATAL line, which is LuaJIT's message (sysbench 1.0.20's own
// tests check the first).
func TestSyntaxErrorsAsReference(t *testing.T) {
	t.Parallel()
	scripts := []struct{ src, want string }{
		{"foo\n", "FATAL: SCRIPT:2: '=' expected near '<eof>'"},
		{"function event()\n  local x = 1\nend end\n", "FATAL: SCRIPT:3: '<eof>' expected near 'end'"},
		{"x = \"abc\n", `FATAL: SCRIPT:1: unfinished string near '"abc'`},
		{"t = {\n  a = 1\n  b = 2\n}\n", "FATAL: SCRIPT:3: '}' expected (to close '{' at line 1) near 'b'"},
		{"function event()\n  goto done\nend\n", "FATAL: SCRIPT:2: undefined label 'done'"},
		{"x = 0x\n", "FATAL: SCRIPT:1: malformed number near '0x'"},
	}
	ref := testenv.Tool(t, "sysbench", "apt-get install sysbench")
	dir := t.TempDir()
	for i, s := range scripts {
		path := filepath.Join(dir, fmt.Sprintf("s%d.lua", i))
		if err := os.WriteFile(path, []byte(s.src), 0o644); err != nil {
			t.Fatal(err)
		}
		fatal := func(out string) string {
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(l, "FATAL: ") {
					return strings.ReplaceAll(l, path, "SCRIPT")
				}
			}
			return "(no FATAL line) " + out
		}
		out, code := runCLI(t, path, "run")
		if got := fatal(out); got != s.want || code != 1 {
			t.Errorf("%q: exit %d, %q, want %q", s.src, code, got, s.want)
		}
		refOut, _ := exec.Command(ref, path, "run").CombinedOutput()
		if got := fatal(string(refOut)); got != s.want {
			t.Errorf("%q: the reference says %q, the test %q", s.src, got, s.want)
		}
	}
}

func TestBadOptionValues(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--threads=abc", "cpu", "run"}, "Invalid value for the 'threads' option: 'abc'"},
		{[]string{"--threads=0", "cpu", "run"}, "FATAL: Invalid value for --threads: 0."},
		{[]string{"--threads=-1", "cpu", "run"}, "FATAL: Invalid value for --threads: -1."},
		{[]string{"--percentile=101", "cpu", "run"}, "FATAL: Invalid value for --percentile: 101"},
		{[]string{"--rand-type=nope", "cpu", "run"}, "nope"},
		{[]string{"--histogram", "--percentile=0", "cpu", "run"}, "FATAL: --histogram cannot be used with --percentile=0"},
		{[]string{"--db-ps-mode=bogus", "oltp_read_write", "run"}, "FATAL: Invalid value for db-ps-mode: bogus"},
		{[]string{"testdata/scripts/api.lua", "--flag=yes", "run"}, "invalid option: --flag=yes"},
		{[]string{"oltp_read_write", "--tables=1", "--no-such=1", "run"}, "invalid option: --no-such=1"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			out, code := runCLI(t, c.args...)
			if code != 1 {
				t.Fatalf("exit code %d, want 1:\n%s", code, out)
			}
			if !strings.Contains(out, c.want) {
				t.Errorf("output lacks %q:\n%s", c.want, out)
			}
			if strings.Contains(out, "goroutine ") || strings.Contains(out, "panic:") {
				t.Errorf("Go panic in output:\n%s", out)
			}
		})
	}
}

func TestLuaAPI(t *testing.T) {
	t.Parallel()
	out, code := runCLI(t, "testdata/scripts/api.lua", "--threads=2", "--events=50", "--time=0", "--size=2K", "run")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if !strings.Contains(out, "total number of events:              50") {
		t.Errorf("--events=50 not honoured:\n%s", out)
	}
	out, code = runCLI(t, "testdata/scripts/api.lua", "hello")
	if code != 0 || !strings.Contains(out, "hello from 0") {
		t.Errorf("custom command: exit %d:\n%s", code, out)
	}
	out, code = runCLI(t, "testdata/scripts/api.lua", "--threads=3", "par")
	if code != 0 || !strings.Contains(out, "parallel 0") || !strings.Contains(out, "parallel 2") {
		t.Errorf("parallel command: exit %d:\n%s", code, out)
	}
	out, code = runCLI(t, "testdata/scripts/api.lua", "help")
	if code != 0 || !strings.Contains(out, "api.lua options:") || !strings.Contains(out, "  --count=N") {
		t.Errorf("help: exit %d:\n%s", code, out)
	}
}

func TestRestartEventAndOwnLoop(t *testing.T) {
	t.Parallel()
	out, code := runCLI(t, "testdata/scripts/restart.lua", "--events=100", "--time=0", "run")
	if code != 0 || !strings.Contains(out, "restarts=") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if !strings.Contains(out, "total number of events:              100") {
		t.Errorf("restarted events must count once:\n%s", out)
	}
	out, code = runCLI(t, "testdata/scripts/hook_restart.lua", "--events=10", "--time=0", "run")
	if code != 0 || !strings.Contains(out, "hook calls 30 events tries 20") {
		t.Errorf("a restart raised inside before_restart_event: exit %d\n%s", code, out)
	}
	out, code = runCLI(t, "testdata/scripts/own_loop.lua", "--events=77", "--time=0", "--threads=2", "run")
	if code != 0 || !strings.Contains(out, "total number of events:              77") {
		t.Errorf("thread_run loop: exit %d:\n%s", code, out)
	}
	out, code = runCLI(t, "testdata/scripts/legacy.lua", "--my-custom-option=xyz", "--events=3", "--time=0", "run")
	if code != 0 {
		t.Errorf("legacy script: exit %d:\n%s", code, out)
	}
}

func TestPercentileList(t *testing.T) {
	t.Parallel()
	out, code := runCLI(t, "cpu", "--cpu-max-prime=100", "--events=2000", "--time=0", "--percentile=50,95,99.9", "run")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, want := range []string{" 50th percentile:", " 95th percentile:", " 99.9th percentile:"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q:\n%s", want, out)
		}
	}
}

func TestVersionAndHelp(t *testing.T) {
	t.Parallel()
	out, code := runCLI(t, "--version")
	if code != 0 || !strings.HasPrefix(out, "sysbench-go ") {
		t.Errorf("--version under our own name must say sysbench-go first: %q", out)
	}
	out, code = runCLI(t, "--help")
	if code != 0 {
		t.Fatalf("--help exit %d", code)
	}
	for _, opt := range []string{"--threads=N", "--mysql-host=[LIST,...]", "--pgsql-port", "Compiled-in tests:", "  cpu - CPU performance test"} {
		if !strings.Contains(out, opt) {
			t.Errorf("--help lacks %q", opt)
		}
	}
}

// FuzzParseArgs: parsing a command line, printing it back and parsing it
// again gives the same command line; and the general options are either
// accepted silently or rejected with exactly one line (warnings aside),
// never a panic or Go's own error text.
func FuzzParseArgs(f *testing.F) {
	for _, s := range []string{"--threads=4 oltp_read_write run", "--time=-1", "--histogram", "a b c d", "--=x",
		"--percentile=50,99.9", "--mysql-ssl=REQUIRED", "--threads=0", "--verbosity=9", "--rand-type=x",
		"--forced-shutdown=5% --time=3", "--report-checkpoints=1,x", "--events=1e3", "--threads", "--a=b=c -"} {
		f.Add(s)
	}
	goText := regexp.MustCompile(`panic|goroutine|strconv\.|%!\w\(|invalid syntax|value out of range`)
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		cl, err := parseArgs(args)
		if err != nil {
			if strings.Contains(err.Error(), "\n") || goText.MatchString(err.Error()) && !goText.MatchString(line) {
				t.Fatalf("rejection %q is not one clear line", err)
			}
			return
		}
		again, err := parseArgs(cl.format())
		if err != nil || !reflect.DeepEqual(cl, again) {
			t.Fatalf("%q printed as %q parses differently: %+v vs %+v (%v)", args, cl.format(), cl, again, err)
		}
		var out, errb bytes.Buffer
		p := &program{ctx: context.Background(), stdin: strings.NewReader(""), stderr: &errb,
			log: logging.New(&out, logging.DefaultLevel), drivers: compiledDrivers(), tests: builtin.Tests()}
		accepted := false
		if spec, err := readSpec(cl, args, allDeclared(p.drivers, p.tests), &errb); err != nil {
			p.fail(err)
		} else {
			accepted = p.resolve(spec)
		}
		var lines []string
		for _, l := range strings.Split(out.String()+errb.String(), "\n") {
			if l != "" && !strings.HasPrefix(l, "WARNING: ") {
				lines = append(lines, l)
			}
		}
		if accepted && len(lines) != 0 || !accepted && len(lines) != 1 {
			t.Fatalf("%q: accepted=%v with output lines %q", args, accepted, lines)
		}
		if goText.MatchString(out.String()+errb.String()) && !goText.MatchString(line) {
			t.Fatalf("%q: Go error text in %q", args, out.String()+errb.String())
		}
	})
}

// The reference's CSV and JSON report hooks, on the fake clock: each
// event sleeps a millisecond, and the intervals come however busy the
// machine is (at full speed the two runs cost 4 CPU-seconds).
func TestReportHooks(t *testing.T) {
	t.Parallel()
	out, code := runSimulated(t, "testdata/scripts/report_hooks.lua", "--format=csv", "--pause=1000", "--time=2", "--report-interval=1", "run")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	csv := regexp.MustCompile(`(?m)^\d+,1,[\d.]+,[\d.]+,[\d.]+,[\d.]+,[\d.]+,[\d.]+,[\d.]+,[\d.]+$`)
	if n := len(csv.FindAllString(out, -1)); n != 2 {
		t.Errorf("no CSV report lines:\n%s", out)
	}
	out, code = runSimulated(t, "testdata/scripts/report_hooks.lua", "--format=json", "--pause=1000", "--time=2", "--report-interval=1", "run")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	start, end := strings.Index(out, "[\n"), strings.LastIndex(out, "\n]\n")
	if start < 0 || end < start {
		t.Fatalf("no JSON array in output:\n%s", out)
	}
	var reports []struct {
		Time    float64 `json:"time"`
		Threads int     `json:"threads"`
		TPS     float64 `json:"tps"`
	}
	if err := json.Unmarshal([]byte(out[start:end+3]), &reports); err != nil {
		t.Fatalf("report_json output is not valid JSON: %v\n%s", err, out[start:end+3])
	}
	if len(reports) != 2 || reports[0].Threads != 1 || reports[0].TPS <= 0 {
		t.Errorf("unexpected JSON reports %+v", reports)
	}
}

// TestHelpIsReferencePlusSections: --help is sysbench 1.0.20's byte for
// byte once what we add is taken out: the sqlite driver's line, and the
// sections between the driver blocks and "Compiled-in tests:" (the part
// of the reference's help that varies with its build). Each group's
// extensions are in a section of their own, so a parser reading the
// reference's "mysql options:" block finds only the reference's lines.
func TestHelpIsReferencePlusSections(t *testing.T) {
	t.Parallel()
	ref := reference(t, "help.txt")
	// As `sysbench`: the help names the program as invoked.
	var buf bytes.Buffer
	code := Run(context.Background(), "sysbench", []string{"--help"}, strings.NewReader(""), &buf, &buf)
	out := buf.String()
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	ours := strings.Replace(out, "  sqlite - SQLite driver (embedded)\n", "", 1)
	start := strings.Index(ours, "\nsqlite options:\n")
	end := strings.Index(ours, "Compiled-in tests:\n")
	if start < 0 || end < start {
		t.Fatalf("no sqlite options block before the compiled-in tests:\n%s", out)
	}
	added := ours[start+1 : end]
	ours = ours[:start+1] + ours[end:]
	if ours != ref {
		t.Errorf("--help without our sections differs from the reference's\n--- ours\n%s\n--- reference\n%s", ours, ref)
	}
	for _, heading := range []string{"General options beyond sysbench 1.0.20:", "pgsql driver options beyond sysbench 1.0.20:",
		"mysql driver options beyond sysbench 1.0.20:", "Commands beyond sysbench 1.0.20:", "Bundled workloads"} {
		if !strings.Contains(added, "\n"+heading) {
			t.Errorf("--help lacks the section %q", heading)
		}
	}
	for _, w := range []string{"  oltp_read_write - ", "  shop_mixed - ", "  tpcb_like - ", "  --warmup-time=N", "  --pgsql-sslmode=STRING",
		"  --results=FILENAME", "  --intervals-csv=FILENAME", "  report [options] FILE... - "} {
		if !strings.Contains(added, "\n"+w) {
			t.Errorf("--help's own sections lack %q", w)
		}
	}
	if strings.Contains(added, "mysql options:") || strings.Contains(added, "pgsql options:") {
		t.Error("a section of ours has a reference block's heading")
	}
}

// TestRandSeedReproducesRun: the same --rand-seed gives every thread the
// same draws; another seed does not. Thread 0's first draws also equal
// sysbench 1.0.20's for that seed (recorded from the reference binary:
// `sysbench seeded.lua --rand-seed=42 --events=1 run` printed 362053 for
// uniform(1, 1000000) as the first draw of thread 0).
func TestRandSeedReproducesRun(t *testing.T) {
	t.Parallel()
	// draws returns each thread's lines in order (8 per thread).
	draws := func(seed string) map[string][]string {
		out, code := runCLI(t, "testdata/scripts/seeded.lua", "--threads=2", "--events=1", "--time=0", "--rand-seed="+seed, "run")
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, out)
		}
		m := map[string][]string{}
		for _, l := range strings.Split(out, "\n") {
			if tid, rest, ok := strings.Cut(l, " "); ok && (tid == "t0" || tid == "t1") {
				m[tid] = append(m[tid], rest)
			}
		}
		return m
	}
	same := func(x, y []string) bool {
		return len(x) == 8 && strings.Join(x, "\n") == strings.Join(y, "\n")
	}
	a, b, c := draws("42"), draws("42"), draws("43")
	for _, tid := range []string{"t0", "t1"} {
		if !same(a[tid], b[tid]) {
			t.Errorf("%s: same seed, different draws:\n%v\n%v", tid, a[tid], b[tid])
		}
		if same(a[tid], c[tid]) {
			t.Errorf("%s: a different seed gave the same draws", tid)
		}
	}
	if same(a["t0"], a["t1"]) {
		t.Error("both threads drew the same sequence")
	}
	out, _ := runCLI(t, "testdata/scripts/seeded.lua", "--events=1", "--time=0", "--rand-seed=42", "run")
	if !strings.Contains(out, "t0 362053 ") {
		t.Errorf("thread 0's first uniform draw for seed 42 is not the reference's 362053:\n%s", out)
	}
}

// TestOLTPHelperOverride: oltp_read_write's event runs its helpers as an
// event plan (Go) only while they are the module's own; a script that
// replaces one gets its replacement called on every event.
func TestOLTPHelperOverride(t *testing.T) {
	t.Parallel()
	out, code := runCLI(t, "testdata/scripts/oltp_override.lua", "--mysql-dry-run", "--events=7", "--time=0", "--threads=1", "run")
	if code != 0 || !strings.Contains(out, "replaced helper calls: 7\n") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// luajitLines is what testdata/scripts/luajit.lua prints under sysbench
// 1.0.20 with --events=1 --rand-seed=5 (recorded with the reference).
const luajitLines = `LJ random 0.79420629243124097 0.69885246563716397 591
LJ random wide 6.9473077604783411e+18
LJ randomseed 96 1
LJ nurand 566
LJ bit -1 ffffffff -2147483647 7 2 -16 2018915346 00FF
LJ jit LuaJIT 2.1.0-beta3 20100 Linux x64
LJ table 1 x true true
LJ sizeof 1 2 4 8 8 4 8 8 8 8 1 16
LJ cdata 9223372036854788153ULL -15LL 922337203685478815ULL 9223372036854775808ULL 4294967295 -56 true false cdata
LJ format 9007199254740992|-9223372036854775808|10000000000|18446744073709551615| 3.14|3|1e+20|1e+15 -9223372036854763463|ffffffffffffffff
LJ uint64 11690631621109684197ULL cdata true 11690631621109684197
`

// TestLuaJITLibraries runs a script using bit, jit, table.new/clear,
// math.random, ffi types and 64-bit cdata in a worker state and compares
// what it prints with the reference's: math.random starts from LuaJIT's
// fixed seed in each state, and uniform_uint64 is exact beyond 2^53.
func TestLuaJITLibraries(t *testing.T) {
	t.Parallel()
	args := []string{"testdata/scripts/luajit.lua", "--events=1", "--time=0", "--rand-seed=5", "run"}
	out, code := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	want := luajitLines
	if bin, err := exec.LookPath("sysbench"); err == nil {
		ref, err := exec.Command(bin, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("sysbench: %v\n%s", err, ref)
		}
		want = ljLines(string(ref))
		if want != luajitLines {
			t.Errorf("the reference now prints\n%s", want)
		}
	}
	if got := ljLines(out); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func ljLines(out string) string {
	var b strings.Builder
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "LJ ") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// TestSQLParamCdata: a statement parameter takes a 64-bit cdata as the
// reference's FFI buffers do, exactly beyond 2^53.
func TestSQLParamCdata(t *testing.T) {
	t.Parallel()
	compiled := false
	for _, f := range compiledDrivers() {
		compiled = compiled || f.Name == "sqlite"
	}
	if !compiled {
		t.Skip("the sqlite driver is not compiled in")
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "cdata_param.lua")
	src := `
function event()
  local con = sysbench.sql.driver():connect()
  local st = con:prepare("SELECT ? + 0, ? * 2")
  local big, d = st:bind_create(sysbench.sql.type.BIGINT), st:bind_create(sysbench.sql.type.DOUBLE)
  st:bind_param(big, d)
  big:set(ffi.new("int64_t", 2^53) + 1)
  d:set(ffi.new("int", 21))
  local row = st:execute():fetch_row()
  print("LJSQL " .. row[1] .. " " .. row[2])
  con:disconnect()
end
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := runCLI(t, script, "--db-driver=sqlite", "--sqlite-db="+filepath.Join(dir, "t.db"), "--events=1", "--time=0", "run")
	if code != 0 || !strings.Contains(out, "LJSQL 9007199254740993 42") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// TestVerbosityLevels: at each --verbosity (and with --debug) a script's
// run and a built-in test's print what sysbench 1.0.20 printed for the
// same command lines (recorded in testdata/reference/.../verbosity, numbers
// masked): the banner, headers and reports from 3, INFO from 4, DEBUG
// from 5, ALERTs from 1 with their repeat count, the script's own output
// at every level.
func TestVerbosityLevels(t *testing.T) {
	t.Parallel()
	script := filepath.Join("testdata", "scripts", "verbosity.lua")
	cases := []struct {
		ref  string
		args []string
	}{
		{"cpu.v0.txt", []string{"--verbosity=0", "--events=2", "--cpu-max-prime=100", "cpu", "run"}},
		{"cpu.v3.txt", []string{"--verbosity=3", "--events=2", "--cpu-max-prime=100", "cpu", "run"}},
		{"cpu.v4.txt", []string{"--verbosity=4", "--events=2", "--cpu-max-prime=100", "cpu", "run"}},
		{"cpu.v5.txt", []string{"--verbosity=5", "--events=2", "--cpu-max-prime=100", "cpu", "run"}},
		{"lua.debug.txt", []string{"--mysql-dry-run", "--debug", "--events=2", "--time=0", script, "run"}},
	}
	for v := 0; v <= 5; v++ {
		cases = append(cases, struct {
			ref  string
			args []string
		}{fmt.Sprintf("lua.v%d.txt", v), []string{"--mysql-dry-run", fmt.Sprintf("--verbosity=%d", v), "--events=2", "--time=0", script, "run"}})
	}
	for _, c := range cases {
		t.Run(c.ref, func(t *testing.T) {
			want := shape(reference(t, filepath.Join("verbosity", c.ref)), "verbosity.lua")
			out, code := runCLI(t, c.args...)
			got := shape(withExit(out, code), script)
			got = strings.ReplaceAll(got, "SCRIPT", "verbosity.lua")
			if got != want {
				t.Errorf("output differs from the reference's\n--- got\n%s\n--- want\n%s", got, want)
			}
		})
	}
}

// TestScriptFromStandardInput: with no test name, or "-", the script is
// read from standard input and its body runs (no command), named "stdin"
// in messages, with no script path; as the reference.
func TestScriptFromStandardInput(t *testing.T) {
	t.Parallel()
	run1 := func(stdin string, args ...string) (string, int) {
		var out bytes.Buffer
		code := run(context.Background(), args, strings.NewReader(stdin), &out, &out)
		return out.String(), code
	}
	out, code := run1("print('body', sysbench.cmdline.script_path)\nfunction event() print('event') end\n", "--verbosity=0")
	if code != 0 || out != "body\tnil\n" {
		t.Errorf("exit %d, output %q", code, out)
	}
	out, code = run1("print('body')\n", "--verbosity=0", "--events=1", "--time=0", "-", "run")
	if code != 0 || out != "body\n" {
		t.Errorf("'-' with a command: exit %d, output %q (the body runs, the command does not)", code, out)
	}
	out, code = run1("foo\n")
	if code != 1 || !strings.HasSuffix(out, "\n\nFATAL: stdin:2: '=' expected near '<eof>'\n") {
		t.Errorf("syntax error: exit %d, output %q", code, out)
	}
	out, code = run1("error('boom')\n", "--verbosity=0")
	if code != 1 || out != "FATAL: stdin:1: boom\n" {
		t.Errorf("runtime error: exit %d, output %q", code, out)
	}
}

// TestCommandDispatchOrder: a command in sysbench.cmdline.commands wins
// over a global function of the same name (prepare here); a parallel one
// runs once per --threads, read when the command starts.
func TestCommandDispatchOrder(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "dispatch.lua")
	src := `function prepare() print("global prepare") end
function cmd_prepare() print("command prepare " .. sysbench.tid) end
sysbench.cmdline.commands = { prepare = {cmd_prepare, sysbench.cmdline.PARALLEL_COMMAND} }
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := runCLI(t, "--verbosity=0", "--threads=3", path, "prepare")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	sort.Strings(lines)
	if code != 0 || strings.Join(lines, "|") != "command prepare 0|command prepare 1|command prepare 2" {
		t.Errorf("exit %d, output %q", code, out)
	}
	out, code = runCLI(t, "--verbosity=0", path, "prepare")
	if code != 0 || out != "command prepare 0\n" {
		t.Errorf("one thread: exit %d, output %q", code, out)
	}
}

// TestOLTPPlanSameAsLua: the OLTP workloads whose events Go runs as event
// plans issue the statements, with the values, that their Lua helpers
// issue: the same seeded run through each path leaves the same rows in a
// SQLite database. (The Lua path is taken by wrapping one helper.)
func TestOLTPPlanSameAsLua(t *testing.T) {
	// The seeded runs are processes of their own: in the test binary,
	// runs beside them (whose memory policy is the process's) were seen
	// to change what these left.
	t.Parallel()
	compiled := false
	for _, f := range compiledDrivers() {
		compiled = compiled || f.Name == "sqlite"
	}
	if !compiled {
		t.Skip("the sqlite driver is not compiled in")
	}
	for _, tc := range []struct{ workload, helper string }{
		{"oltp_read_write", "execute_point_selects"},
		{"oltp_write_only", "execute_index_updates"},
		{"oltp_update_non_index", "execute_non_index_updates"},
	} {
		t.Run(tc.workload, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			wrapped := filepath.Join(dir, "wrapped.lua")
			src := fmt.Sprintf("require(%q)\nlocal own = %s\nfunction %s(...) return own(...) end\n", tc.workload, tc.helper, tc.helper)
			if err := os.WriteFile(wrapped, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			dump := func(script string) string {
				db := filepath.Join(dir, strings.TrimSuffix(filepath.Base(script), ".lua")+".db")
				common := []string{"--db-driver=sqlite", "--sqlite-db=" + db, "--tables=2", "--table-size=200", "--rand-seed=7"}
				if out, code := runOwnProcess(t, append([]string{tc.workload}, append(common, "prepare")...)...); code != 0 {
					t.Fatalf("prepare: exit %d\n%s", code, out)
				}
				args := append([]string{script}, append(common, "--threads=1", "--events=300", "--time=0", "run")...)
				out, code := runOwnProcess(t, args...)
				if code != 0 {
					t.Fatalf("run %s: exit %d\n%s", script, code, out)
				}
				// A restarted event draws anew: the two runs compare only
				// when neither had one.
				if !regexp.MustCompile(`ignored errors: +0 `).MatchString(out) {
					t.Fatalf("run %s had ignored errors (events restarted):\n%s", script, out)
				}
				return dumpTables(t, db, 2)
			}
			viaPlan, viaLua := dump(tc.workload), dump(wrapped)
			if viaPlan != viaLua {
				t.Errorf("the rows differ after the same seeded run: %s", testenv.LineDiff(viaLua, viaPlan))
			}
		})
	}
}

// TestHelpNamesTheProgram: the help texts tell the user what to run under
// the name the program was run as: sysbench-go, or sysbench when installed
// or linked under that name.
func TestHelpNamesTheProgram(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ argv0, name, other string }{
		{"/usr/bin/sysbench-go", "sysbench-go", "'sysbench "},
		{"/usr/local/bin/sysbench", "sysbench", "sysbench-go "},
	} {
		for _, args := range [][]string{{"--help"}, {"report", "--help"}, {"start", "--help"}, {"compare", "--help"}} {
			t.Run(c.name+" "+strings.Join(args, " "), func(t *testing.T) {
				var buf bytes.Buffer
				if code := Run(context.Background(), c.argv0, args, strings.NewReader(""), &buf, &buf); code != 0 {
					t.Fatalf("exit %d\n%s", code, buf.String())
				}
				out := buf.String()
				want := "  " + c.name + " "
				if args[0] == "--help" {
					want = "(see '" + c.name + " report --help')"
				}
				if !strings.Contains(out, want) {
					t.Errorf("no %q in:\n%s", want, out)
				}
				if strings.Contains(out, c.other) {
					t.Errorf("%q names the program otherwise (%q):\n%s", args, c.other, out)
				}
			})
		}
	}
}

// TestBuiltinSaysDatabaseOptionsDoNothing: --server-stats and --statement-stats
// apply to database tests; with a built-in test each says so in one line
// and the run goes on (it was silently ignored).
func TestBuiltinSaysDatabaseOptionsDoNothing(t *testing.T) {
	t.Parallel()
	out, code := runCLI(t, "cpu", "--cpu-max-prime=100", "--events=10", "--time=0", "--server-stats", "--statement-stats", "run")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, o := range []string{"server-stats", "statement-stats"} {
		line := "WARNING: --" + o + ": the cpu test uses no database: nothing to report\n"
		if strings.Count(out, line) != 1 {
			t.Errorf("want the line %q once:\n%s", line, out)
		}
	}
}
