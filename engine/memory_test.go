package engine

import (
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"testing"

	"github.com/sysbench-go/sysbench-go/logging"
)

func TestRunGCPercent(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		live uint64
		prev int
		want int
	}{
		{0, 100, 100},
		{4 * mib, 100, 100},   // small heaps keep the default
		{20 * mib, 100, 45},   // 25% + 20%: a 64-thread run
		{40 * mib, 100, 35},   // 25% + 10%
		{128 * mib, 100, 28},  // 25% + 3.1%
		{1024 * mib, 100, 25}, // 25% + 0.4%
		{10 * mib, 50, 50},    // never more than before
	}
	for _, tt := range tests {
		if got := runGCPercent(tt.live, tt.prev); got != tt.want {
			t.Errorf("runGCPercent(%d MiB, %d) = %d, want %d", tt.live/mib, tt.prev, got, tt.want)
		}
	}
}

// The run's heap goal stays where it was set as the live heap grows into
// it, down to a floor of headroom, which then carries the goal up.
func TestKeptGCPercent(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		live, goal, gap uint64
		prev            int
		wantGoal        uint64 // bytes
		wantPct         int
	}{
		{22 * mib, 30 * mib, 0, 100, 30 * mib, 36},          // the goal kept: 8 MiB of headroom
		{19 * mib, 30 * mib, 0, 100, 30 * mib, 58},          // as set
		{30 * mib, 30 * mib, 0, 100, 38 * mib, 27},          // the floor: 20% + 2 MiB
		{2 * mib, 6 * mib, 0, 100, 6 * mib, 100},            // never above the setting before
		{300 * mib, 280 * mib, 0, 100, 362 * mib, 21},       // a heap that keeps growing
		{0, 28 * mib, 0, 100, 28 * mib, 100},                // nothing read
		{22 * mib, 30 * mib, 1 * mib, 100, 30 * mib, 36},    // a soak's garbage: the goal kept
		{17 * mib, 27 * mib, 12 * mib, 100, 29 * mib, 71},   // a second of garbage at least
		{17 * mib, 27 * mib, 40 * mib, 100, 57 * mib, 100},  // but never above the setting before
		{100 * mib, 150 * mib, 8 * mib, 100, 150 * mib, 50}, // a floor below the goal: kept
	}
	for _, tt := range tests {
		goal, pct := keptGCPercent(tt.live, tt.goal, tt.gap, tt.prev)
		if goal != tt.wantGoal || pct != tt.wantPct {
			t.Errorf("keptGCPercent(%d MiB, %d MiB, %d MiB, %d) = %d MiB, %d; want %d MiB, %d",
				tt.live/mib, tt.goal/mib, tt.gap/mib, tt.prev, goal>>20, pct, tt.wantGoal>>20, tt.wantPct)
		}
	}
}

func gcPercent() int64 {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// gcTest records the GC percent while its workers are created and while
// they run.
func gcTest(atInit, atRun *atomic.Int64) *hookTest {
	return &hookTest{
		onNewWorker: func() { atInit.Store(gcPercent()) },
		onEvent:     func() { atRun.Store(gcPercent()) },
	}
}

// Workers are created with less GC headroom; a run with a small heap has
// the setting from before, which is restored after the run.
func TestGCPolicy(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT is set in the environment, which the engine leaves alone")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(80))
	var atInit, atRun atomic.Int64
	if err := runToEnd(context.Background(), gcTest(&atInit, &atRun), Config{Threads: 2, Events: 10, ForcedShutdown: -1}, logging.Discard()); err != nil {
		t.Fatal(err)
	}
	if got := atInit.Load(); got != initGCPercent {
		t.Errorf("GC percent %d while workers are created, want %d", got, initGCPercent)
	}
	if got := atRun.Load(); got != 80 {
		t.Errorf("GC percent %d during the run, want 80", got)
	}
	if got := gcPercent(); got != 80 {
		t.Errorf("GC percent %d after the run, want 80", got)
	}
	// Collection off (or as low as the initialisation setting): left alone.
	debug.SetGCPercent(10)
	atInit.Store(0)
	atRun.Store(0)
	if err := runToEnd(context.Background(), gcTest(&atInit, &atRun), Config{Threads: 1, Events: 10, ForcedShutdown: -1}, logging.Discard()); err != nil {
		t.Fatal(err)
	}
	if a, b := atInit.Load(), atRun.Load(); a != 10 || b != 10 || gcPercent() != 10 {
		t.Errorf("GOGC=10 before the run: %d at init, %d during the run, %d after", a, b, gcPercent())
	}
}

func TestScriptGCPercent(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		live uint64
		base int
		want int
	}{
		{0, 100, 100},         // nothing read yet
		{2 * mib, 100, 400},   // a script's heap: 16 MiB of headroom, at most 400%
		{8 * mib, 100, 200},   // 16 MiB of headroom
		{16 * mib, 100, 100},  // from 16 MiB live on, the default
		{512 * mib, 100, 100}, // never less than before
		{2 * mib, 50, 400},    // a lower setting before is raised too
		{2 * mib, 800, 800},   // a higher one kept
	}
	for _, tt := range tests {
		if got := scriptGCPercent(tt.live, tt.base); got != tt.want {
			t.Errorf("scriptGCPercent(%d MiB, %d) = %d, want %d", tt.live/mib, tt.base, got, tt.want)
		}
	}
}

// Outside a run the collector has the script's headroom; a run's policy
// starts from the setting before it and hands back to it after.
func TestScriptHeadroomAroundRun(t *testing.T) {
	if gcFromEnv() {
		t.Skip("GOGC or GOMEMLIMIT is set in the environment, which the engine leaves alone")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	KeepScriptHeadroom()
	defer scriptHeap.stop()
	want := int64(scriptGCPercent(liveHeap(), 100))
	if want <= 100 {
		t.Skipf("the test's live heap (%d KiB) leaves no headroom to add", liveHeap()>>10)
	}
	if got := gcPercent(); got < 200 {
		t.Fatalf("GC percent %d outside a run with %d KiB live, want at least 200", got, liveHeap()>>10)
	}
	var atInit, atRun atomic.Int64
	if err := runToEnd(context.Background(), gcTest(&atInit, &atRun), Config{Threads: 2, Events: 10, ForcedShutdown: -1}, logging.Discard()); err != nil {
		t.Fatal(err)
	}
	if got := atInit.Load(); got != initGCPercent {
		t.Errorf("GC percent %d while workers are created, want %d", got, initGCPercent)
	}
	if got := atRun.Load(); got != 100 {
		t.Errorf("GC percent %d during a small run, want the setting before the script's headroom, 100", got)
	}
	if got := gcPercent(); got < 200 {
		t.Errorf("GC percent %d after the run, want the script's headroom back (at least 200)", got)
	}
	scriptHeap.stop()
	if got := gcPercent(); got != 100 {
		t.Errorf("GC percent %d after stop, want 100", got)
	}
}

// During a run the memory limit sits just above the heap goal and the
// runtime's other memory, so the scavenger keeps the heap at its goal
// without the limit triggering collections; the limit from before the
// run is restored after it.
func TestRunMemoryLimit(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT is set in the environment, which the engine leaves alone")
	}
	before := debug.SetMemoryLimit(-1)
	var limit, goal atomic.Int64
	p := &hookTest{onEvent: func() {
		limit.Store(debug.SetMemoryLimit(-1))
		goal.Store(int64(runtimeUint64("/gc/heap/goal:bytes")))
	}}
	if err := runToEnd(context.Background(), p, Config{Threads: 2, Events: 100, ForcedShutdown: -1}, logging.Discard()); err != nil {
		t.Fatal(err)
	}
	l, g := limit.Load(), goal.Load()
	if l == before || l <= g {
		t.Errorf("memory limit %d during the run (heap goal %d, %d before): want one above the goal", l, g, before)
	}
	if l > g+g/2+64<<20 {
		t.Errorf("memory limit %d during the run is far above the heap goal %d: the scavenger would not act", l, g)
	}
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("memory limit %d after the run, want %d", got, before)
	}
}

// The run's memory limit never lowers the heap goal below the GC
// percent's, whatever the heap's spans hold unused: a limit derived from
// the runtime's reported goal (which the limit itself lowers) ratcheted
// down over a soak until the heap was collected at its live size, 20
// times a second. Here a fragmented heap (a quarter of its small objects
// kept) is churned while the limit is re-set as the run's watcher does.
func TestRunMemoryLimitDoesNotBind(t *testing.T) {
	if gcFromEnv() {
		t.Skip("GOGC or GOMEMLIMIT is set in the environment, which the engine leaves alone")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	const n = 1 << 18
	all := make([]*[48]byte, n)
	for i := range all {
		all[i] = new([48]byte)
	}
	kept := make([]*[48]byte, 0, n/4)
	for i := 0; i < n; i += 4 {
		kept = append(kept, all[i])
	}
	all = nil
	big := make([][]byte, 16) // live data beside the fragments
	for i := range big {
		big[i] = make([]byte, 1<<20)
	}
	p := startGCPolicy()
	defer p.restore()
	if !p.active {
		t.Fatal("the run's GC policy did not take the collector")
	}
	p.collectStartUp()
	p.pct = runGCPercent(liveHeap(), p.prev)
	debug.SetGCPercent(p.pct)
	var sink []byte
	for i := 0; i < 200; i++ {
		for j := 0; j < 64; j++ {
			sink = make([]byte, 4096)
		}
		keepRetained(t, p)
	}
	_ = sink
	// The churn outruns the background scavenger, whose free pages would
	// put the heap over any limit for a while; a run's 0.2 MB/s does not.
	debug.FreeOSMemory()
	want := keepRetained(t, p).goal(p.pct)
	got := runtimeUint64("/gc/heap/goal:bytes")
	unused := runtimeUint64("/memory/classes/heap/unused:bytes")
	if p.limit == 0 {
		t.Fatalf("no memory limit set (heap goal %d)", got)
	}
	if got < want-want/100 {
		t.Errorf("heap goal %d KiB under the memory limit %d KiB, want the GC percent's %d KiB (%d KiB unused in the heap's spans)",
			got>>10, p.limit>>10, want>>10, unused>>10)
	}
	runtime.KeepAlive(kept)
	runtime.KeepAlive(big)
}

// keepRetained re-sets the run's memory limit as the watcher does, and
// returns the runtime's state it was set from.
func keepRetained(t *testing.T, p *gcPolicy) heapState {
	t.Helper()
	h, ok := readHeapState()
	if !ok {
		t.Skip("the runtime lacks one of the metrics the limit is computed from")
	}
	p.keepRetained(h)
	return h
}

// A run that allocates slowly is collected at half of its headroom from
// the start; one that fills its headroom within 20 watcher ticks is left
// to the runtime's pacer.
func TestCollectEarly(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		live, since, goal, tick uint64
		want                    bool
	}{
		{22 * mib, 4 * mib, 29 * mib, mib / 4, true},         // a soak at half of 7 MiB
		{22 * mib, 3 * mib, 29 * mib, mib / 4, false},        // not yet
		{22 * mib, 4 * mib, 29 * mib, mib / 2, false},        // fills the headroom in 14 ticks: the pacer's
		{17 * mib, 30 * mib, 57 * mib, 40 * mib, false},      // a dry run
		{22 * mib, 8 * mib, 22 * mib, 0, false},              // no headroom to speak of
		{2 * mib, 2 * mib, 6 * mib, 100 << 10, true},         // a small heap too
		{100 * mib, 20 * mib, 150 * mib, 2 * mib, false},     // 40% of 50 MiB
		{100 * mib, 25 * mib, 150 * mib, 2 * mib, true},      // half of 50 MiB
		{100 * mib, 25 * mib, 150 * mib, 5 * mib / 2, false}, // exactly 1/20: the pacer's
	}
	for _, tt := range tests {
		if got := collectEarly(tt.live, tt.since, tt.goal, tt.tick); got != tt.want {
			t.Errorf("collectEarly(live %d KiB, since %d KiB, goal %d KiB, tick %d KiB) = %v, want %v",
				tt.live>>10, tt.since>>10, tt.goal>>10, tt.tick>>10, got, tt.want)
		}
	}
}
