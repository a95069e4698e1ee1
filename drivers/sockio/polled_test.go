package sockio

import (
	"errors"
	"net"
	"os"
	"syscall"
	"testing"
	"time"
)

func polledPair(t *testing.T) (*PolledConn, net.Conn) {
	t.Helper()
	nc, srv := dialPair(t)
	c, ok := Polled(nc).(*PolledConn)
	if !ok {
		t.Fatalf("Polled(%T) did not wrap it", nc)
	}
	return c, srv
}

func TestPolledRoundTrip(t *testing.T) {
	c, srv := polledPair(t)
	checkRoundTrip(t, c, srv)
}

// A write larger than the send buffer waits on the netpoller for room and
// goes on where it stopped.
func TestPolledLargeWrite(t *testing.T) {
	c, srv := polledPair(t)
	checkLargeWrite(t, c, srv)
}

// The wrapped connection's deadlines and Close still interrupt a waiting
// read, which is how drivers cancel a query.
func TestPolledDeadlineAndClose(t *testing.T) {
	c, _ := polledPair(t)
	c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	_, err := c.Read(make([]byte, 1))
	var ne net.Error
	if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("read past the deadline = %v, want a timeout", err)
	}
	if oe, ok := err.(*net.OpError); !ok || oe.Op != "read" {
		t.Errorf("read past the deadline = %#v, want a *net.OpError for \"read\"", err)
	}
	c.SetReadDeadline(time.Time{})

	done := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 1))
		done <- err
	}()
	time.Sleep(20 * time.Millisecond) // let the read park; Close works either way
	c.Close()
	select {
	case err := <-done:
		if !errors.Is(err, net.ErrClosed) {
			t.Errorf("read on a closed connection = %v, want net.ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close left the read waiting")
	}
	if _, err := c.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Errorf("write on a closed connection = %v, want net.ErrClosed", err)
	}
}

// Errors from the kernel keep their errno, which the drivers classify
// (a reset connection is a lost one).
func TestPolledReset(t *testing.T) {
	c, srv := polledPair(t)
	srv.(*net.TCPConn).SetLinger(0)
	srv.Close() // sends RST
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		_, err = c.Write([]byte("x"))
		if err == nil {
			_, err = c.Read(make([]byte, 1))
		}
	}
	if !errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("I/O on a reset connection = %v, want ECONNRESET or EPIPE", err)
	}
	var oe *net.OpError
	if !errors.As(err, &oe) {
		t.Errorf("error %T is not a *net.OpError", err)
	}
}

// Something that is not a socket is used as it is.
func TestAdoptNonSocket(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	for _, blocking := range []bool{false, true} {
		if got := Adopt(a, blocking); got != a {
			t.Errorf("Adopt(pipe, %v) = %T, want the pipe itself", blocking, got)
		}
	}
}
