package sockio

import (
	"io"
	"net"
	"os"
	"syscall"
	"unsafe"
)

// PolledConn is a net.Conn that keeps Go's netpoller for waiting but makes
// its read(2) and write(2) calls without telling the scheduler it is in a
// system call.
//
// On a non-blocking socket neither call ever sleeps: a read either finds
// bytes or fails with EAGAIN, and a write copies into the send buffer or
// fails with EAGAIN; the goroutine then parks on the netpoller as usual. But
// a write on loopback is long for a system call: the kernel delivers the
// bytes and wakes the server's process on the writer's own CPU, 10-20 µs on
// a virtual machine. Made the ordinary way, such a call marks the
// processor as in a system call, Go's sysmon takes it away from the thread
// once the call outlives one of its 20 µs ticks, wakes another thread to run
// the next goroutine, and the writer must find a processor again when the
// call returns: handoffs and thread wake-ups that cost more CPU than the
// call. The CPU is busy in the kernel either way, so the processor is not
// worth handing off.
//
// Deadlines, Close and addresses are the wrapped connection's own.
type PolledConn struct {
	net.Conn
	raw syscall.RawConn

	// The arguments and results of the call in progress, one set per
	// direction (a driver may read in one goroutine while it writes in
	// another), and the callbacks that use them, made once.
	rp, wp          []byte
	rn, wn          int
	rerr, werr      error
	readFn, writeFn func(fd uintptr) bool
}

// Polled wraps nc. A connection that is not a socket (no syscall.Conn) is
// returned as it is.
func Polled(nc net.Conn) net.Conn {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nc
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nc
	}
	c := &PolledConn{Conn: nc, raw: raw}
	c.readFn = c.readOnce
	c.writeFn = c.writeSome
	return c
}

// Adopt is how the drivers take a freshly dialled socket: blocking, as a
// Conn, or else (or if the socket cannot be made blocking) as a
// PolledConn.
func Adopt(nc net.Conn, blocking bool) net.Conn {
	if blocking {
		if bc, err := Wrap(nc); err == nil {
			return bc
		}
	}
	return Polled(nc)
}

// Read reads up to len(p) bytes, parking on the netpoller until some arrive.
func (c *PolledConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.rp, c.rn, c.rerr = p, 0, nil
	err := c.raw.Read(c.readFn)
	n, rerr := c.rn, c.rerr
	c.rp = nil
	if err != nil {
		return n, renameOp(err, "read")
	}
	if rerr != nil {
		return n, c.opError("read", rerr)
	}
	return n, nil
}

// readOnce is one read(2); false asks the netpoller to wait for input.
func (c *PolledConn) readOnce(fd uintptr) bool {
	for {
		n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(unsafe.SliceData(c.rp))), uintptr(len(c.rp)))
		switch e {
		case 0:
			if n == 0 {
				c.rerr = io.EOF
			}
			c.rn = int(n)
			return true
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		default:
			c.rerr = os.NewSyscallError("read", e)
			return true
		}
	}
}

// Write writes all of p, parking on the netpoller while the send buffer is
// full.
func (c *PolledConn) Write(p []byte) (int, error) {
	c.wp, c.wn, c.werr = p, 0, nil
	var err error
	if len(p) > 0 {
		err = c.raw.Write(c.writeFn)
	}
	n, werr := c.wn, c.werr
	c.wp = nil
	if err != nil {
		return n, renameOp(err, "write")
	}
	if werr != nil {
		return n, c.opError("write", werr)
	}
	return n, nil
}

// writeSome writes what the send buffer takes; false asks the netpoller to
// wait until it takes more.
func (c *PolledConn) writeSome(fd uintptr) bool {
	for c.wn < len(c.wp) {
		rest := c.wp[c.wn:]
		n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(unsafe.SliceData(rest))), uintptr(len(rest)))
		switch e {
		case 0:
			c.wn += int(n)
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false
		default:
			c.werr = os.NewSyscallError("write", e)
			return true
		}
	}
	return true
}

func (c *PolledConn) opError(op string, err error) error {
	if err == io.EOF {
		return err
	}
	return &net.OpError{Op: op, Net: c.RemoteAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}

// renameOp names the operation of a RawConn error ("raw-read") as the
// plain connection would ("read"), for the messages that quote it.
func renameOp(err error, op string) error {
	if oe, ok := err.(*net.OpError); ok {
		oe.Op = op
	}
	return err
}
