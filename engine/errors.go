package engine

import "errors"

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

// ExitCode is the process exit status for err: 0 for nil, the status an
// error carries (2 for a forced shutdown), else 1.
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	var e *exitError
	if errors.As(err, &e) {
		return e.code
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
