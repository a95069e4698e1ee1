package mysql

import (
	"context"
	"crypto/tls"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/sysbench-go/sysbench-go/drivers"
)

// Client error numbers (errmsg.h) and the texts Debian's libmariadb prints,
// which is what the reference binary reports.
const (
	crUnknownError     = 2000
	crConnectionError  = 2002
	crUnknownHost      = 2005
	crServerGoneError  = 2006
	crServerLost       = 2013
	crCommandsOutOfSyn = 2014
	crSSLConnection    = 2026
	crTCPConnection    = 2011
	crServerLostExt    = 2055

	erUnsupportedPS = 1295
	// erOptionPreventsStatement is ER_OPTION_PREVENTS_STATEMENT, what a
	// write on a read-only server fails with.
	erOptionPreventsStatement = 1290
)

// lostConn reports whether err means the connection is gone.
func lostConn(err error) bool {
	var ne net.Error
	return errors.Is(err, driver.ErrBadConn) || errors.Is(err, gomysql.ErrInvalidConn) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || errors.As(err, &ne)
}

// queryError converts an error from a query on an established connection.
func queryError(err error, query, op string) *drivers.Error {
	e := &drivers.Error{Query: query, Op: op, State: "HY000"}
	var me *gomysql.MySQLError
	switch {
	case errors.As(err, &me):
		e.Code = int(me.Number)
		e.State = string(me.SQLState[:])
		e.Msg = me.Message
	case errors.Is(err, driver.ErrBadConn):
		// Nothing was sent: the connection was already unusable.
		e.Code, e.Msg = crServerGoneError, "Server has gone away"
	case errors.Is(err, gomysql.ErrPktSync), errors.Is(err, gomysql.ErrPktSyncMul):
		e.Code, e.Msg = crCommandsOutOfSyn, "Commands out of sync; you can't run this command now"
	case lostConn(err):
		e.Code, e.Msg = crServerLost, "Lost connection to server during query"
	default:
		e.Code, e.Msg = crUnknownError, err.Error()
	}
	return e
}

// connectError converts an error from opening a connection to t.
func connectError(err error, t target) *drivers.Error {
	e := &drivers.Error{Kind: drivers.Fatal, Op: "mysql_real_connect()", State: "HY000"}
	var (
		me    *gomysql.MySQLError
		dns   *net.DNSError
		errno syscall.Errno
		op    *net.OpError
		cerr  *tls.CertificateVerificationError
	)
	switch {
	case errors.As(err, &me):
		e.Code = int(me.Number)
		e.State = string(me.SQLState[:])
		e.Msg = me.Message
	case errors.As(err, &dns):
		e.Code = crUnknownHost
		e.Msg = fmt.Sprintf("Unknown server host '%s' (-2)", t.host)
	case errors.As(err, &op) && op.Op == "dial":
		n := 0
		if errors.As(err, &errno) {
			n = int(errno)
		} else if errors.Is(err, context.DeadlineExceeded) || op.Timeout() {
			n = int(syscall.ETIMEDOUT)
		}
		e.Code = crConnectionError
		if t.network == "unix" {
			e.Msg = fmt.Sprintf("Can't connect to local server through socket '%s' (%d)", t.addr, n)
		} else {
			e.Msg = fmt.Sprintf("Can't connect to server on '%s' (%d)", t.host, n)
		}
	case errors.Is(err, gomysql.ErrNoTLS):
		e.Code, e.Msg = crSSLConnection, "SSL connection error: SSL is required but the server doesn't support it"
	case errors.As(err, &cerr):
		e.Code, e.Msg = crSSLConnection, "SSL connection error: "+cerr.Error()
	case lostConn(err):
		e.Code, e.Msg = crServerLost, "Lost connection to server at 'handshake: reading initial communication packet'"
	default:
		e.Code, e.Msg = crUnknownError, err.Error()
	}
	return e
}

// reconnectable reports the errors after which the reference reconnects
// (when they are ignorable).
func reconnectable(code int) bool {
	switch code {
	case crServerLost, crServerGoneError, crTCPConnection, crServerLostExt:
		return true
	}
	return false
}
