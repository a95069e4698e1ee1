//go:build !linux

package engine

import "time"

// sleeper falls back to Go's timers where there is no timerfd.
type sleeper struct{}

func newSleeper() *sleeper { return &sleeper{} }

func (s *sleeper) sleep(d time.Duration) bool { time.Sleep(d); return true }

func (s *sleeper) close() {}

// sleepThread falls back to Go's timers.
func sleepThread(d time.Duration) { time.Sleep(d) }
