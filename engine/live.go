package engine

import "github.com/sysbench-go/sysbench-go/metrics"

// LiveView is the running benchmark as an observer sees it between
// reports (--metrics-addr): safe to call from any goroutine.
type LiveView interface {
	// Totals is everything measured since the workers started, the
	// warm-up included: counters only grow. It is the caller's to keep.
	Totals() *metrics.Snapshot
	// ThreadsRunning is how many workers are still running.
	ThreadsRunning() int
}

type liveView struct{ r *runState }

func (v liveView) Totals() *metrics.Snapshot {
	r := v.r
	r.repMu.Lock()
	defer r.repMu.Unlock()
	r.tick(r.now())
	return r.lifetime.Snapshot()
}

func (v liveView) ThreadsRunning() int { return int(v.r.threadsRun.Load()) }

// addLifetime adds what the workers recorded since the last tick to the
// lifetime window, when an observer reads it. Caller holds repMu.
func (r *runState) addLifetime(d *metrics.Snapshot) {
	if r.lifetime != nil {
		r.lifetime.Add(d)
	}
}
