package main

import (
	"bytes"
	"context"
	rtrace "runtime/trace"
	"strings"
	"testing"
	"time"
)

// Events that wait show their time as blocked, events that compute as
// running: the breakdown follows the goroutines' states in the trace.
func TestBreakdown(t *testing.T) {
	var buf bytes.Buffer
	if err := rtrace.Start(&buf); err != nil {
		t.Skipf("a trace is already being written: %v", err)
	}
	ctx := context.Background()
	for range 10 {
		r := rtrace.StartRegion(ctx, "event")
		time.Sleep(3 * time.Millisecond)
		r.End()
	}
	for range 10 {
		r := rtrace.StartRegion(ctx, "event")
		for start := time.Now(); time.Since(start) < 3*time.Millisecond; {
		}
		r.End()
	}
	rtrace.WithRegion(ctx, "other", func() { time.Sleep(time.Millisecond) })
	rtrace.Stop()
	events, err := read(&buf, "event")
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 20 {
		t.Fatalf("%d events, want 20", len(events))
	}
	for i, e := range events {
		var sum int64
		for _, p := range e.parts[:assist] {
			sum += p
		}
		if sum > e.dur || sum < e.dur*9/10 {
			t.Errorf("event %d: parts %v add up to %d of %d ns", i, e.parts, sum, e.dur)
		}
		own := e.parts[running] + e.parts[runnable]
		// A sleep of 3 ms blocks for about that long, however long the
		// goroutine then waits for a CPU (runnable: 25 ms of an event
		// beside a loaded suite), so the bound is the sleep's, not a
		// share of the event.
		if i < 10 && e.parts[waiting] < int64(2500*time.Microsecond) {
			t.Errorf("sleeping event %d: %d of %d ns blocked, want the 3 ms sleep", i, e.parts[waiting], e.dur)
		}
		if i >= 10 && own < e.dur*9/10 {
			t.Errorf("computing event %d: %d of %d ns running or runnable", i, own, e.dur)
		}
	}
	var out strings.Builder
	writeTable(&out, events)
	if !strings.Contains(out.String(), "client_share") || !strings.Contains(out.String(), ">=p99") {
		t.Errorf("output:\n%s", out.String())
	}
}
