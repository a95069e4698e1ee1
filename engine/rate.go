package engine

import (
	"runtime"
	"sync"
	"time"
)

// rateSchedule is the --rate arrival process: exponential gaps drawn in
// order from one seeded generator. There is no generator goroutine and no
// queue to hand events through: a worker that is free takes the next
// arrival and, if it lies in the future, sleeps until it on its own thread.
// Handing each event from a generator to a worker costs a thread wake-up,
// a processor hand-off and a migration per event; at low load, where the
// process goes idle between events, that made every query ~100 µs slower
// than the same query in a closed loop (perf stat: 4.8 context switches
// and 1 CPU migration per event, against the reference's 2.7 and 0.05).
//
// Arrivals nobody has taken yet are the queue: drawn on demand up to the
// present by whoever asks for the queue length (the reporter, the overflow
// watch), and kept, oldest first, until a worker takes them.
type rateSchedule struct {
	mu      sync.Mutex
	gen     *expGen
	mean    float64 // ns between arrivals on average
	last    int64   // the latest arrival drawn
	pending []int64 // drawn but not taken, oldest first
}

func newRateSchedule(rate float64, seed int64, start int64) *rateSchedule {
	return &rateSchedule{gen: newExpGen(seed), mean: 1e9 / rate, last: start}
}

func (s *rateSchedule) draw() int64 {
	s.last += int64(s.gen.exp(s.mean))
	return s.last
}

// take hands out the next arrival.
func (s *rateSchedule) take() int64 {
	s.mu.Lock()
	var t int64
	if len(s.pending) > 0 {
		t = s.pending[0]
		s.pending = s.pending[1:]
	} else {
		t = s.draw()
	}
	s.mu.Unlock()
	return t
}

// backlog is the number of arrivals up to now that no worker has taken,
// counted up to one more than the queue holds: past that the run fails
// anyway, and drawing every arrival of a long stall (ten million a second
// at a high --rate, more than a busy machine draws in a second) would keep
// the overflow from ever being seen.
func (s *rateSchedule) backlog(now int64) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	for (len(s.pending) == 0 || s.pending[len(s.pending)-1] <= now) && len(s.pending) <= maxQueue {
		s.pending = append(s.pending, s.draw())
	}
	n := 0
	for n < len(s.pending) && s.pending[n] <= now {
		n++
	}
	return n
}

// watchInterval is how often the overflow watch draws the backlog: often
// enough that a queue cannot go from empty to full between two looks.
func watchInterval(rate float64) time.Duration {
	d := time.Duration(float64(maxQueue) / rate / 4 * 1e9)
	return min(max(d, 10*time.Millisecond), time.Second)
}

// preciseSleepMax: waits up to this long go to the worker's precise
// sleep; a longer one first parks on a timer (which a stop interrupts)
// until half of it before the arrival, since a Go timer may fire up to a
// millisecond late.
const preciseSleepMax = 5 * time.Millisecond

// await waits for the arrival at t on the worker's own thread; false if
// the run stopped meanwhile.
func (l *Loop) await(t int64) bool {
	r := l.run
	for {
		d := time.Duration(t - r.now())
		if d <= 0 {
			return !r.stopped.Load()
		}
		if d <= preciseSleepMax {
			l.preciseSleep(d)
			return !r.stopped.Load()
		}
		if l.timer == nil {
			l.timer = time.NewTimer(d - preciseSleepMax/2)
		} else {
			l.timer.Reset(d - preciseSleepMax/2)
		}
		select {
		case <-l.timer.C:
		case <-r.stopCh:
			return false
		}
	}
}

// preciseSleep sleeps for d with microsecond precision. When every worker
// has a processor of its own (blocking I/O drivers), the thread sleeps in
// nanosleep(2) like a C program's would: the goroutine stays on its thread
// and processor, and the runtime sees no idle-to-busy transition. Otherwise
// a sleeping thread would hold one of few processors, and the worker parks
// on a timer file descriptor instead (see sleep_linux.go).
func (l *Loop) preciseSleep(d time.Duration) {
	if !kernelSleeps || l.run.cfg.GoTimerWaits {
		time.Sleep(d)
		return
	}
	if l.holdThread {
		sleepThread(d)
		return
	}
	if l.sl == nil {
		l.sl = newSleeper()
	}
	if l.sl == nil || !l.sl.sleep(d) {
		time.Sleep(d)
	}
}

// kernelSleeps says the precise sleeps are the kernel's (nanosleep(2), a
// timerfd). The engine's tests that pace a run on a fake clock
// (testing/synctest) turn it off: a kernel's sleep takes real time, which
// does not move that clock, while a Go timer's does.
var kernelSleeps = true

// release frees the loop's timers.
func (l *Loop) release() {
	if l.timer != nil {
		l.timer.Stop()
	}
	if l.sl != nil {
		l.sl.close()
		l.sl = nil
	}
}

// ownProcessors reports whether every worker can hold a processor.
func ownProcessors(threads int) bool { return runtime.GOMAXPROCS(0) > threads }
