package engine

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"
)

// TestExitCodes: each way a run or command ends has its own status; a
// signal's is the shell's 128 + its number, also through wrapping, and
// only a context that a signal ended names one.
func TestExitCodes(t *testing.T) {
	for _, c := range []struct {
		err  error
		code int
	}{
		{nil, 0},
		{errors.New("boom"), 1},
		{ErrForcedShutdown, 2},
		{&Interrupt{Signal: syscall.SIGINT}, 130},
		{&Interrupt{Signal: syscall.SIGTERM}, 143},
		{fmt.Errorf("prepare: %w", &Interrupt{Signal: syscall.SIGPIPE}), 141},
	} {
		if got := ExitCode(c.err); got != c.code {
			t.Errorf("ExitCode(%v) = %d, want %d", c.err, got, c.code)
		}
	}
	if n := (&Interrupt{Signal: syscall.SIGTERM}).Name(); n != "SIGTERM" {
		t.Errorf("name %q, want SIGTERM", n)
	}

	ctx, cancel := context.WithCancelCause(context.Background())
	if Interrupted(ctx) != nil {
		t.Error("a running context is not interrupted")
	}
	cancel(&Interrupt{Signal: syscall.SIGINT})
	if in := Interrupted(ctx); in == nil || in.Signal != syscall.SIGINT {
		t.Errorf("Interrupted = %v, want SIGINT", in)
	}
	plain, stop := context.WithCancel(context.Background())
	stop()
	if Interrupted(plain) != nil {
		t.Error("a context cancelled without a signal named one")
	}
}
