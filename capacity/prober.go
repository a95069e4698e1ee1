package capacity

import (
	"context"
	"time"

	"github.com/sysbench-go/sysbench-go/metrics"
)

// Load is what one probe offers the server.
type Load struct {
	// Rate is the arrivals per second (the open model); 0 runs the closed
	// model, each worker starting its next event when its last ends.
	Rate float64
	// Threads is the workers: in the open model the most events in
	// flight, in the closed model the concurrency.
	Threads int
	// Window is the measured window, after the warm-up.
	Window time.Duration
	// MaxWarmup bounds the warm-up, which ends once the throughput is
	// steady (--warmup-time=auto's detector), sampled every Sample.
	MaxWarmup time.Duration
	Sample    time.Duration
}

// Measure is what a probe measured.
type Measure struct {
	// Window is the measured window: counters, latencies and their
	// histogram (latency from each arrival in the open model).
	Window *metrics.Snapshot
	// Steady says the warm-up ended on a steady throughput, after
	// WarmupSeconds.
	Steady        bool
	WarmupSeconds float64
	// QueueGrowth is the arrivals waiting for a worker at the window's
	// end less at its start (open model).
	QueueGrowth int64
	// QueueFull says the arrivals overflowed the queue and ended the run
	// early: the server was far behind.
	QueueFull bool
}

// Prober runs the workload at a load until steady and measures a window.
// An error is the workload's failure (or the context's end), not a load
// the server could not take.
type Prober interface {
	Probe(ctx context.Context, l Load) (*Measure, error)
}
