package luaapi

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadClock reads the CPU time of the calling goroutine's thread, which
// the goroutine must keep (runtime.LockOSThread), from any goroutine.
type threadClock struct{ id int32 }

// newThreadClock is the clock of the calling thread.
func newThreadClock() threadClock {
	// The kernel's per-thread CPU clock of a thread id: its bits
	// complemented, shifted past the clock type (CPUCLOCK_SCHED with the
	// per-thread flag).
	return threadClock{int32(^uint32(unix.Gettid())<<3 | 6)}
}

// used is the CPU time the thread has run; ok is false when the kernel
// cannot tell.
func (c threadClock) used() (d time.Duration, ok bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(c.id, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
