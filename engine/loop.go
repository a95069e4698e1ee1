package engine

import (
	"context"
	"runtime"
	"runtime/trace"
	"time"

	"github.com/sysbench-go/sysbench-go/metrics"
)

// Loop is a worker's view of the run: whether to go on, and the event
// timer. The default loop and a script's own thread_run both drive it.
type Loop struct {
	run *runState
	st  *metrics.Handle
	ctx context.Context

	startNS int64 // monotonic start of the running event, 0 when idle
	queueNS int64 // --rate: time the event waited in the queue

	// region is the running event's in an execution trace
	// (SYSBENCH_GO_TRACE), nil when none is being written.
	region *trace.Region

	// --rate waits (rate.go)
	holdThread bool
	timer      *time.Timer
	sl         *sleeper
}

// More reports whether the worker should run another event: no failure,
// no stop request, time and event limits not reached, and with --rate the
// next arrival, waited for if it is still to come.
//
// Workers that wait on the netpoller and outnumber the processors first
// go to the back of the scheduler's queue. Go looks at the network only
// when a processor runs out of goroutines to run, or every 10 ms from
// sysmon; a worker whose reply is already in the socket when it reads
// never parks, and runs event after event until it is preempted, while
// the replies of the parked ones wait to be noticed. Their events then
// carry that wait: at 8 and at 1000 PostgreSQL point-select workers on
// 2 CPUs, p99 2.5-3.6 and p95 1.1-1.8 times sysbench's. Taking turns per
// event, as the kernel gives sysbench's threads, brings both to sysbench's
// or below, and every worker keeps its query in flight, as a user who asks
// for 1000 threads expects (docs/performance-history.md, run 10).
func (l *Loop) More() bool {
	r := l.run
	if r.yield {
		runtime.Gosched()
	}
	if r.stopped.Load() {
		return false
	}
	deadline := r.deadline.Load()
	// The deadline is checked on a fresh clock reading before every
	// event, as the reference checks its own: on a VM a reading costs
	// about as much as a 1 KiB memory event's work, so the built-in
	// tests' scores compare with the reference's only when the loop
	// around an event reads the clock as often as the reference's does
	// (docs/builtin-tests.md).
	if deadline > 0 {
		if r.now() >= deadline && !r.warmupLate() {
			r.log.Infof("Time limit exceeded, exiting...")
			return false
		}
	}
	if r.cfg.Events > 0 && r.nevents.Add(1) > r.cfg.Events {
		r.log.Infof("Event limit exceeded, exiting...")
		return false
	}
	if r.rate != nil {
		t := r.rate.take()
		if deadline > 0 && t >= deadline && !r.warmupLate() {
			// No more events in this run: wait for its end, as the
			// reference's workers wait on an empty queue.
			if l.await(deadline) {
				r.log.Infof("Time limit exceeded, exiting...")
			}
			return false
		}
		if t > r.now() {
			// Free before the event arrives: it starts when it arrives.
			if !l.await(t) {
				return false
			}
			l.queueNS = 0
		} else {
			// The event waited for a free worker.
			l.queueNS = r.now() - t
		}
		r.concurrency.Add(1)
	}
	return true
}

// Start starts the event timer.
func (l *Loop) Start() {
	if trace.IsEnabled() {
		l.region = trace.StartRegion(l.ctx, "event")
	}
	l.startNS = l.run.now()
	l.st.Started(l.startNS)
}

// endRegion ends the event's trace region, if any.
func (l *Loop) endRegion() {
	if l.region != nil {
		l.region.End()
		l.region = nil
	}
}

// Stop stops the event timer and counts the event.
func (l *Loop) Stop() {
	if l.startNS == 0 {
		return
	}
	now := l.run.now()
	ns := now - l.startNS + l.queueNS
	l.endRegion()
	l.startNS, l.queueNS = 0, 0
	l.st.RecordEventAt(ns, now)
	if l.run.rate != nil {
		l.run.concurrency.Add(-1)
	}
}

// Abandon forgets a started event without counting it (an event() that
// asked to stop the run).
func (l *Loop) Abandon() {
	if l.startNS != 0 && l.run.rate != nil {
		l.run.concurrency.Add(-1)
	}
	l.endRegion()
	l.startNS, l.queueNS = 0, 0
	l.st.SetRunning(false)
}

// Context is the worker's context; it is cancelled on a forced shutdown.
func (l *Loop) Context() context.Context { return l.ctx }

// Stats is the worker's statistics handle.
func (l *Loop) Stats() *metrics.Handle { return l.st }
