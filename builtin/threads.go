package builtin

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/sysbench-go/sysbench-go/engine"
	"github.com/sysbench-go/sysbench-go/logging"
	"github.com/sysbench-go/sysbench-go/metrics"
	"github.com/sysbench-go/sysbench-go/options"
	"github.com/sysbench-go/sysbench-go/report"
)

func threadsOptions() []options.Option {
	return []options.Option{
		{Name: "thread-yields", Desc: "number of yields to do per request", Kind: options.Int, Default: "1000"},
		{Name: "thread-locks", Desc: "number of locks per thread", Kind: options.Int, Default: "8"},
	}
}

// paddedMutex keeps each lock on its own cache lines, as the reference
// pads its mutex array.
type paddedMutex struct {
	mu sync.Mutex
	n  uint64 // touched under mu so the critical section does some work
	_  [256]byte
}

// threadsTest measures the scheduler: each event takes one of
// --thread-locks mutexes (round robin over all events) and yields the
// processor --thread-yields times while holding it. As in the reference,
// every worker is an OS thread (runtime.LockOSThread) and a yield is the
// sched_yield system call: the kernel's scheduler is measured, not Go's
// (runtime.Gosched would be about ten times cheaper and measure nothing the
// reference does).
type threadsTest struct {
	baseTest
	yields int64
	locks  []paddedMutex
	next   atomic.Uint32
	log    *logging.Logger
}

var (
	_ engine.Test   = (*threadsTest)(nil)
	_ engine.Worker = (*threadsWorker)(nil)
)

func newThreads(env *engine.Env) (engine.Test, error) {
	r := newOptReader(env, threadsOptions())
	yields, err := r.int("thread-yields")
	if err != nil {
		return nil, err
	}
	locks, err := r.int("thread-locks")
	if err != nil {
		return nil, err
	}
	if yields < 0 {
		return nil, fmt.Errorf("Invalid value for thread-yields: %d", yields)
	}
	if locks <= 0 {
		// The reference divides by it and crashes.
		return nil, fmt.Errorf("Invalid value for thread-locks: %d", locks)
	}
	return &threadsTest{yields: yields, locks: make([]paddedMutex, locks), log: env.Log}, nil
}

func (t *threadsTest) Name() string { return "threads" }

func (t *threadsTest) PrintMode(w io.Writer) {
	t.log.Infof("Doing thread subsystem performance test")
	t.log.Infof("Thread yields per test: %d Locks used: %d", t.yields, len(t.locks))
}

func (t *threadsTest) NewWorker(ctx context.Context, tid int, st *metrics.Handle) (engine.Worker, error) {
	return &threadsWorker{t: t}, nil
}

func (t *threadsTest) ReportCumulative(w io.Writer, s *report.Stat) bool {
	report.WriteGeneralStatistics(w, s)
	return true
}

type threadsWorker struct {
	t      *threadsTest
	pinned bool
}

func (w *threadsWorker) Init(ctx context.Context) error {
	runtime.LockOSThread()
	w.pinned = true
	return nil
}

func (w *threadsWorker) Event(ctx context.Context) (bool, error) {
	l := &w.t.locks[(w.t.next.Add(1)-1)%uint32(len(w.t.locks))]
	for i := int64(0); i < w.t.yields; i++ {
		l.mu.Lock()
		l.n++
		schedYield()
		l.mu.Unlock()
	}
	return false, nil
}

func (w *threadsWorker) Done(ctx context.Context) error { return nil }

func (w *threadsWorker) Close() {
	if w.pinned {
		runtime.UnlockOSThread()
		w.pinned = false
	}
}
