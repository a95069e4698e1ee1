package engine

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// sleeper waits with microsecond precision: a timerfd read through Go's
// netpoller. Go's own timers wake an idle process through epoll_wait,
// whose timeout is in whole milliseconds, so at hundreds of events per
// second they would release events in bursts; nanosleep(2) is precise but
// holds a thread and its processor, which with fewer processors than
// workers stalls the others. A timerfd is reported by epoll when it
// expires, and the goroutine waits parked like any other.
type sleeper struct {
	f   *os.File
	fd  int
	buf [8]byte
}

func newSleeper() *sleeper {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil
	}
	return &sleeper{f: os.NewFile(uintptr(fd), "timerfd"), fd: fd}
}

// sleep waits for d; false if the timer could not be used.
func (s *sleeper) sleep(d time.Duration) bool {
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	if err := unix.TimerfdSettime(s.fd, 0, &spec, nil); err != nil {
		return false
	}
	_, err := s.f.Read(s.buf[:])
	return err == nil
}

func (s *sleeper) close() { s.f.Close() }

// sleepThread sleeps for d in nanosleep(2), holding the thread.
func sleepThread(d time.Duration) {
	ts := unix.NsecToTimespec(int64(d))
	for unix.Nanosleep(&ts, &ts) == unix.EINTR {
	}
}
