//go:build !linux

package luaapi

import "time"

// threadClock stands in for a thread's CPU clock where there is none to
// read: used says so, and the budget is the wall clock's.
type threadClock struct{}

func newThreadClock() threadClock { return threadClock{} }

func (threadClock) used() (time.Duration, bool) { return 0, false }
