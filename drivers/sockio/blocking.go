// Package sockio gives the drivers' sockets the system-call pattern a load
// generator needs, under the net.Conn the database client libraries expect.
//
// A load generator makes one round trip per query on every worker, and on a
// small machine with the server on loopback the CPU that the round trip's
// scheduling costs is taken from the server. Two ways to spend less of it:
//
//   - Conn reads and writes with plain blocking system calls, the way C
//     clients (libmysqlclient, libpq) do: a waiting worker sleeps in the
//     kernel, and the kernel wakes exactly that thread when the reply
//     arrives.
//   - PolledConn keeps Go's netpoller for waiting, but makes its calls
//     without handing the processor to another thread while in them.
//
// Which one wins depends on the server and the load; the drivers choose.
package sockio

import (
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe" // go:linkname, pointers for system calls

	"golang.org/x/sys/unix"
)

// yield is runtime.goyield: the goroutine goes to the back of its own
// processor's run queue and the scheduler runs, without Gosched's trip
// through the global queue and the wake-up of another thread. The runtime
// keeps goyield reachable by linkname for packages outside it
// (go.dev/issue/67401).
//
//go:linkname yield runtime.goyield
func yield()

// Conn is a net.Conn over a blocking file descriptor.
type Conn struct {
	fd     int
	local  net.Addr
	remote net.Addr
	// state counts the calls in flight on fd, two per call, and its low
	// bit says Close was called. The descriptor is released by whichever
	// of Close and the last call in flight comes last, never while a call
	// may still use its number: the kernel gives that number to the next
	// socket opened, perhaps another connection's, which would then get
	// this connection's bytes.
	state atomic.Int64

	mu      sync.Mutex // orders Close and deadline expiry
	timer   *time.Timer
	expired atomic.Bool

	// A read buffer, as libmysqlclient's and libpq's: a reply of many rows
	// arrives in one read(2), whatever size the driver asks for at a time.
	rbuf       []byte
	rpos, rend int

	lastYield time.Time
}

// yieldEvery is how long a goroutine talking through Conn goes without
// passing through the scheduler. One that only ever blocks in system calls
// never does, and Go's sysmon takes its processor away after 10 ms as from
// a goroutine that hogs it, then keeps polling every 20 µs: a yield now and
// then, at the start of a request, costs far less. 8 ms, under sysmon's
// 10 ms, gave MariaDB point selects ~10% more TPS than 5 ms when the yield
// was runtime.Gosched, which goes through the global run queue and wakes
// another thread (5.4% of the client's CPU profile on point selects);
// goyield stays on the processor's own queue and leaves no trace in the
// profile.
const yieldEvery = 8 * time.Millisecond

// readBufSize is the read buffer's size, allocated on the first read.
const readBufSize = 16 << 10

var _ net.Conn = (*Conn)(nil)

// Wrap takes over nc's socket: it duplicates the descriptor, makes it
// blocking and closes nc. On error nc is left as it was.
func Wrap(nc net.Conn) (*Conn, error) {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nil, fmt.Errorf("sockio: %T has no file descriptor", nc)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd := -1
	var derr error
	// Close-on-exec, as Go's own descriptors: a process started meanwhile
	// (a test's child, a server's tool) does not inherit the connection.
	if err := raw.Control(func(s uintptr) { fd, derr = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
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

// Read returns buffered bytes, or waits for more with one blocking
// read(2). Reads as large as the buffer bypass it.
func (c *Conn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if c.rpos < c.rend {
		n := copy(p, c.rbuf[c.rpos:c.rend])
		c.rpos += n
		return n, nil
	}
	if len(p) >= readBufSize {
		return c.read(p)
	}
	if c.rbuf == nil {
		c.rbuf = make([]byte, readBufSize)
	}
	n, err := c.read(c.rbuf)
	if err != nil {
		return 0, err
	}
	c.rpos, c.rend = copy(p, c.rbuf[:n]), n
	return c.rpos, nil
}

func (c *Conn) read(p []byte) (int, error) {
	if !c.acquire() {
		return 0, c.opError("read", net.ErrClosed)
	}
	for {
		n, err := syscall.Read(c.fd, p)
		if err == syscall.EINTR {
			continue
		}
		c.release()
		if err != nil {
			return 0, c.opError("read", err)
		}
		if n == 0 {
			if c.isClosed() || c.expired.Load() {
				// Our own shutdown, not the server's end of file.
				return 0, c.opError("read", io.EOF)
			}
			return 0, io.EOF
		}
		return n, nil
	}
}

// Write writes all of p.
func (c *Conn) Write(p []byte) (int, error) {
	if now := time.Now(); now.Sub(c.lastYield) >= yieldEvery {
		c.lastYield = now
		yield()
	}
	// First without blocking, and without telling the scheduler: a write
	// that fits the send buffer never sleeps, and is long only for the
	// work the kernel does in it (see PolledConn). What does not fit, or
	// fails, goes through the blocking call, which sleeps until the server
	// has read enough, or reports the error.
	if !c.acquire() {
		return 0, c.opError("write", net.ErrClosed)
	}
	defer c.release()
	done := 0
	if len(p) > 0 {
		n, _, e := syscall.RawSyscall6(syscall.SYS_SENDTO, uintptr(c.fd),
			uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)),
			syscall.MSG_DONTWAIT|msgNoSignal, 0, 0)
		if e == 0 {
			done = int(n)
		}
	}
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

// acquire counts a call in flight on the descriptor; false once Close was
// called.
func (c *Conn) acquire() bool {
	for {
		s := c.state.Load()
		if s&1 != 0 {
			return false
		}
		if c.state.CompareAndSwap(s, s+2) {
			return true
		}
	}
}

// release ends a call; the last one after Close releases the descriptor.
func (c *Conn) release() {
	if c.state.Add(-2) == 1 {
		_ = syscall.Close(c.fd)
	}
}

func (c *Conn) isClosed() bool { return c.state.Load()&1 != 0 }

func (c *Conn) opError(op string, err error) error {
	if c.isClosed() {
		err = net.ErrClosed
	} else if c.expired.Load() {
		err = os.ErrDeadlineExceeded
	}
	return &net.OpError{Op: op, Net: c.remote.Network(), Addr: c.remote, Err: err}
}

// Close shuts the socket down, which also wakes a call blocked on it, and
// releases the descriptor, or leaves that to the last call in flight.
func (c *Conn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		s := c.state.Load()
		if s&1 != 0 {
			return net.ErrClosed
		}
		if !c.state.CompareAndSwap(s, s|1) {
			continue
		}
		c.stopTimerLocked()
		_ = syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
		if s == 0 {
			return syscall.Close(c.fd)
		}
		return nil
	}
}

// LocalAddr is the local address of the connection.
func (c *Conn) LocalAddr() net.Addr { return c.local }

// RemoteAddr is the server's address.
func (c *Conn) RemoteAddr() net.Addr { return c.remote }

// SetDeadline arranges for the connection to end at t: when t passes (at
// once if it has) the socket is shut down, which fails the call blocked on
// it and every later one with os.ErrDeadlineExceeded. The zero time cancels
// a deadline still to come. That is what the drivers use deadlines for:
// to interrupt a cancelled call, after which they give the connection up.
func (c *Conn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopTimerLocked()
	if t.IsZero() || c.isClosed() {
		return nil
	}
	if d := time.Until(t); d > 0 {
		c.timer = time.AfterFunc(d, c.expire)
		return nil
	}
	c.expireLocked()
	return nil
}

// SetReadDeadline is SetDeadline: a passed deadline ends the connection.
func (c *Conn) SetReadDeadline(t time.Time) error { return c.SetDeadline(t) }

// SetWriteDeadline is SetDeadline: a passed deadline ends the connection.
func (c *Conn) SetWriteDeadline(t time.Time) error { return c.SetDeadline(t) }

// stopTimerLocked cancels a deadline still to come.
func (c *Conn) stopTimerLocked() {
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
}

func (c *Conn) expire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.expireLocked()
}

// expireLocked shuts the socket down, unless Close released the
// descriptor (its number may belong to another file by now).
func (c *Conn) expireLocked() {
	if c.isClosed() || c.expired.Load() {
		return
	}
	c.expired.Store(true)
	_ = syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
}
