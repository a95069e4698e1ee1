// Package drivers defines what sysbench-go needs from a database: a driver
// that opens connections, connections that run queries and prepare
// statements, buffered results, and one typed error.
//
// Each database lives in its own sub-package (drivers/mysql, drivers/pgsql,
// drivers/sqlite) and converts its native errors into *Error exactly once.
// Drivers import neither the engine nor the Lua layer; they do not count
// statistics either: the caller counts each Result by its Counter.
package drivers

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sysbench-go/sysbench-go/logging"
	"github.com/sysbench-go/sysbench-go/options"
)

// Counter says which statistics bucket a query belongs to. The values are
// sysbench's SB_CNT_* numbers, which scripts may use through ffi.
type Counter int

// Counters in sysbench's order.
const (
	CntOther Counter = iota
	CntRead
	CntWrite
	CntTrx
	CntError
	CntReconnect
	CntMax
)

// PSMode is --db-ps-mode.
type PSMode int

const (
	// PSAuto uses server-side prepared statements where the driver can.
	PSAuto PSMode = iota
	// PSDisable substitutes parameters into the SQL text on the client.
	PSDisable
)

// Config is what every driver receives when it is opened.
type Config struct {
	Values *options.Values // all parsed options; a driver reads its own
	PSMode PSMode
	Debug  bool // --db-debug
	// DryRun asks the driver to pretend every call succeeds without
	// talking to a server (--mysql-dry-run or the driver-neutral dry run).
	DryRun bool
	// Threads is the number of workers of the run (--threads).
	Threads int
	// Log receives the FATAL/ALERT/WARNING/DEBUG messages a driver prints
	// the way the reference does (nil discards them).
	Log *logging.Logger
	// QueryTimeout is --query-timeout: the longest a call may wait for
	// the server before it fails with a TimeoutError; 0 waits as long as
	// it takes.
	QueryTimeout time.Duration
}

// ManyThreads is the thread count from which the drivers wait for the
// server on Go's netpoller by default rather than in blocking system
// calls. Blocking calls want a processor per worker (GOMAXPROCS =
// threads + 1), and with hundreds of processors the runtime's own cost
// grows with the count: some 200 KiB of memory per processor (caches,
// stacks of the threads it hands them to), and collections that stop
// every processor, which on a loaded machine wait for hundreds of
// descheduled threads (stops of 0.8 s seen at 1000 threads). From 64
// threads on the netpoller had the better p95 and p99 on both servers
// (docs/performance.md, "Thousands of threads").
const ManyThreads = 64

// Factory describes a compiled-in driver.
type Factory struct {
	Name        string // "mysql"
	Description string // "MySQL driver"
	Options     []options.Option
	// Extension marks a driver sysbench 1.0.20 does not have.
	Extension bool
	// Open validates the options and returns a driver ready to connect.
	Open func(cfg Config) (Driver, error)
	// Wait, if set, reports how connections opened with cfg wait for the
	// server. The engine gives blocking workers a processor each
	// (engine.Config.BlockingWorkers), and has polled ones pass their
	// processor on between events (engine.Config.PolledWorkers).
	Wait func(cfg Config) Wait
}

// Wait is how a driver's connections wait for the server's replies.
type Wait int

const (
	// WaitNone: no server to wait for (a dry run).
	WaitNone Wait = iota
	// WaitBlocking: in blocking system calls, an OS thread per worker.
	WaitBlocking
	// WaitPolled: parked on Go's netpoller.
	WaitPolled
)

// WaitOf is the Wait of a driver that talks to a server unless dry, in
// blocking calls when blocking.
func WaitOf(dry, blocking bool) Wait {
	switch {
	case dry:
		return WaitNone
	case blocking:
		return WaitBlocking
	}
	return WaitPolled
}

// Driver opens connections. It is shared by all worker threads and must be
// safe for concurrent use; connections are not.
type Driver interface {
	// Connect opens the n-th connection of this run; drivers with host
	// lists spread connections over them round-robin by n.
	Connect(ctx context.Context) (Conn, error)
	// Close releases what Open acquired.
	Close() error
}

// ServerVersioner is implemented by connections that can say which
// server they talk to (for the results file).
type ServerVersioner interface {
	ServerVersion(ctx context.Context) (string, error)
}

// QueryString runs a query returning one value and returns it as text.
func QueryString(ctx context.Context, c Conn, query string) (string, error) {
	rows, err := QueryRows(ctx, c, query)
	if err != nil {
		return "", err
	}
	if len(rows) == 0 || len(rows[0]) == 0 {
		return "", fmt.Errorf("%s returned no row", query)
	}
	return rows[0][0], nil
}

// BulkBatcher is implemented by connections that want the multi-row
// INSERTs of bulk_insert_next flushed below the reference's 512 KiB.
type BulkBatcher interface {
	BulkBatchSize() int
}

// Conn is one database connection, used by one worker goroutine only.
type Conn interface {
	// Query runs SQL text (no parameters) and returns its buffered result.
	// The result stays valid until the next call on this connection.
	Query(ctx context.Context, query string) (Result, error)
	// Prepare prepares a statement with '?' placeholders.
	Prepare(ctx context.Context, query string) (Stmt, error)
	// MoreResults reports whether a multi-statement query left results.
	MoreResults() bool
	// NextResult moves to the next result of a multi-statement query.
	NextResult(ctx context.Context) (Result, error)
	// Reconnect closes and reopens the connection with the same settings,
	// or returns ErrReconnectUnsupported and leaves it as it is.
	Reconnect(ctx context.Context) error
	// Close closes the connection.
	Close() error
}

// Stmt is a prepared statement.
type Stmt interface {
	// Execute runs the statement with the given parameters (len equal to
	// the number of placeholders). The driver must not keep args.
	Execute(ctx context.Context, args []Value) (Result, error)
	Close() error
}

// Result is a buffered result: every row has been received when Query or
// Execute returns, as with mysql_store_result, so the connection is free
// for the next query.
type Result interface {
	// Counter classifies the query for statistics (read/write/other).
	Counter() Counter
	// NRows is the number of rows in a result set, or rows affected.
	NRows() uint64
	// NFields is the number of columns (0 for statements without rows).
	NFields() int
	// Next advances to the next row; false when there are no more.
	Next() bool
	// Value returns column i of the current row as text, and false for
	// SQL NULL. The bytes are valid until the next call to Next.
	Value(i int) ([]byte, bool)
	// Close frees the result early; it is safe to call twice.
	Close()
}

// Type is a parameter's SQL type, numbered as sysbench.sql.type.
type Type int

// Parameter types in sysbench's order.
const (
	TypeNone Type = iota
	TypeTinyInt
	TypeSmallInt
	TypeInt
	TypeBigInt
	TypeFloat
	TypeDouble
	TypeTime
	TypeDate
	TypeDateTime
	TypeTimestamp
	TypeChar
	TypeVarChar
)

// IsInteger reports whether values of t are held in Value.Int.
func (t Type) IsInteger() bool { return t >= TypeTinyInt && t <= TypeBigInt }

// IsFloat reports whether values of t are held in Value.Float.
func (t Type) IsFloat() bool { return t == TypeFloat || t == TypeDouble }

// Value is one statement parameter. Integer types use Int, floating types
// Float, everything else Str.
type Value struct {
	Type  Type
	Null  bool
	Int   int64
	Float float64
	Str   []byte
}

// ErrorKind tells the caller what to do about an error.
type ErrorKind int

const (
	// Fatal errors abort the run.
	Fatal ErrorKind = iota
	// Ignorable errors restart the event and count as errors.
	Ignorable
	// Reconnect errors mean the connection was lost; the driver has
	// already reconnected (or will on the next call), the event restarts
	// and the error counts as a reconnect.
	Reconnect
)

// Error is the one error type drivers return for database errors.
type Error struct {
	Kind  ErrorKind
	Code  int    // driver-specific number (MySQL errno; 0 for PostgreSQL)
	State string // SQLSTATE where known
	Msg   string
	Query string
	// Op names the client call that failed, e.g. "mysql_stmt_prepare()",
	// for the FATAL lines the reference prints.
	Op string
}

func (e *Error) Error() string {
	if e.State != "" && e.Code == 0 {
		return fmt.Sprintf("%s: %s", e.State, e.Msg)
	}
	return fmt.Sprintf("%d: %s", e.Code, e.Msg)
}

// CodeName is how the error is counted in the statistics by kind: the
// driver's error number where it has one (MySQL's, more precise than the
// SQLSTATE it maps to), else the SQLSTATE, "" for neither.
func (e *Error) CodeName() string {
	switch {
	case e.Code != 0:
		return strconv.Itoa(e.Code)
	case e.State != "":
		return e.State
	}
	return ""
}

// ErrReconnectUnsupported is what Conn.Reconnect returns for a driver
// that, like the reference's pgsql driver, has no explicit reconnect.
var ErrReconnectUnsupported = errors.New("reconnect is not supported by the current driver")

// AsError returns the *Error inside err, or nil.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// RetryUntil calls try every millisecond until it succeeds or ctx ends, as
// the reference reconnects after an ignored lost connection: a restarting
// server refuses connections for a while. The drivers' dials within try
// give up a connect that has no answer after attemptConnect (DialAttempt).
func RetryUntil(ctx context.Context, try func(context.Context) error) error {
	actx := context.WithValue(ctx, attemptKey{}, true)
	for {
		if try(actx) == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("reconnect: %w", ctx.Err())
		}
		t := time.NewTimer(time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("reconnect: %w", ctx.Err())
		case <-t.C:
		}
	}
}

// attemptConnect bounds the TCP connect of one reconnect attempt. A SYN
// that reaches a restarting server's port at the wrong moment can go
// unanswered (seen on loopback while PostgreSQL restarted: a connect of
// 1 s, once in 12 restarts); the kernel sends it again after 1, 3, 7, 15 s
// and so on, and a worker whose SYNs keep falling into the restart's
// window waits out the doubling long after the server is back (a run that
// should have ended waited over 30 s in one connect). A fresh connect
// after 2 s has at most a second's gap between SYNs.
var attemptConnect = 2 * time.Second

type attemptKey struct{}

// DialAttempt is the context for a driver's dial of its socket with ctx:
// bounded by attemptConnect within RetryUntil's attempts, ctx itself
// otherwise (a run's first connect waits as the reference's does). The
// returned function releases it once the dial returns.
func DialAttempt(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx.Value(attemptKey{}) == nil {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, attemptConnect)
}

// QueryTimeoutState is the SQLSTATE of a call that --query-timeout ended:
// the SQL/CLI's (ODBC's) "timeout expired". Scripts see it as sql_state,
// the statistics count it under it, and --mysql-ignore-errors and
// --pgsql-ignore-errors take it to ignore timeouts.
const QueryTimeoutState = "HYT00"

// TimeoutError is the error of the call op (with query) that had no
// answer within d. The connection it was made on is given up: the
// drivers reconnect when the error is ignored, as after a lost
// connection.
func TimeoutError(d time.Duration, op, query string) *Error {
	return &Error{State: QueryTimeoutState, Op: op, Query: query,
		Msg: fmt.Sprintf("Query timeout: no answer from the server within %s (--query-timeout)", d)}
}

// QueryTimer bounds the calls on one connection by --query-timeout. The
// connection starts it as a call begins and stops it as the call ends;
// when a call outlives the timeout, expire runs on the timer's goroutine
// to interrupt it (the drivers shut the socket, as they do for a
// cancelled context), and Expired says so until the next Start. One timer
// serves every call: no context, goroutine or allocation per call. A nil
// *QueryTimer (no timeout) does nothing.
//
// The timer's function and Start and Stop take the timer's own lock: a
// function that fired as a call ended in time either interrupts that call
// (it took the lock first, and Expired says so) or finds the timer
// stopped and does nothing. Without it, a late function could interrupt
// the connection's next call, which would fail as a lost connection.
type QueryTimer struct {
	d       time.Duration
	t       *time.Timer
	mu      sync.Mutex // one connection's calls and its timer: never contended by other connections
	armed   bool
	expired atomic.Bool
}

// NewQueryTimer returns the timer of a connection whose calls may last d,
// calling expire when one lasts longer; nil when d is 0.
func NewQueryTimer(d time.Duration, expire func()) *QueryTimer {
	if d <= 0 {
		return nil
	}
	q := &QueryTimer{d: d}
	q.t = time.AfterFunc(time.Hour, func() {
		q.mu.Lock()
		defer q.mu.Unlock()
		if !q.armed {
			return
		}
		q.armed = false
		q.expired.Store(true)
		expire()
	})
	q.t.Stop()
	return q
}

// Start starts the timer for a call.
func (q *QueryTimer) Start() {
	if q == nil {
		return
	}
	q.mu.Lock()
	q.armed = true
	q.expired.Store(false)
	q.t.Reset(q.d)
	q.mu.Unlock()
}

// Stop stops the timer after a call. Once it returns, expire does not run
// for that call.
func (q *QueryTimer) Stop() {
	if q == nil {
		return
	}
	q.mu.Lock()
	q.armed = false
	q.t.Stop()
	q.mu.Unlock()
}

// Clear forgets that the timeout ended the last call.
func (q *QueryTimer) Clear() {
	if q != nil {
		q.expired.Store(false)
	}
}

// Expired reports whether the timeout ended the last call started.
func (q *QueryTimer) Expired() bool { return q != nil && q.expired.Load() }

// Timeout is the timer's limit.
func (q *QueryTimer) Timeout() time.Duration { return q.d }

// Relink reconnects, with connect, a connection that --query-timeout (d)
// gave up, trying for d at most: a call waits no longer for a server that
// does not let it connect than for one that does not answer. It fails
// with the TimeoutError of the call op (with query), of kind Reconnect:
// the event restarts and its next call tries again, so that every
// timeout is counted and --time's end is seen between tries.
func Relink(ctx context.Context, d time.Duration, connect func(context.Context) error, op, query string) error {
	rctx, cancel := context.WithTimeout(ctx, d)
	err := RetryUntil(rctx, connect)
	cancel()
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %w", op, ctx.Err())
	}
	e := TimeoutError(d, op, query)
	e.Msg = fmt.Sprintf("Query timeout: no connection to the server within %s (--query-timeout)", d)
	e.Kind = Reconnect
	return e
}

// WithQueryTimeout is ctx bounded by d, for drivers that interrupt a call
// through its context (database/sql's): ctx itself and a no-op when d is
// 0, so a run without --query-timeout allocates nothing per call.
func WithQueryTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return ctx, noCancel
	}
	return context.WithTimeout(ctx, d)
}

func noCancel() {}

// TimedOut reports whether a call under bounded, made from parent by
// WithQueryTimeout, ended because the timeout passed (parent lives on).
func TimedOut(parent, bounded context.Context) bool {
	return parent.Err() == nil && errors.Is(bounded.Err(), context.DeadlineExceeded)
}
