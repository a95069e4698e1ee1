package pgsql

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sysbench-go/sysbench-go/drivers"
)

// conn is one server connection. It is used by one goroutine, except that
// a context cancellation may interrupt it from another (see begin).
type conn struct {
	d *driver
	n uint64 // connection number, selects host and port
	// observer marks --server-stats' connection, which uses Go's
	// netpoller whatever --pgsql-blocking-io says: a sampler blocking an
	// OS thread in its reads takes a processor from the workers.
	observer bool
	pg       *pgconn.PgConn
	// endpoint is where pg was opened to.
	endpoint drivers.Endpoint
	// sess records, under --server-stats, the backend of a run's
	// connection and the transactions it ended (what pg_stat_database
	// counts in xact_commit and xact_rollback).
	sess *drivers.Session

	// gen counts (re)connections; a statement prepared under an older
	// generation is prepared again before use.
	gen     int
	stmtSeq int

	copyBuf []byte // BulkInsert's COPY data, reused

	// results of the last call; more than one after a multi-statement query.
	results []*result
	nres    int
	cur     int

	sqlBuf []byte // client-side substitution buffer

	// Context handling without pgconn's per-query watcher goroutine: one
	// context.AfterFunc per distinct context, which expires the socket
	// deadline if that context ends while a call made with it is running.
	watched   context.Context
	stopWatch func() bool
	watchID   uint64
	mu        sync.Mutex // guards active and expired against interrupt
	active    uint64     // watchID of the running call's context, 0 if none
	expired   bool       // the socket deadline was set by interrupt
	calling   bool       // a call is talking to the server (guarded by mu)
	// lost marks a connection that --query-timeout gave up: the next
	// call connects again (drivers.Relink).
	lost bool
	// qt is --query-timeout's timer (nil without): it ends a call that
	// outlives it as interrupt does.
	qt *drivers.QueryTimer
}

var _ drivers.Conn = (*conn)(nil)

// open connects, printing the reference's FATAL line when it cannot.
func (c *conn) open(ctx context.Context) error {
	err := c.dial(ctx)
	var e *drivers.Error
	if errors.As(err, &e) && e.Op == "PQsetdbLogin()" {
		c.d.log.Fatalf("Connection to database failed: %s", e.Msg)
	}
	return err
}

// dial connects and prints nothing.
func (c *conn) dial(ctx context.Context) error {
	var at dialNote
	cfg, err := c.d.config(c.n, c.d.blocking && !c.observer, at.note)
	if err != nil {
		return err
	}
	pg, err := connectConfig(ctx, cfg)
	endpoint, tried := at.finish()
	if err != nil {
		host, port := c.d.endpoint(c.n)
		msg := connectErrorMessage(err, host, port, c.d.sockets)
		if m := hostsErrorMessage(err, tried, c.d.sockets); m != "" {
			msg = m
		}
		e := &drivers.Error{Kind: drivers.Fatal, State: "08001", Msg: msg, Op: "PQsetdbLogin()"}
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) {
			e.State = pgErr.Code
		}
		return e
	}
	c.mu.Lock()
	c.pg = pg
	c.mu.Unlock()
	c.endpoint = endpoint
	c.gen++
	if !c.observer {
		c.sess = c.d.sessions.Open(strconv.FormatUint(uint64(pg.PID()), 10))
	}
	return nil
}

// connectConfig connects with cfg, and gives up a connection whose
// connect ended with ctx done: pgconn watches ctx during the connect and,
// when it ends, expires the socket's deadline, which on a blocking socket
// (sockio.Conn) shuts it down for good, while a connect that read the
// server's last start-up message already completes all the same (the
// deadline it clears after it restores nothing). Such a connection failed
// its first call as a lost one (08006): a reconnect after --query-timeout,
// whose tries are bounded by the timeout, ended a run that ignored only
// HYT00 when the server took about that long to let it in.
func connectConfig(ctx context.Context, cfg *pgconn.Config) (*pgconn.PgConn, error) {
	pg, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
		_ = pg.Close(closeCtx)
		cancel()
		return nil, fmt.Errorf("connect: %w", err)
	}
	return pg, nil
}

// dialNote learns where the sockets of one connect went: every host
// tried, in order, and the last one opened, which is the connection's
// (pgconn drops a host that is not of the wanted kind for the next). The
// dials pgconn makes later on the same configuration (a cancel request,
// from a goroutine of its own) are not noted.
type dialNote struct {
	mu    sync.Mutex
	done  bool
	at    drivers.Endpoint
	tried []drivers.Endpoint
}

// note records a socket to addr, opened when ok: a TCP host:port as the
// user wrote it, or a socket file.
func (n *dialNote) note(network, addr string, ok bool) {
	var at drivers.Endpoint
	if network == "unix" {
		dir, port, _ := splitSocketPath(addr)
		at = drivers.Endpoint{Socket: dir, Port: port}
	} else {
		host, port, _ := net.SplitHostPort(addr)
		p, _ := strconv.Atoi(port)
		at = drivers.Endpoint{Host: host, Port: p}
	}
	n.mu.Lock()
	if !n.done {
		n.tried = append(n.tried, at)
		if ok {
			n.at = at
		}
	}
	n.mu.Unlock()
}

// finish ends the connect and returns where its last socket went and
// every host it tried.
func (n *dialNote) finish() (drivers.Endpoint, []drivers.Endpoint) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.done = true
	return n.at, n.tried
}

var _ drivers.Endpointer = (*conn)(nil)

// Endpoint is the host and port (or socket) the connection is open to.
func (c *conn) Endpoint() drivers.Endpoint {
	if c.pg == nil {
		return drivers.Endpoint{}
	}
	return c.endpoint
}

// Reconnect is not supported, as by the reference's pgsql driver:
// con:reconnect() says so and the connection stays as it is. A lost
// connection is re-established by reconnectLoop when its state is ignorable.
func (c *conn) Reconnect(context.Context) error {
	return drivers.ErrReconnectUnsupported
}

// reconnectLoop reopens a lost connection, trying again until it succeeds
// or ctx ends, as the MySQL driver (and sysbench's) does: a server that
// restarts refuses connections, or answers "the database system is
// starting up", for a while.
func (c *conn) reconnectLoop(ctx context.Context) error {
	c.closePg()
	return drivers.RetryUntil(ctx, c.dial)
}

func (c *conn) closePg() {
	if c.pg != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_ = c.pg.Close(ctx)
		cancel()
		c.mu.Lock()
		c.pg = nil
		c.mu.Unlock()
	}
	c.sess.Close()
	c.sess = nil
}

// Close closes the connection.
func (c *conn) Close() error {
	c.closePg()
	if c.stopWatch != nil {
		c.stopWatch()
		c.stopWatch, c.watched = nil, nil
	}
	return nil
}

// begin marks the connection busy for ctx. pgconn is always called with
// context.Background(); this guard does the cancellation instead.
func (c *conn) begin(ctx context.Context) error {
	if err := c.settleExpired(ctx); err != nil {
		return err
	}
	if err := c.relink(ctx); err != nil {
		return err
	}
	if c.pg == nil {
		return &drivers.Error{Kind: drivers.Fatal, State: lostConnState, Msg: "connection is closed"}
	}
	cancellable := ctx.Done() != nil
	if cancellable && ctx != c.watched {
		if c.stopWatch != nil {
			c.stopWatch()
		}
		c.watchID++
		id := c.watchID
		c.watched = ctx
		c.stopWatch = context.AfterFunc(ctx, func() { c.interrupt(id) })
	}
	c.mu.Lock()
	if cancellable {
		c.active = c.watchID
	}
	c.calling = true
	c.mu.Unlock()
	if err := ctx.Err(); err != nil {
		c.release()
		return err
	}
	c.qt.Start()
	return nil
}

// settleExpired gives up the connection when the query timer or a
// cancelled context expired its socket's deadline as the last call on it
// completed: the call had its answer and stands, but the socket is done
// for. A deadline that has passed shuts a blocking socket (sockio.Conn)
// for good, and clearing it again restores nothing: the next call failed
// as a lost connection (08006), which ended a run that ignored only
// HYT00. Outside a transaction the next call connects again: after the
// timer within --query-timeout (relink), after a cancellation at once.
// Inside one, the transaction went with the connection: after the timer
// the call fails with the timeout's HYT00 (fail sees the timer expired:
// timedOut), as the call before would have had its answer come a moment
// later, and the event restarts; after a cancellation the run is
// stopping, and the call fails as on a closed connection.
func (c *conn) settleExpired(ctx context.Context) error {
	c.mu.Lock()
	expired := c.expired
	c.expired = false
	c.mu.Unlock()
	if !expired || c.pg == nil {
		return nil
	}
	inTx := c.pg.TxStatus() != 'I'
	c.closePg()
	switch {
	case inTx:
		return &drivers.Error{Kind: drivers.Fatal, State: lostConnState, Msg: "connection is closed"}
	case c.qt.Expired():
		c.lost = true
		return nil
	default:
		return c.reconnectLoop(ctx)
	}
}

// end follows every call to the server: the connection is no longer
// busy, and a transaction that the call ended (the server is idle after
// it: an implicit one of a statement, a COMMIT or ROLLBACK, a prepare's
// Sync) is counted for --server-stats.
func (c *conn) end() {
	c.release()
	c.countTransaction()
}

// countTransaction counts a transaction ended by the last call.
func (c *conn) countTransaction() {
	if c.sess != nil && c.pg != nil && !c.pg.IsClosed() && c.pg.TxStatus() == 'I' {
		c.sess.Count(1)
	}
}

// release marks the connection not busy.
func (c *conn) release() {
	c.qt.Stop()
	c.mu.Lock()
	c.active, c.calling = 0, false
	c.mu.Unlock()
}

// relink connects again when --query-timeout gave the connection up
// (drivers.Relink); prepared statements see the new generation.
func (c *conn) relink(ctx context.Context) error {
	if !c.lost {
		return nil
	}
	c.qt.Clear()
	if err := drivers.Relink(ctx, c.qt.Timeout(), c.dial, "PQexec()", ""); err != nil {
		return err
	}
	c.lost = false
	return nil
}

// expireCall runs on the timer's goroutine when a call outlives
// --query-timeout: it fails the call as interrupt does.
func (c *conn) expireCall() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calling && c.pg != nil {
		c.expired = true
		_ = c.pg.Conn().SetDeadline(time.Now())
	}
}

// timedOut gives up the connection of a call that --query-timeout ended.
// When the timeout is ignored (its state HYT00 or a lost connection in
// --pgsql-ignore-errors, or "all") the event restarts and its next call
// connects again, for the timeout at most (drivers.Relink).
func (c *conn) timedOut(op, query string) error {
	c.mu.Lock()
	c.expired = false
	c.mu.Unlock()
	c.closePg()
	e := drivers.TimeoutError(c.qt.Timeout(), op+"()", query)
	if c.d.ignorable(drivers.QueryTimeoutState) || c.d.ignore[lostConnState] {
		c.lost = true
		e.Kind = drivers.Reconnect
		return e
	}
	c.logFatal(e, nil)
	e.Kind = drivers.Fatal
	return e
}

// interrupt runs on another goroutine when the context with this watch id
// ends: it fails the running call, if that call uses the context.
func (c *conn) interrupt(id uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.active == id && c.pg != nil {
		c.expired = true
		_ = c.pg.Conn().SetDeadline(time.Now())
	}
}

// firstResult returns the result slot for a single-result call.
func (c *conn) firstResult() *result {
	c.nres, c.cur = 0, 0
	return c.resultAt(0)
}

func (c *conn) resultAt(i int) *result {
	for len(c.results) <= i {
		c.results = append(c.results, &result{})
	}
	r := c.results[i]
	r.reset()
	return r
}

// Query runs SQL text with the simple query protocol, as PQexec does; the
// text may hold several statements.
func (c *conn) Query(ctx context.Context, query string) (drivers.Result, error) {
	return c.exec(ctx, query, "PQexec")
}

func (c *conn) exec(ctx context.Context, query, op string) (drivers.Result, error) {
	if err := c.begin(ctx); err != nil {
		return nil, c.fail(ctx, err, op, query)
	}
	c.nres, c.cur = 0, 0
	mrr := c.pg.Exec(context.Background(), query)
	n := 0
	for mrr.NextResult() {
		rr := mrr.ResultReader()
		res := c.resultAt(n)
		n++
		for rr.NextRow() {
			res.addRow(rr.Values())
		}
		fields := rr.FieldDescriptions()
		tag, _ := rr.Close() // errors surface through mrr.Close
		res.finish(fields != nil, len(fields), tag)
	}
	err := mrr.Close()
	c.end()
	if err != nil {
		return nil, c.fail(ctx, err, op, query)
	}
	if n == 0 {
		res := c.resultAt(0)
		res.finish(false, 0, pgconn.CommandTag{})
		n = 1
	}
	c.nres, c.cur = n, 1
	return c.results[0], nil
}

// MoreResults reports whether a multi-statement query left results.
func (c *conn) MoreResults() bool { return c.cur < c.nres }

// NextResult returns the next result of a multi-statement query.
func (c *conn) NextResult(ctx context.Context) (drivers.Result, error) {
	if c.cur >= c.nres {
		return nil, errors.New("pgsql: no more results")
	}
	r := c.results[c.cur]
	c.cur++
	return r, nil
}

// Prepare prepares a statement with '?' placeholders. With --db-ps-mode=auto
// a statement without parameters is prepared on the server at once and one
// with parameters on its first execution, when the parameter types are
// known; with disable, values are substituted into the text on execution.
func (c *conn) Prepare(ctx context.Context, query string) (drivers.Stmt, error) {
	s := &stmt{c: c, query: query}
	s.marks = placeholders(query)
	s.nparams = len(s.marks)
	if c.d.psMode == drivers.PSDisable {
		s.emulated = true
		return s, nil
	}
	s.pgQuery = numberPlaceholders(query, s.marks)
	if s.nparams == 0 {
		if err := s.prepare(ctx, nil); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// fail converts err, returned by the client call op, into a *drivers.Error
// and acts on it the way sysbench does: ignorable errors roll back the
// transaction, fatal ones print FATAL lines. query is the SQL text for
// calls that have one (printed as "failed query was").
func (c *conn) fail(ctx context.Context, err error, op, query string) error {
	if c.qt.Expired() && ctx.Err() == nil {
		return c.timedOut(op, query)
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		// The run is stopping: not a database error.
		c.closePgIfBroken()
		return fmt.Errorf("%s: %w", op, ctxErr)
	}
	var de *drivers.Error
	if errors.As(err, &de) {
		return de
	}
	e := &drivers.Error{Op: op + "()", Query: query}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		e.State, e.Msg = pgErr.Code, pgErr.Message
	} else {
		e.State = lostConnState
		e.Msg = "server closed the connection unexpectedly\n\tThis probably means the server terminated abnormally\n\tbefore or while processing the request."
		if c.pg != nil && !c.pg.IsClosed() {
			e.Msg = err.Error()
		}
	}

	if c.pg == nil || c.pg.IsClosed() {
		if c.d.ignorable(e.State) || c.d.ignore[lostConnState] {
			if rerr := c.reconnectLoop(ctx); rerr != nil {
				return rerr
			}
			e.Kind = drivers.Reconnect
			return e
		}
		c.closePg()
		c.logFatal(e, pgErr)
		e.Kind = drivers.Fatal
		return e
	}

	if c.d.ignorable(e.State) {
		// As sysbench: roll back so that the restarted event begins clean.
		_ = c.pg.Exec(context.Background(), "ROLLBACK").Close()
		c.countTransaction()
		e.Kind = drivers.Ignorable
		return e
	}
	c.logFatal(e, pgErr)
	e.Kind = drivers.Fatal
	return e
}

func (c *conn) closePgIfBroken() {
	if c.pg != nil && c.pg.IsClosed() {
		c.closePg()
	}
}

// logFatal prints the lines sysbench prints for a failed call.
func (c *conn) logFatal(e *drivers.Error, pgErr *pgconn.PgError) {
	if e.Op == "PQprepare()" {
		// libpq's full error message, which ends with a newline.
		msg := e.Msg + "\n"
		if pgErr != nil {
			msg = libpqMessage(pgErr, e.Query)
		}
		c.d.log.Fatalf("PQprepare() failed: %s", msg)
		return
	}
	// 7 is PGRES_FATAL_ERROR, which sysbench prints as a number.
	c.d.log.Fatalf("%s failed: %d %s", e.Op, 7, e.Msg)
	if e.Query != "" {
		c.d.log.Fatalf("failed query was: %s", e.Query)
	}
}

// stmtName returns a new statement name, unique on this connection.
func (c *conn) stmtName() string {
	c.stmtSeq++
	return "sbstmt" + strconv.Itoa(c.stmtSeq)
}

var _ drivers.ServerVersioner = (*conn)(nil)

// ServerVersion is the server_version the server reported at start-up.
func (c *conn) ServerVersion(context.Context) (string, error) {
	if c.pg == nil {
		return "", errors.New("not connected")
	}
	return c.pg.ParameterStatus("server_version"), nil
}
