package main

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
	for _, bad := range []string{"3/3", "-1/2", "1", "a/b", "1/0"} {
		v := options.NewValues()
		v.Set("instance", bad)
		if _, err := parseInstance(v); err == nil || !strings.HasPrefix(err.Error(), "Invalid value for --instance: '"+bad+"'") {
			t.Errorf("--instance=%s: %v", bad, err)
		}
	}
	for in, want := range map[string]time.Time{
		"2026-12-01T15:04:05Z":        time.Date(2026, 12, 1, 15, 4, 5, 0, time.UTC),
		"2026-12-01T16:04:05.5+01:00": time.Date(2026, 12, 1, 15, 4, 5, 5e8, time.UTC),
		"1796137445":                  time.Unix(1796137445, 0),
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
	out, code := runCLI(t, "cpu", "--instance=4/2", "run")
	if code != 1 || !strings.Contains(out, "Invalid value for --instance: '4/2'") || strings.Count(strings.TrimSpace(out), "\n") > 0 {
		t.Errorf("exit %d:\n%s", code, out)
	}
}
