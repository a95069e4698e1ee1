package sockio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// blockedIn reports whether a thread of this process is in the system call
// described by prefix ("<nr> <first argument>").
func blockedIn(prefix string) bool {
	files, _ := filepath.Glob("/proc/self/task/*/syscall")
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && strings.HasPrefix(string(b), prefix) {
			return true
		}
	}
	return false
}

// blockedRead starts a Read on c and returns once a thread of ours is
// blocked in read(2) on the socket (Linux shows it in
// /proc/self/task/*/syscall); the Read's error arrives on the channel.
func blockedRead(t *testing.T, c *Conn) <-chan error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 1))
		done <- err
	}()
	want := fmt.Sprintf("0 0x%x ", c.fd)
	deadline := time.Now().Add(10 * time.Second)
	for !blockedIn(want) {
		if time.Now().After(deadline) {
			t.Fatal("the Read never blocked in the kernel")
		}
		runtime.Gosched()
	}
	return done
}

// dialPair returns both ends of a loopback TCP connection, the client's
// not yet wrapped.
func dialPair(t *testing.T) (client, srv net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	acc := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		acc <- c
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	srv = <-acc
	t.Cleanup(func() { nc.Close(); srv.Close() })
	return nc, srv
}

// pair returns a wrapped client connection and the server side.
func pair(t *testing.T) (*Conn, net.Conn) {
	t.Helper()
	nc, srv := dialPair(t)
	c, err := Wrap(nc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, srv
}

// checkLargeWrite writes more than a socket's buffers hold through c while
// the server reads only once the writer has had to wait, and checks that
// every byte arrives once and in order.
func checkLargeWrite(t *testing.T, c, srv net.Conn) {
	t.Helper()
	msg := make([]byte, 32<<20)
	for i := range msg {
		msg[i] = byte(i*7 + i>>11)
	}
	got := make(chan []byte, 1)
	go func() {
		b := make([]byte, len(msg))
		_, err := io.ReadFull(srv, b)
		if err != nil {
			b = nil
		}
		got <- b
	}()
	n, err := c.Write(msg)
	if n != len(msg) || err != nil {
		t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(msg))
	}
	if b := <-got; !bytes.Equal(b, msg) {
		t.Fatal("the server read other bytes than were written")
	}
}

// checkRoundTrip sends a request through c and reads the server's late
// reply (the read has to wait for it), then the end of file once the server
// closes.
func checkRoundTrip(t *testing.T, c, srv net.Conn) {
	t.Helper()
	go func() {
		buf := make([]byte, 5)
		if _, err := io.ReadFull(srv, buf); err == nil {
			time.Sleep(20 * time.Millisecond)
			srv.Write(append([]byte("re:"), buf...))
		}
	}()
	if n, err := c.Write([]byte("hello")); n != 5 || err != nil {
		t.Fatalf("Write = %d, %v", n, err)
	}
	got := make([]byte, 8)
	if _, err := io.ReadFull(c, got); err != nil || string(got) != "re:hello" {
		t.Fatalf("read %q, %v", got, err)
	}
	if n, err := c.Read(nil); n != 0 || err != nil {
		t.Errorf("Read(nil) = %d, %v", n, err)
	}
	if c.RemoteAddr().String() != srv.LocalAddr().String() {
		t.Errorf("RemoteAddr %v, want %v", c.RemoteAddr(), srv.LocalAddr())
	}
	srv.Close()
	if n, err := c.Read(got); n != 0 || err != io.EOF {
		t.Errorf("read after the peer closed: %d, %v, want EOF", n, err)
	}
}

// The wrapped descriptor is closed on exec: a process started while a run
// holds connections does not inherit them.
func TestWrapClosesOnExec(t *testing.T) {
	c, _ := pair(t)
	flags, err := unix.FcntlInt(uintptr(c.fd), unix.F_GETFD, 0)
	if err != nil {
		t.Fatal(err)
	}
	if flags&unix.FD_CLOEXEC == 0 {
		t.Errorf("descriptor %d flags %#x: not close-on-exec", c.fd, flags)
	}
}

func TestRoundTrip(t *testing.T) {
	c, srv := pair(t)
	checkRoundTrip(t, c, srv)
}

// Close must wake a Read blocked in the kernel: that is how a cancelled
// query is interrupted.
func TestCloseWakesBlockedRead(t *testing.T) {
	c, _ := pair(t)
	done := blockedRead(t, c)
	c.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("Read on a closed connection succeeded")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Read stayed blocked after Close")
	}
	if err := c.Close(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("second Close = %v, want net.ErrClosed", err)
	}
	if _, err := c.Write([]byte("x")); err == nil {
		t.Error("Write on a closed connection succeeded")
	}
}

func TestDeadlines(t *testing.T) {
	c, srv := pair(t)
	if err := c.SetDeadline(time.Time{}); err != nil {
		t.Errorf("clearing the deadline: %v", err)
	}
	// A deadline cancelled before it passes leaves the connection alone.
	if err := c.SetDeadline(time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Time{})
	go srv.Write([]byte("ok"))
	buf := make([]byte, 2)
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "ok" {
		t.Fatalf("read after a cancelled deadline: %q, %v", buf, err)
	}

	// A deadline passing wakes the blocked read with a timeout.
	c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	_, err := c.Read(buf)
	var ne net.Error
	if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("read past the deadline = %v, want a timeout", err)
	}
	// and the connection stays ended.
	c.SetDeadline(time.Time{})
	if _, err := c.Write([]byte("x")); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("write after the deadline = %v, want os.ErrDeadlineExceeded", err)
	}
}

func TestPastDeadline(t *testing.T) {
	c, _ := pair(t)
	done := blockedRead(t, c)
	c.SetWriteDeadline(time.Now())
	select {
	case err := <-done:
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("blocked read after SetWriteDeadline(now) = %v, want os.ErrDeadlineExceeded", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a past deadline left the read blocked")
	}
}

// A write larger than the send buffer takes the blocking call for what the
// first, non-blocking one could not send.
func TestLargeWrite(t *testing.T) {
	c, srv := pair(t)
	checkLargeWrite(t, c, srv)
}

// The descriptor outlives Close while a call is in flight on it: the last
// call releases it. Released at Close, its number could go to the next
// socket opened (another connection's) before the call used it.
func TestCloseWaitsForCallsInFlight(t *testing.T) {
	c, _ := pair(t)
	fd := c.fd
	open := func() bool {
		_, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
		return err == nil
	}
	if !c.acquire() {
		t.Fatal("a new connection refuses a call")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if !open() {
		t.Fatal("Close released the descriptor while a call was in flight")
	}
	if c.acquire() {
		t.Error("a call began after Close")
	}
	if _, err := c.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Write after Close: %v, want net.ErrClosed", err)
	}
	c.release()
	if open() {
		t.Error("the last call did not release the descriptor")
	}
	if err := c.Close(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("a second Close: %v", err)
	}
}

// A connection closed while its writer goes on writing never writes into
// the socket opened next, which the kernel gives the same number.
func TestClosedConnWritesNothingElsewhere(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for i := 0; i < 50; i++ {
		c, _ := pair(t)
		stop := make(chan struct{})
		done := make(chan struct{})
		wrote := make(chan struct{}, 1)
		go func() {
			defer close(done)
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := c.Write([]byte("stray bytes")); err == nil {
					select {
					case wrote <- struct{}{}:
					default:
					}
				} else {
					runtime.Gosched()
				}
			}
		}()
		<-wrote
		c.Close()
		// The next socket opened: its server end must read nothing.
		victim, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		vsrv, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond) // the writer's chance to go wrong; the test passes however long it is
		close(stop)
		<-done
		vsrv.SetReadDeadline(time.Now().Add(time.Millisecond))
		if n, _ := vsrv.Read(make([]byte, 64)); n > 0 {
			t.Fatalf("round %d: %d bytes of a closed connection arrived on the next one", i, n)
		}
		victim.Close()
		vsrv.Close()
	}
}
