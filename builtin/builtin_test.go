package builtin

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/sysbench-go/sysbench-go/engine"
	"github.com/sysbench-go/sysbench-go/logging"
	"github.com/sysbench-go/sysbench-go/options"
	"github.com/sysbench-go/sysbench-go/report"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// env returns an Env with the given --name=value options set.
func testEnv(threads int, opts ...string) *engine.Env {
	v := options.NewValues()
	for _, o := range opts {
		k, val, ok := strings.Cut(strings.TrimPrefix(o, "--"), "=")
		if !ok {
			val = "on"
		}
		v.Set(k, val)
	}
	return &engine.Env{Values: v, Threads: threads, Log: logging.Discard()}
}

func builtinByName(t *testing.T, name string) engine.Builtin {
	t.Helper()
	for _, b := range Tests() {
		if b.Name == name {
			return b
		}
	}
	t.Fatalf("no built-in test %q", name)
	return engine.Builtin{}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// golden compares got with testdata/NAME.golden (rewritten with -update).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want := readFile(t, path); got != want {
		t.Errorf("%s mismatch\n--- got\n%s--- want\n%s", name, got, want)
	}
}

var numberRE = regexp.MustCompile(` *-?[0-9]+(\.[0-9]+)?`)

// maskNumbers replaces every number, with the padding before it, by " N",
// so outputs of different runs compare by shape.
func maskNumbers(s string) string { return numberRE.ReplaceAllString(s, " N") }

func TestTestsOrderAndDescriptions(t *testing.T) {
	want := []struct{ name, desc string }{
		{"fileio", "File I/O test"},
		{"cpu", "CPU performance test"},
		{"memory", "Memory functions speed test"},
		{"threads", "Threads subsystem performance test"},
		{"mutex", "Mutex performance test"},
	}
	got := Tests()
	if len(got) != len(want) {
		t.Fatalf("got %d tests, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].Name != w.name || got[i].Description != w.desc || got[i].New == nil {
			t.Errorf("test %d = %q %q, want %q %q", i, got[i].Name, got[i].Description, w.name, w.desc)
		}
	}
}

// The help each test prints must be the reference's, byte for byte.
func TestHelpMatchesReference(t *testing.T) {
	for _, b := range Tests() {
		t.Run(b.Name, func(t *testing.T) {
			got := b.Name + " options:\n" + options.FormatHelp(b.Options) + "\n"
			want := readFile(t, filepath.Join("testdata", "reference", "help."+b.Name+".txt"))
			if got != want {
				t.Errorf("help mismatch\n--- got\n%s--- want\n%s", got, want)
			}
		})
	}
}

// Every test accepts its defaults.
func TestDefaultsAreValid(t *testing.T) {
	for _, b := range Tests() {
		if _, err := b.New(testEnv(1)); err != nil {
			t.Errorf("%s: New with defaults: %v", b.Name, err)
		}
	}
}

func TestOptionErrors(t *testing.T) {
	cases := []struct {
		test string
		opts []string
		want string
	}{
		{"cpu", []string{"--cpu-max-prime=0"}, "Invalid value of cpu-max-prime: 0."},
		{"cpu", []string{"--cpu-max-prime=-5"}, "Invalid value of cpu-max-prime: -5."},
		{"cpu", []string{"--cpu-max-prime=abc"}, "Invalid value for the 'cpu_max_prime' option: 'abc'"},
		{"cpu", []string{"--cpu-max-prime=99999999999"}, "Invalid value for the 'cpu_max_prime' option: '99999999999'"},
		{"memory", []string{"--memory-block-size=3"}, "Invalid value for memory-block-size: 3"},
		{"memory", []string{"--memory-block-size=3K"}, "Invalid value for memory-block-size: 3K"},
		{"memory", []string{"--memory-block-size=4"}, "Invalid value for memory-block-size: 4"},
		{"memory", []string{"--memory-scope=x"}, "Invalid value for memory-scope: x"},
		{"memory", []string{"--memory-oper=x"}, "Invalid value for memory-oper: x"},
		{"memory", []string{"--memory-access-mode=x"}, "Invalid value for memory-access-mode: x"},
		{"threads", []string{"--thread-locks=0"}, "Invalid value for thread-locks: 0"},
		{"threads", []string{"--thread-yields=-1"}, "Invalid value for thread-yields: -1"},
		{"threads", []string{"--thread-yields=x"}, "Invalid value for the 'thread_yields' option: 'x'"},
		{"mutex", []string{"--mutex-num=0"}, "Invalid value for mutex-num: 0"},
		{"mutex", []string{"--mutex-locks=-1"}, "Invalid value for mutex-locks: -1"},
		{"mutex", []string{"--mutex-loops=-1"}, "Invalid value for mutex-loops: -1"},
		{"fileio", []string{"--file-num=0"}, "Invalid value for file-num: 0"},
		{"fileio", []string{"--file-total-size=0"}, "Invalid value for file-total-size: 0"},
		{"fileio", []string{"--file-total-size=abc"}, "Invalid value for file-total-size: 0"},
		{"fileio", []string{"--file-total-size=1X"}, "Invalid value for file-total-size: 0"},
		{"fileio", []string{"--file-io-mode=foo"}, "unknown I/O mode: foo"},
		{"fileio", []string{"--file-merged-requests=-1"}, "Invalid value for file-merged-requests: -1."},
		{"fileio", []string{"--file-block-size=0"}, "Invalid value for file-block-size: 0."},
		{"fileio", []string{"--file-extra-flags=sync,foo"}, "Invalid value for file-extra-flags: sync,foo"},
		{"fileio", []string{"--file-fsync-freq=-1"}, "Invalid value for file-fsync-freq: -1."},
		{"fileio", []string{"--file-fsync-mode=x"}, "Invalid fsync mode: x."},
		{"fileio", []string{"--file-rw-ratio=-1"}, "Invalid value for --file-rw-ratio: -1.000000."},
		{"fileio", []string{"--file-io-mode=async", "--file-async-backlog=0"}, "Invalid value of file-async-backlog: 0"},
	}
	for _, c := range cases {
		t.Run(c.test+strings.Join(c.opts, ""), func(t *testing.T) {
			_, err := builtinByName(t, c.test).New(testEnv(1, c.opts...))
			if err == nil || err.Error() != c.want {
				t.Errorf("error = %v, want %q", err, c.want)
			}
		})
	}
}

func TestSizeString(t *testing.T) {
	cases := map[float64]string{
		0: "0", 1000: "1000", 1023: "1023", 1024: "1Ki", 1536: "1.5Ki", 16384: "16Ki",
		512 << 10: "512Ki", 64 << 20: "64Mi", 2 << 30: "2Gi", 100000: "97.656Ki",
		3 << 40: "3Ti", 1 << 50: "1", 2000 << 40: "1.9531", // past T the suffix is the reference's NUL,
	}
	for v, want := range cases {
		if got := sizeString(v); got != want {
			t.Errorf("sizeString(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestRefSize(t *testing.T) {
	cases := map[string]int64{
		"": 0, "abc": 0, "16384": 16384, "16K": 16384, "16k": 16384, "16KB": 16384,
		"2G": 2 << 30, "1T": 1 << 40, "3M": 3 << 20, "5X": 0, "7 ": 0,
	}
	for s, want := range cases {
		if got := refSize(s); got != want {
			t.Errorf("refSize(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestErrnoText(t *testing.T) {
	if got := errnoText(syscall.ENOENT); got != " errno = 2 (No such file or directory)" {
		t.Errorf("ENOENT: %q", got)
	}
	if got := errnoText(&os.PathError{Op: "open", Path: "x", Err: syscall.ENOMEM}); got != " errno = 12 (Cannot allocate memory)" {
		t.Errorf("ENOMEM: %q", got)
	}
	if got := errnoText(nil); got != " errno = 0 (Success)" {
		t.Errorf("nil: %q", got)
	}
}

// A Stat as the engine would pass it, with round figures.
func testStat() *report.Stat {
	return &report.Stat{
		Threads: 1, ThreadsRunning: 1, TimeInterval: 2, TimeTotal: 2,
		Events: 1000, LatencyMin: 0.001, LatencyMax: 0.004, LatencyAvg: 0.002, LatencySum: 2,
		Percentile: 95, LatencyPct: 0.003, Percentiles: []float64{95}, LatencyPcts: []float64{0.003},
		ThreadEvents: []uint64{1000}, ThreadTime: []float64{2},
	}
}

// runEvents drives a worker directly: Init, up to n events (or until it
// stops), Done, Close. It returns the number of events that ran.
func runEvents(t *testing.T, w engine.Worker, n int) int {
	t.Helper()
	ctx := context.Background()
	if err := w.Init(ctx); err != nil {
		t.Fatalf("worker Init: %v", err)
	}
	defer w.Close()
	done := 0
	for ; done < n; done++ {
		stop, err := w.Event(ctx)
		if err != nil {
			t.Fatalf("event %d: %v", done, err)
		}
		if stop {
			break
		}
	}
	if err := w.Done(ctx); err != nil {
		t.Fatalf("worker Done: %v", err)
	}
	return done
}

func printMode(tt engine.Test) string {
	var b bytes.Buffer
	tt.PrintMode(&b)
	return b.String()
}

// logTo makes env's logger write to a buffer at the given level; the
// test's PrintMode output is to be written to the same buffer.
func logTo(env *engine.Env, level logging.Level) *bytes.Buffer {
	var b bytes.Buffer
	env.Log = logging.New(&b, level)
	return &b
}

func reportCumulative(t *testing.T, tt engine.Test, s *report.Stat) string {
	t.Helper()
	var b bytes.Buffer
	if !tt.ReportCumulative(&b, s) {
		t.Fatal("ReportCumulative returned false")
	}
	return b.String()
}

// runToEnd runs t as main does: Run, then the final report and done().
func runToEnd(ctx context.Context, t engine.Test, cfg engine.Config, log *logging.Logger) error {
	fin, err := engine.Run(ctx, t, cfg, log)
	if fin != nil {
		if rerr := fin.Report(); err == nil {
			err = rerr
		}
	}
	return err
}
