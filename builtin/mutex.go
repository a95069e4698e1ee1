package builtin

import (
	"context"
	"fmt"
	"io"
	"runtime"

	"github.com/sysbench-go/sysbench-go/engine"
	"github.com/sysbench-go/sysbench-go/logging"
	"github.com/sysbench-go/sysbench-go/metrics"
	"github.com/sysbench-go/sysbench-go/options"
	"github.com/sysbench-go/sysbench-go/report"
	"github.com/sysbench-go/sysbench-go/sbrand"
)

func mutexOptions() []options.Option {
	return []options.Option{
		{Name: "mutex-num", Desc: "total size of mutex array", Kind: options.Int, Default: "4096"},
		{Name: "mutex-locks", Desc: "number of mutex locks to do per thread", Kind: options.Int, Default: "50000"},
		{Name: "mutex-loops", Desc: "number of empty loops to do outside mutex lock", Kind: options.Int, Default: "10000"},
	}
}

// mutexTest runs exactly one event per thread: --mutex-locks times, spin
// --mutex-loops empty iterations, then take and release a random mutex of
// the --mutex-num array. Workers are pinned to OS threads as in threads.
type mutexTest struct {
	baseTest
	locks  []paddedMutex
	nlocks int64
	loops  int64
	seed   int64
	log    *logging.Logger
}

var (
	_ engine.Test   = (*mutexTest)(nil)
	_ engine.Worker = (*mutexWorker)(nil)
)

func newMutex(env *engine.Env) (engine.Test, error) {
	r := newOptReader(env, mutexOptions())
	num, err := r.int("mutex-num")
	if err != nil {
		return nil, err
	}
	locks, err := r.int("mutex-locks")
	if err != nil {
		return nil, err
	}
	loops, err := r.int("mutex-loops")
	if err != nil {
		return nil, err
	}
	// The reference takes these as unsigned and misbehaves on zero or
	// negative values (out-of-bounds locks, 2^32 iterations).
	switch {
	case num <= 0:
		return nil, fmt.Errorf("Invalid value for mutex-num: %d", num)
	case locks < 0:
		return nil, fmt.Errorf("Invalid value for mutex-locks: %d", locks)
	case loops < 0:
		return nil, fmt.Errorf("Invalid value for mutex-loops: %d", loops)
	}
	return &mutexTest{locks: make([]paddedMutex, num), nlocks: locks, loops: loops,
		seed: env.RandSeed, log: env.Log}, nil
}

func (t *mutexTest) Name() string { return "mutex" }

func (t *mutexTest) PrintMode(w io.Writer) {
	t.log.Infof("Doing mutex performance test")
}

func (t *mutexTest) NewWorker(ctx context.Context, tid int, st *metrics.Handle) (engine.Worker, error) {
	return &mutexWorker{t: t, rng: sbrand.NewThread(t.seed, tid), loops: t.loops}, nil
}

func (t *mutexTest) ReportCumulative(w io.Writer, s *report.Stat) bool {
	report.WriteGeneralStatistics(w, s)
	return true
}

type mutexWorker struct {
	t *mutexTest
	// loops is read at every turn of the spin, as the reference reads its
	// event's count, from a cache line of the worker's own: read from the
	// test, shared by the threads, it made two threads' spins 60% slower.
	loops  int64
	rng    *sbrand.Rand
	done   bool
	pinned bool
	_      [96]byte // to 128 bytes, a size class whose objects own their lines
}

func (w *mutexWorker) Init(ctx context.Context) error {
	runtime.LockOSThread()
	w.pinned = true
	return nil
}

func (w *mutexWorker) Event(ctx context.Context) (bool, error) {
	if w.done {
		return true, nil
	}
	w.done = true
	t := w.t
	last := int64(len(t.locks) - 1)
	// At least one lock, as the reference's do-while.
	for left := t.nlocks; ; {
		l := &t.locks[w.rng.Uniform(0, last)]
		for i := int64(0); i < w.loops; i++ {
		}
		l.mu.Lock()
		l.n++
		l.mu.Unlock()
		if left--; left <= 0 {
			break
		}
	}
	return false, nil
}

func (w *mutexWorker) Done(ctx context.Context) error { return nil }

func (w *mutexWorker) Close() {
	if w.pinned {
		runtime.UnlockOSThread()
		w.pinned = false
	}
}
