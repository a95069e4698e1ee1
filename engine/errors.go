package engine

import (
	"context"
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// Errors end a run or a command; main prints each as FATAL lines, once,
// and maps it to the exit status with ExitCode.

// ErrThreadInit follows the error of a worker that failed to initialize.
var ErrThreadInit = errors.New("Thread initialization failed!")

// ErrQueueFull ends a --rate run whose workers cannot keep up.
var ErrQueueFull = errors.New("The event queue is full. This means the worker threads are unable to keep up with the specified event generation rate")

// ErrEventFailed is what a worker's Event returns for an event given up
// after --max-tries tries: the engine counts no latency for it and goes on
// with the next event.
var ErrEventFailed = errors.New("event failed after its last try")

// ErrForcedShutdown ends a run that outlived --time by --forced-shutdown.
var ErrForcedShutdown = &exitError{err: errors.New("The --max-time limit has expired, forcing shutdown..."), code: 2}

type exitError struct {
	err  error
	code int
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// Interrupt is the cause of a run or command stopped by a signal: main
// cancels the program's context with it (context.Cause), so that whoever
// sees the context end knows which signal ended it. Its exit status is
// 128 + the signal's number, as a shell reports a process the signal
// killed: 130 for SIGINT, 143 for SIGTERM.
type Interrupt struct{ Signal syscall.Signal }

func (e *Interrupt) Error() string { return "interrupted by " + e.Name() }

// Name is the signal's name: "SIGINT".
func (e *Interrupt) Name() string {
	if n := unix.SignalName(e.Signal); n != "" {
		return n
	}
	return e.Signal.String()
}

// ExitCode is 128 + the signal's number.
func (e *Interrupt) ExitCode() int { return 128 + int(e.Signal) }

// Interrupted is the signal that ended ctx, nil when ctx is not done or
// ended otherwise.
func Interrupted(ctx context.Context) *Interrupt {
	if ctx.Err() == nil {
		return nil
	}
	var in *Interrupt
	if errors.As(context.Cause(ctx), &in) {
		return in
	}
	return nil
}

// ExitCode is the process exit status for err: 0 for nil, the status an
// error carries (2 for a forced shutdown, 128 + the signal's number for an
// Interrupt), else 1.
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	var e *exitError
	if errors.As(err, &e) {
		return e.code
	}
	var in *Interrupt
	if errors.As(err, &in) {
		return in.ExitCode()
	}
	return 1
}

// Quiet wraps an error the reference prints nothing for (a command that
// returned false): only the exit status says it failed.
func Quiet(err error) error { return quietError{err} }

type quietError struct{ error }

func (e quietError) Unwrap() error { return e.error }

// IsQuiet reports whether err is to be left unprinted.
func IsQuiet(err error) bool {
	var q quietError
	return errors.As(err, &q)
}

// Leaves are the errors err is made of (errors.Join), in order: each is
// one FATAL message.
func Leaves(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, Leaves(e)...)
		}
		return out
	}
	return []error{err}
}
