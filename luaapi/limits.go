package luaapi

import (
	"context"
	"errors"
	"sync"

	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/engine"
)

// StatementRoom refuses, before the first event, a run whose threads
// would prepare more statements than the server has room for (MySQL's
// max_prepared_stmt_count). How many one thread prepares is known once a
// thread_init has run: the first thread's runs alone, the others wait for
// its count, and every thread is assumed to prepare as many.
type StatementRoom struct {
	Limit   drivers.Limit
	Threads int
	// Refusal words the refusal of need statements by threads preparing
	// each of them (a FATAL line without its prefix).
	Refusal func(need, each int64) string

	counted chan struct{} // closed once the first thread has counted
	once    sync.Once
	refused bool
}

// settle lets the threads waiting for the first one's count go on, to
// their own thread_init, or, refused, to their end.
func (r *StatementRoom) settle(refused bool) {
	r.once.Do(func() {
		r.refused = refused
		close(r.counted)
	})
}

// NewStatementRoom is the room limit leaves for a run of threads.
func NewStatementRoom(limit drivers.Limit, threads int, refusal func(need, each int64) string) *StatementRoom {
	return &StatementRoom{Limit: limit, Threads: threads, Refusal: refusal, counted: make(chan struct{})}
}

// RefusedError is a run refused because it cannot succeed: one line that
// names the setting, printed alone.
type RefusedError struct{ Msg string }

func (e *RefusedError) Error() string { return e.Msg }

// errRefusedElsewhere is what the threads waiting for the first one's
// count return when it refused the run: it says nothing more.
var errRefusedElsewhere = engine.Quiet(errors.New("the run was refused"))

// threadInit runs thread_init (init) under the room's check.
func (r *StatementRoom) threadInit(ctx context.Context, rt *runtime, init func() error) error {
	if rt.tid != 0 {
		select {
		case <-r.counted:
		case <-ctx.Done():
			return ctx.Err()
		}
		if r.refused {
			return errRefusedElsewhere
		}
		return init()
	}
	if err := init(); err != nil {
		r.settle(true) // the others would fail as it did
		return err
	}
	var each int64
	for _, c := range rt.conns {
		if !c.closed {
			each += int64(len(c.stmts))
		}
	}
	if need := each * int64(r.Threads); need > r.Limit.Free() {
		r.settle(true)
		return &RefusedError{Msg: r.Refusal(need, each)}
	}
	r.settle(false)
	return nil
}

// ParallelCommand reports whether the script's command runs once per
// thread (each with its connection).
func (s *Script) ParallelCommand(name string) bool { return s.commandParallel(name) }

// abandon is called for a thread that failed before its thread_init: when
// it is the first, the others wait for its count no longer.
func (r *StatementRoom) abandon(tid int) {
	if r != nil && tid == 0 {
		r.settle(true)
	}
}
