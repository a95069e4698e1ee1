// Package blockingio turns a dialled network connection into one that
// reads and writes with plain blocking system calls, the way C clients
// (libmysqlclient, libpq) talk to a server.
//
// A load generator makes one round trip per query on every worker. Through
// Go's netpoller each round trip parks the goroutine, wakes it from epoll
// and hands it between OS threads; on a small machine with the server on
// loopback that scheduling costs CPU the server needs. A blocking read
// sleeps in the kernel and the kernel wakes exactly that thread when the
// reply arrives.
//
// Deadlines are not supported (the drivers do not use them); a blocked
// call is interrupted by Close, which shuts the socket down.
package blockingio

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"syscall"
	"time"
)

// Conn is a net.Conn over a blocking file descriptor.
type Conn struct {
	fd     int
	local  net.Addr
	remote net.Addr
	closed atomic.Bool
}

var _ net.Conn = (*Conn)(nil)

// Wrap takes over nc's socket: it duplicates the descriptor, makes it
// blocking and closes nc. On error nc is left as it was.
func Wrap(nc net.Conn) (*Conn, error) {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nil, fmt.Errorf("blockingio: %T has no file descriptor", nc)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd := -1
	var derr error
	if err := raw.Control(func(s uintptr) { fd, derr = syscall.Dup(int(s)) }); err != nil {
		return nil, err
	}
	if derr != nil {
		return nil, derr
	}
	// O_NONBLOCK belongs to the open file, shared with nc's descriptor:
	// nc is closed right after, so the netpoller never sees it blocking.
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	c := &Conn{fd: fd, local: nc.LocalAddr(), remote: nc.RemoteAddr()}
	nc.Close()
	return c, nil
}

// Read reads with one blocking read(2).
func (c *Conn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := syscall.Read(c.fd, p)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, c.opError("read", err)
		}
		if n == 0 {
			return 0, io.EOF
		}
		return n, nil
	}
}

// Write writes all of p.
func (c *Conn) Write(p []byte) (int, error) {
	done := 0
	for done < len(p) {
		n, err := syscall.Write(c.fd, p[done:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return done, c.opError("write", err)
		}
		done += n
	}
	return done, nil
}

func (c *Conn) opError(op string, err error) error {
	if c.closed.Load() {
		err = net.ErrClosed
	}
	return &net.OpError{Op: op, Net: c.remote.Network(), Addr: c.remote, Err: err}
}

// Close shuts the socket down, which also wakes a call blocked on it, and
// releases the descriptor.
func (c *Conn) Close() error {
	if !c.closed.CompareAndSwap(false, true) {
		return net.ErrClosed
	}
	_ = syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
	return syscall.Close(c.fd)
}

// LocalAddr is the local address of the connection.
func (c *Conn) LocalAddr() net.Addr { return c.local }

// RemoteAddr is the server's address.
func (c *Conn) RemoteAddr() net.Addr { return c.remote }

// ErrNoDeadlines is what the deadline setters return for a non-zero time.
var ErrNoDeadlines = errors.New("blockingio: deadlines are not supported")

// SetDeadline accepts only the zero time (no deadline).
func (c *Conn) SetDeadline(t time.Time) error { return noDeadline(t) }

// SetReadDeadline accepts only the zero time.
func (c *Conn) SetReadDeadline(t time.Time) error { return noDeadline(t) }

// SetWriteDeadline accepts only the zero time.
func (c *Conn) SetWriteDeadline(t time.Time) error { return noDeadline(t) }

func noDeadline(t time.Time) error {
	if t.IsZero() {
		return nil
	}
	return ErrNoDeadlines
}
