package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/sysbench-go/sysbench-go/engine"
	"github.com/sysbench-go/sysbench-go/options"
)

// --instance=K/N gives each instance disjoint thread ids, its own seed and
// its share of --rate and --events, which add up to the whole.
func TestInstanceShares(t *testing.T) {
	t.Parallel()
	const n = 3
	var events uint64
	rate, seeds := 0.0, map[int64]bool{}
	for k := range n {
		c := engine.Config{Threads: 4, Events: 10, Rate: 900}
		seed := int64(42)
		off, err := instance{k, n}.apply(&c, &seed)
		if err != nil {
			t.Fatal(err)
		}
		if off != 4*k {
			t.Errorf("instance %d: first thread id %d, want %d", k, off, 4*k)
		}
		events, rate = events+c.Events, rate+c.Rate
		if seeds[seed] || c.RandSeed != seed {
			t.Errorf("instance %d: seed %d (config %d) not its own", k, seed, c.RandSeed)
		}
		seeds[seed] = true
	}
	if events != 10 || rate != 900 {
		t.Errorf("the shares add up to %d events and rate %v, want 10 and 900", events, rate)
	}
	c, seed := engine.Config{Threads: 1, Events: 2}, int64(0)
	if _, err := (instance{0, n}).apply(&c, &seed); err == nil || seed != 0 {
		t.Errorf("2 events over 3 instances: %v (seed %d)", err, seed)
	}
	c = engine.Config{Threads: 8, Events: 5, Rate: 100}
	if off, err := (instance{0, 1}).apply(&c, &seed); off != 0 || err != nil || c.Events != 5 || c.Rate != 100 {
		t.Errorf("a single instance changed the settings: %+v", c)
	}
}

// Malformed --instance and --start-at values are refused with one line.
func TestInstanceOptions(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"3/3", "-1/2", "1", "a/b", "1/0"} {
		v := options.NewValues()
		v.Set("instance", bad)
		if _, err := parseInstance(v); err == nil || !strings.HasPrefix(err.Error(), "Invalid value for --instance: '"+bad+"'") {
			t.Errorf("--instance=%s: %v", bad, err)
		}
	}
	soon := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	for in, want := range map[string]time.Time{
		"2025-12-01T15:04:05Z":        time.Date(2025, 12, 1, 15, 4, 5, 0, time.UTC),
		"2025-12-01T16:04:05.5+01:00": time.Date(2025, 12, 1, 15, 4, 5, 5e8, time.UTC),
		"1764601445":                  time.Unix(1764601445, 0),
		soon.Format(time.RFC3339):     soon, // ahead, but not far
	} {
		v := options.NewValues()
		v.Set("start-at", in)
		if got, err := parseStartAt(v); err != nil || !got.Equal(want) {
			t.Errorf("--start-at=%s: %v %v, want %v", in, got, err, want)
		}
	}
	v := options.NewValues()
	v.Set("start-at", "tomorrow")
	if _, err := parseStartAt(v); err == nil {
		t.Error("--start-at=tomorrow accepted")
	}
	// A start years ahead (a mistyped year) would keep the instances idle.
	for _, far := range []string{"2099-01-01T00:00:00Z", time.Now().Add(25 * time.Hour).UTC().Format(time.RFC3339), "4070908800"} {
		v.Set("start-at", far)
		if _, err := parseStartAt(v); err == nil || !strings.Contains(err.Error(), "more than 24 hours ahead is refused") {
			t.Errorf("--start-at=%s: %v", far, err)
		}
	}
	out, code := runCLI(t, "cpu", "--start-at=2099-01-01T00:00:00Z", "run")
	if code != 1 || out != "FATAL: Invalid value for --start-at: 2099-01-01T00:00:00Z is 72 years ahead: more than 24 hours ahead is refused (a mistyped date would keep the run idle)\n" {
		t.Errorf("--start-at in 2099: exit %d:\n%s", code, out)
	}
	for _, tc := range []struct{ args, want string }{
		{"--await-start=5", "FATAL: --await-start needs --metrics-addr=HOST:PORT"},
		{"--serve-results=5", "FATAL: --serve-results needs --metrics-addr=HOST:PORT"},
		{"--serve-results=5 --metrics-addr=127.0.0.1:0", "FATAL: --serve-results needs --results=FILE"},
		{"--await-start=5 --metrics-addr=127.0.0.1:0 --start-at=1764601445", "FATAL: --await-start and --start-at"},
		{"--await-start=-1", "FATAL: Invalid value for --await-start: '-1'"},
	} {
		out, code := runCLI(t, append(strings.Fields(tc.args), "cpu", "run")...)
		if code != 1 || !strings.HasPrefix(out, tc.want) || strings.Count(out, "\n") != 1 {
			t.Errorf("%s: exit %d:\n%s", tc.args, code, out)
		}
	}
	out, code = runCLI(t, "cpu", "--instance=4/2", "run")
	if code != 1 || !strings.Contains(out, "Invalid value for --instance: '4/2'") || strings.Count(strings.TrimSpace(out), "\n") > 0 {
		t.Errorf("exit %d:\n%s", code, out)
	}
}
