//go:build linux

package drivers

import (
	"context"
	"errors"
	"net"
	"syscall"
	"testing"
	"time"
)

// silentListener is a TCP port whose SYNs go unanswered: a listening
// socket with a backlog of 0 whose accept queue is already full (Linux
// drops the SYNs of a listener in that state). accept takes one queued
// connection off, making room for the next.
func silentListener(t *testing.T) (addr string, accept func()) {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	addr = (&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: sa.(*syscall.SockaddrInet4).Port}).String()
	// Fill the queue: connects that complete until one is left hanging.
	for i := 0; ; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		c, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		cancel()
		if err != nil {
			break
		}
		t.Cleanup(func() { c.Close() })
		if i == 8 {
			t.Skip("this kernel queues connections beyond a backlog of 0: no silent port to test with")
		}
	}
	return addr, func() {
		nfd, _, err := syscall.Accept(fd)
		if err != nil {
			t.Errorf("accept: %v", err)
			return
		}
		syscall.Close(nfd)
	}
}

// TestReconnectAttemptsGiveUpASilentConnect: a reconnect's dial to a port
// that does not answer its SYN is abandoned after attemptConnect and tried
// again, so that a server back from a restart is found by a fresh connect
// instead of TCP's doubling retransmissions. A run's first connect is not
// bounded.
func TestReconnectAttemptsGiveUpASilentConnect(t *testing.T) {
	defer func(d time.Duration) { attemptConnect = d }(attemptConnect)
	attemptConnect = 200 * time.Millisecond
	addr, accept := silentListener(t)

	dial := func(ctx context.Context) error {
		dctx, cancel := DialAttempt(ctx)
		defer cancel()
		c, err := (&net.Dialer{}).DialContext(dctx, "tcp", addr)
		if err == nil {
			c.Close()
		}
		return err
	}

	// Outside RetryUntil the dial waits until its caller gives up.
	outer, cancel := context.WithCancel(context.Background())
	stop := time.AfterFunc(3*attemptConnect, cancel)
	err := dial(outer)
	stop.Stop()
	cancel()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("a first connect ended before its caller gave up: %v", err)
	}

	// Within it, every attempt gives up after attemptConnect; room made in
	// the queue after the first lets the second through.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	attempts := 0
	err = RetryUntil(ctx, func(ctx context.Context) error {
		attempts++
		err := dial(ctx)
		if attempts == 1 {
			if err == nil || ctx.Err() != nil {
				t.Errorf("first attempt: %v (run context: %v), want its own timeout", err, ctx.Err())
			}
			accept()
		}
		return err
	})
	if err != nil {
		t.Fatalf("reconnect: %v after %d attempts", err, attempts)
	}
	if attempts < 2 {
		t.Errorf("connected in %d attempt(s), want the silent one abandoned first", attempts)
	}
}
