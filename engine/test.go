package engine

import (
	"context"
	"errors"
	"io"

	"github.com/sysbench-go/sysbench-go/logging"
	"github.com/sysbench-go/sysbench-go/metrics"
	"github.com/sysbench-go/sysbench-go/options"
	"github.com/sysbench-go/sysbench-go/report"
)

// ErrUnknownCommand is returned by Test.Command for a command the test does
// not implement.
var ErrUnknownCommand = errors.New("unknown command")

// Test is a benchmark the engine can run: a Lua script or a built-in test.
type Test interface {
	// Name is the test name as given on the command line.
	Name() string
	// PrintMode writes the test's own lines after the run-mode header
	// (the built-in cpu test prints "Prime numbers limit: 10000").
	PrintMode(w io.Writer)
	// Init runs once before the workers start (Lua's init()).
	Init(ctx context.Context) error
	// NewWorker creates the worker for thread tid. It is called on the
	// worker's own goroutine; the worker must record its statistics in st.
	NewWorker(ctx context.Context, tid int, st *metrics.Handle) (Worker, error)
	// Done runs once after all workers have finished (Lua's done()).
	Done(ctx context.Context) error
	// The test's own text for reports (report.Text prints the default
	// where it returns false).
	report.Hooks
}

// Worker runs events on one goroutine.
type Worker interface {
	// Init is thread_init.
	Init(ctx context.Context) error
	// Event executes one event. The engine times it and counts it. A true
	// stop ends this worker's loop (a Lua event() that returns a value).
	Event(ctx context.Context) (stop bool, err error)
	// Done is thread_done.
	Done(ctx context.Context) error
	// Close releases the worker's resources; it is called even after a
	// failed Init.
	Close()
}

// LoopRunner is implemented by a worker that runs its own event loop
// (a Lua script that defines thread_run). It drives the Loop itself:
// More before each event, Start and Stop around it.
type LoopRunner interface {
	RunLoop(ctx context.Context, l *Loop) error
}

// Commander is implemented by tests that have commands other than "run"
// (prepare, cleanup, help, custom Lua commands).
type Commander interface {
	// Command runs a command; ErrUnknownCommand if the test lacks it.
	Command(ctx context.Context, name string, out io.Writer) error
}

// Env is what a test is given when it is created: the parsed options and
// the run's general settings.
type Env struct {
	Values   *options.Values
	Threads  int
	Validate bool  // --validate
	RandSeed int64 // --rand-seed (0: from the clock)
	// Log is the run's logger: tests print their INFO and DEBUG messages
	// through it.
	Log *logging.Logger
}

// Builtin declares a compiled-in test (cpu, memory, threads, mutex, fileio).
type Builtin struct {
	Name        string // "cpu"
	Description string // "CPU performance test"
	Options     []options.Option
	New         func(env *Env) (Test, error)
}

// Preparer is implemented by tests that set up after the run-mode header
// is printed and before the workers start (the reference's prepare step,
// e.g. fileio opening its files).
type Preparer interface {
	Prepare(ctx context.Context) error
}

// Rerunner is implemented by tests that keep the context their Init was
// given for the run's work (a Lua script's queries and its states'
// interrupt): a caller that runs such a test again without its Init (each
// step of a capacity search runs its init() once) gives it each new run's
// context with Rerun, so that the end of one run (its cut-off after
// --time) does not reach the next.
type Rerunner interface {
	Rerun(ctx context.Context)
}

// EventsOverrider is implemented by tests that decide the event limit
// themselves (memory ignores --events, as the reference does).
type EventsOverrider interface {
	EventsOverride() (uint64, bool)
}

// ReportsCloser is implemented by tests whose intermediate reports need
// closing before the final report (report_json's array, which the test
// prints where its hooks print): report.Text's BeforeFinal.
type ReportsCloser interface {
	CloseReports()
}
