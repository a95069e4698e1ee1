package pgsql

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sysbench-go/sysbench-go/drivers"
)

// The reference prints libpq's own error texts (PQerrorMessage) for failed
// connections and prepares. These functions rebuild them, in libpq 15's
// shape, from what pgconn reports.

// libpqMessage formats a server error as libpq does with the default
// verbosity: severity, message, a LINE/caret display of the error position
// in query, then DETAIL, HINT, QUERY and CONTEXT lines.
func libpqMessage(e *pgconn.PgError, query string) string {
	var b strings.Builder
	b.WriteString(e.Severity)
	b.WriteString(":  ")
	b.WriteString(e.Message)
	text, pos := "", 0
	if e.Position > 0 {
		if query != "" {
			text, pos = query, int(e.Position)
		} else {
			b.WriteString(" at character " + strconv.Itoa(int(e.Position)))
		}
	} else if e.InternalPosition > 0 && e.InternalQuery != "" {
		text, pos = e.InternalQuery, int(e.InternalPosition)
	}
	b.WriteByte('\n')
	if text != "" {
		writeErrorPosition(&b, text, pos)
	}
	if e.Detail != "" {
		b.WriteString("DETAIL:  " + e.Detail + "\n")
	}
	if e.Hint != "" {
		b.WriteString("HINT:  " + e.Hint + "\n")
	}
	if e.InternalQuery != "" {
		b.WriteString("QUERY:  " + e.InternalQuery + "\n")
	}
	if e.Where != "" {
		b.WriteString("CONTEXT:  " + e.Where + "\n")
	}
	return b.String()
}

// writeErrorPosition shows the line of query holding character pos
// (1-based) with a caret under it, cut to about 60 columns around the
// caret as libpq does. Every character counts as one column.
func writeErrorPosition(b *strings.Builder, query string, pos int) {
	const displaySize, minRightCut = 60, 10
	runes := []rune(strings.ReplaceAll(query, "\t", " "))
	loc := pos - 1
	if loc < 0 || loc > len(runes) {
		return
	}
	// Find the line holding loc; \r\n and \r end lines as well as \n.
	line, beg := 1, 0
	for i := 0; i < loc; i++ {
		if runes[i] == '\n' || (runes[i] == '\r' && (i+1 >= len(runes) || runes[i+1] != '\n')) {
			line++
			beg = i + 1
		}
	}
	end := beg
	for end < len(runes) && runes[end] != '\n' && runes[end] != '\r' {
		end++
	}
	begTrunc, endTrunc := false, false
	if end-beg > displaySize {
		if loc-beg+minRightCut < displaySize {
			end = beg + displaySize
			endTrunc = true
		} else {
			if loc+minRightCut < end {
				end = loc + minRightCut
				endTrunc = true
			}
			if end-beg > displaySize {
				beg = end - displaySize
				begTrunc = true
			}
		}
	}
	prefix := "LINE " + strconv.Itoa(line) + ": "
	if begTrunc {
		prefix += "..."
	}
	b.WriteString(prefix)
	b.WriteString(string(runes[beg:end]))
	if endTrunc {
		b.WriteString("...")
	}
	b.WriteByte('\n')
	b.WriteString(strings.Repeat(" ", utf8.RuneCountInString(prefix)+loc-beg))
	b.WriteString("^\n")
}

// connectErrorMessage rebuilds libpq's message for a failed connection,
// e.g. `connection to server at "127.0.0.1", port 5432 failed: Connection
// refused` with libpq's hint line, ending with a newline.
func connectErrorMessage(err error, host string, port int, socket bool) string {
	where := fmt.Sprintf("connection to server at \"%s\", port %d failed: ", host, port)
	hint := "\tIs the server running on that host and accepting TCP/IP connections?\n"
	if socket {
		where = fmt.Sprintf("connection to server on socket \"%s/.s.PGSQL.%d\" failed: ", strings.TrimSuffix(host, "/"), port)
		hint = "\tIs the server running locally and accepting connections on that socket?\n"
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return where + pgErr.Severity + ":  " + pgErr.Message + "\n"
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		msg := dnsErr.Err
		if dnsErr.IsNotFound {
			msg = "Name or service not known" // getaddrinfo's words
		}
		return fmt.Sprintf("could not translate host name \"%s\" to address: %s\n", host, capitalize(msg))
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		// libpq names the address it tried when the host is a name.
		var opErr *net.OpError
		if !socket && net.ParseIP(host) == nil && errors.As(err, &opErr) && opErr.Addr != nil {
			if ip, _, e := net.SplitHostPort(opErr.Addr.String()); e == nil {
				where = fmt.Sprintf("connection to server at \"%s\" (%s), port %d failed: ", host, ip, port)
			}
		}
		msg := where + capitalize(errno.Error()) + "\n"
		if errno == syscall.ECONNREFUSED || errno == syscall.ENOENT {
			msg += hint
		}
		return msg
	}
	// A server not of --pgsql-target-session-attrs' kind: libpq's words.
	for _, k := range targetKinds {
		if errors.Is(err, k.err) {
			return where + k.msg + "\n"
		}
	}
	// Anything else (TLS refused with sslmode=require, timeouts): pgconn's
	// own words for the innermost cause.
	inner := err
	for {
		u := errors.Unwrap(inner)
		if u == nil {
			break
		}
		inner = u
	}
	if j, ok := inner.(interface{ Unwrap() []error }); ok && len(j.Unwrap()) > 0 {
		inner = j.Unwrap()[len(j.Unwrap())-1]
	}
	return where + inner.Error() + "\n"
}

// targetKinds are pgconn's refusals of a server by its kind, in libpq's
// words.
var targetKinds = []struct {
	err error
	msg string
}{
	{pgconn.ErrReadOnlyConnection, "session is read-only"},
	{pgconn.ErrReadWriteConnection, "session is not read-only"},
	{pgconn.ErrStandbyConnection, "server is in hot standby mode"},
	{pgconn.ErrPrimaryConnection, "server is not in hot standby mode"},
}

// hostsErrorMessage is libpq's message for a connect that tried several
// hosts: one line (with its hint) per host, in the order tried; "" when
// only one was tried or the errors do not pair with the hosts.
func hostsErrorMessage(err error, tried []drivers.Endpoint, socket bool) string {
	var ce *pgconn.ConnectError
	if len(tried) < 2 || !errors.As(err, &ce) {
		return ""
	}
	j, ok := errors.Unwrap(ce).(interface{ Unwrap() []error })
	if !ok || len(j.Unwrap()) != len(tried) {
		return ""
	}
	var b strings.Builder
	last := ""
	for i, e := range j.Unwrap() {
		host := tried[i].Host
		if socket {
			host = tried[i].Socket
		}
		// sslmode=prefer tries each host twice, with TLS and without.
		if m := connectErrorMessage(e, host, tried[i].Port, socket); m != last {
			b.WriteString(m)
			last = m
		}
	}
	return b.String()
}

func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
