package drivers

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sysbench-go/sysbench-go/internal/allocs"
)

// Without --query-timeout the drivers' calls pay nothing for it: no
// timer, no context, no allocation.
func TestNoQueryTimeoutCostsNothing(t *testing.T) {
	q := NewQueryTimer(0, func() { t.Error("expired without a timeout") })
	if q != nil {
		t.Fatal("a timer without a timeout")
	}
	ctx := context.Background()
	if n := allocs.PerRun(100, func() {
		q.Start()
		q.Stop()
		_ = q.Expired()
		bctx, cancel := WithQueryTimeout(ctx, 0)
		if bctx != ctx {
			t.Fatal("a new context without a timeout")
		}
		cancel()
	}); n != 0 {
		t.Errorf("%v allocations per call without a timeout", n)
	}
}

// A call that outlives the timeout is expired once; one that ends in time
// is not, and the timer is reused call after call without allocating.
func TestQueryTimer(t *testing.T) {
	var fired atomic.Int32
	q := NewQueryTimer(30*time.Millisecond, func() { fired.Add(1) })
	if n := allocs.PerRun(100, func() { q.Start(); q.Stop() }); n != 0 {
		t.Errorf("%v allocations per call", n)
	}
	if q.Expired() || fired.Load() != 0 {
		t.Fatal("expired by calls that ended in time")
	}
	q.Start()
	deadline := time.Now().Add(5 * time.Second)
	for fired.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	q.Stop()
	if fired.Load() != 1 || !q.Expired() {
		t.Fatalf("fired %d times, expired %v; want once", fired.Load(), q.Expired())
	}
	q.Clear()
	if q.Expired() {
		t.Error("still expired after Clear")
	}
	if e := TimeoutError(q.Timeout(), "PQexec()", "SELECT 1"); e.CodeName() != QueryTimeoutState {
		t.Errorf("the timeout's error is counted as %q", e.CodeName())
	}
}

// A timer that fires as its call ends in time must not interrupt what
// the connection does after Stop: either it interrupts the call it was
// started for, before Stop returns, or it does nothing. Calls here end
// from just before the timeout to well after it (a busy machine's timers
// are late), so the timer often fires as Stop runs.
func TestQueryTimerNeverExpiresAfterStop(t *testing.T) {
	t.Parallel()
	const d = 200 * time.Microsecond
	var stopped atomic.Bool
	var late, fired atomic.Int32
	q := NewQueryTimer(d, func() {
		fired.Add(1)
		if stopped.Load() {
			late.Add(1)
		}
	})
	for i := 0; i < 1500; i++ {
		stopped.Store(false)
		q.Start()
		// End the call a little before, at or after the timeout, up to
		// 2.4 ms after it.
		end := time.Now().Add(d - 50*time.Microsecond + time.Duration(i%100)*time.Duration(i%100)*250*time.Nanosecond)
		for time.Now().Before(end) {
		}
		q.Stop()
		stopped.Store(true)
		// What the connection does next: the window a late timer hits.
		for end := time.Now().Add(20 * time.Microsecond); time.Now().Before(end); {
		}
	}
	if late.Load() != 0 {
		t.Errorf("the timer interrupted the connection %d times after its call ended (fired %d times)", late.Load(), fired.Load())
	}
	if fired.Load() == 0 {
		t.Error("no call outlived the timeout: the test did not exercise the race")
	}
}
