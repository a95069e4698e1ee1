package engine

import (
	"context"
	"os"
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
