package mysql

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/drivers/sockio"
)

// conn is one connection, used by one worker goroutine.
//
// The hot path calls go-sql-driver's context-free driver.Queryer,
// driver.Execer and driver.Stmt methods: their Context variants copy the
// arguments and hand the context to a watcher goroutine on every call.
// Cancellation is handled once per context instead, by closing the socket
// when the worker's context ends (see watch).
type conn struct {
	d *drv
	t target
	// observer marks --server-stats' connection, which uses Go's
	// netpoller whatever --mysql-blocking-io says: a sampler blocking an
	// OS thread in its reads takes a processor from the workers
	// (docs/performance-history.md, run 6).
	observer bool
	// sess records, under --server-stats, the session id of a run's
	// connection and the statements it sends (what Questions counts: a
	// query's statements and prepared statements' executions).
	sess *drivers.Session

	// n is the connection's place in the round-robin over the targets:
	// targets[n] is its own, the others its failover (connect).
	n          int
	connectors []driver.Connector // per target, made on first use
	dc         driver.Conn
	queryer    driver.Queryer
	execer     driver.Execer
	gen        int // bumped on every (re)connect; statements re-prepare when it changes

	ncMu sync.Mutex
	nc   net.Conn // the socket of dc, closed to interrupt a cancelled query

	watched   context.Context
	stopWatch func() bool
	busy      atomic.Bool // a call is talking to the server
	aborted   atomic.Bool // abort closed the socket under a call
	// qt is --query-timeout's timer (nil without): it aborts a call that
	// outlives it. lost marks a connection it gave up: the next call
	// connects again (drivers.Relink).
	qt   *drivers.QueryTimer
	lost bool

	res  result
	dest []driver.Value // row buffer for rows.Next
	args []driver.Value // statement arguments
	buf  []byte         // client-side substituted query text
	// statusAt is the index of go-sql-driver's status field (escapes.go).
	statusAt int
	rows     driver.Rows // a multi-statement result with results left

	wire   *wire // our own execute path (wire.go); kept for its buffers
	wireOn bool  // wire speaks on the current connection

	// BulkInsert's prepared statements and reused buffers (bulk.go).
	bulkStmts []bulkStmt
	bulkArgs  []drivers.Value
	bulkBuf   []byte
	bulkFix   []bulkString
	bulkOff   int // gen+1 of a connection that would not prepare one
}

var (
	_ drivers.Conn        = (*conn)(nil)
	_ drivers.Stmt        = (*stmt)(nil)
	_ drivers.BulkBatcher = (*conn)(nil)
)

// BulkBatchSize keeps bulk INSERTs under go-sql-driver's largest cached
// write buffer (256 KiB with the packet header): a longer query gets a
// freshly allocated buffer on every call, which in a prepare was 0.19 KiB
// of garbage per row and ~7% of the client's CPU.
func (c *conn) BulkBatchSize() int { return 256*1024 - 64 }

// connect opens the connection: to the connection's own target, or when
// that fails (refused, timed out, read-only under --mysql-target=read-write)
// to the next ones of the list in order. The error is the own target's.
func (c *conn) connect(ctx context.Context) error {
	count := len(c.d.s.targets)
	if c.observer {
		count = 1 // --server-stats watches its own server only
	}
	var first error
	for _, i := range drivers.FailoverOrder(uint64(c.n), count) {
		err := c.connectTo(ctx, i)
		if err == nil {
			return nil
		}
		if first == nil {
			first = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return first
}

// connectTo opens the connection to target i.
func (c *conn) connectTo(ctx context.Context, i int) error {
	if c.connectors == nil {
		c.connectors = make([]driver.Connector, len(c.d.s.targets))
	}
	t := c.d.s.targets[i]
	if c.connectors[i] == nil {
		mc, err := c.d.mysqlConfig(t, c.dial)
		if err != nil {
			return err
		}
		if c.connectors[i], err = gomysql.NewConnector(mc); err != nil {
			return err
		}
	}
	c.d.debugf("mysql_real_connect(\"%s\", \"%s\", \"%s\", %d, \"%s\")", t.host, c.d.s.user, c.d.s.db, t.port, t.socket)
	dc, err := c.connectors[i].Connect(ctx)
	if err != nil {
		return &targetError{t: t, err: err}
	}
	if err := ctx.Err(); err != nil {
		// The connect's context ended as the connect completed:
		// go-sql-driver's watcher of it may close the connection after
		// Connect returned it, and its first call would fail as a lost
		// connection (2013), ending a run that ignored only HYT00 when a
		// reconnect after --query-timeout (its tries bounded by the
		// timeout) took about that long. (The PostgreSQL driver's
		// connectConfig gives up such a connect for the same reason.)
		dc.Close()
		return &targetError{t: t, err: err}
	}
	q, ok1 := dc.(driver.Queryer)
	e, ok2 := dc.(driver.Execer)
	if !ok1 || !ok2 {
		dc.Close()
		return errors.New("go-sql-driver/mysql connection lacks Queryer/Execer")
	}
	if c.d.s.readWrite && !c.observer {
		if err := checkWritable(q); err != nil {
			dc.Close()
			return &targetError{t: t, err: err}
		}
	}
	c.t = t
	c.dc, c.queryer, c.execer = dc, q, e
	c.statusAt = statusField(dc)
	c.gen++
	c.wireOn = false
	if !c.observer && c.d.sessions.Tracking() {
		c.track()
		if c.d.s.readWrite {
			c.sess.Count(1) // checkWritable's statement
		}
	}
	if c.d.s.tls == nil && !c.d.s.compress && !c.d.noWire {
		if w := newWire(dc, c.nc, c.wire); w != nil {
			c.wire, c.wireOn = w, true
		}
	}
	return nil
}

// targetError is a failed connect to target t.
type targetError struct {
	t   target
	err error
}

func (e *targetError) Error() string { return e.err.Error() }
func (e *targetError) Unwrap() error { return e.err }

// errReadOnly is a server refused under --mysql-target=read-write.
var errReadOnly = &gomysql.MySQLError{Number: erOptionPreventsStatement, SQLState: [5]byte{'H', 'Y', '0', '0', '0'},
	Message: "The MariaDB server is running with the --read-only option so it cannot execute this statement"}

// checkWritable fails with errReadOnly when the server is read-only (a
// replica, or a primary demoted with SET GLOBAL read_only).
func checkWritable(q driver.Queryer) error {
	rs, err := q.Query("SELECT @@global.read_only", nil)
	if err != nil {
		return err
	}
	defer rs.Close()
	row := make([]driver.Value, 1)
	if err := rs.Next(row); err != nil {
		return err
	}
	switch v := row[0].(type) {
	case []byte:
		if string(v) != "0" {
			return errReadOnly
		}
	case int64:
		if v != 0 {
			return errReadOnly
		}
	}
	return nil
}

var _ drivers.Endpointer = (*conn)(nil)

// Endpoint is the host and port (or socket) the connection is open to.
func (c *conn) Endpoint() drivers.Endpoint {
	if c.dc == nil {
		return drivers.Endpoint{}
	}
	return c.t.endpoint()
}

// track records the new connection as one of the run's sessions: its id
// is asked (a statement of the run's, counted as such).
func (c *conn) track() {
	rs, err := c.queryer.Query("SELECT CONNECTION_ID()", nil)
	if err != nil {
		return
	}
	defer rs.Close()
	row := make([]driver.Value, 1)
	if rs.Next(row) != nil {
		return
	}
	var id string
	switch v := row[0].(type) {
	case []byte:
		id = string(v)
	default:
		id = fmt.Sprint(v)
	}
	c.sess = c.d.sessions.Open(id)
	c.sess.Count(1)
}

// dial opens the socket and remembers it so abort can close it.
func (c *conn) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	dctx, cancel := drivers.DialAttempt(ctx)
	nc, err := d.DialContext(dctx, network, addr)
	cancel()
	if err != nil {
		return nil, err
	}
	nc = sockio.Adopt(nc, c.d.s.blocking && !c.observer)
	c.ncMu.Lock()
	c.nc = nc
	c.ncMu.Unlock()
	return nc, nil
}

// watch arranges for the socket to be closed when ctx ends, so a query
// blocked on the server returns. It costs nothing while ctx stays the same.
// An idle connection is left open: it may be used again with another
// context (a script's thread_done after the run ended).
func (c *conn) watch(ctx context.Context) {
	if ctx == c.watched {
		return
	}
	if c.stopWatch != nil {
		c.stopWatch()
		c.stopWatch = nil
	}
	c.watched = ctx
	if ctx.Done() != nil {
		c.stopWatch = context.AfterFunc(ctx, c.abort)
	}
}

// abort runs once ctx is done. A call marks itself busy before checking
// ctx, so either it sees the cancellation or abort sees it busy.
func (c *conn) abort() {
	if !c.busy.Load() {
		return
	}
	c.ncMu.Lock()
	if c.nc != nil {
		c.nc.Close()
		c.aborted.Store(true)
	}
	c.ncMu.Unlock()
}

// begin prepares the connection for a new call; the caller defers idle.
func (c *conn) begin(ctx context.Context, query, op string) error {
	c.watch(ctx)
	c.busy.Store(true)
	if err := ctx.Err(); err != nil {
		return err
	}
	if c.aborted.Load() {
		// Our own abort closed the socket: not a lost connection.
		c.aborted.Store(false)
		if c.qt.Expired() {
			// The query timer fired as the last call completed: that call
			// had its answer, but the connection, and any transaction it
			// held, went with the socket. Whether it held one the driver
			// cannot tell (go-sql-driver keeps the server's status to
			// itself), and a silent reconnect would run the rest of a
			// transaction in autocommit: this call fails with the
			// timeout's HYT00, as the last one would have a moment later,
			// and the event restarts on a connection made anew
			// (timedOut).
			return c.timedOut(query, op)
		}
		c.close()
		if err := c.connect(ctx); err != nil {
			c.close()
		}
	}
	if c.rows != nil {
		c.rows.Close()
		c.rows = nil
	}
	if c.lost {
		c.qt.Clear()
		if err := drivers.Relink(ctx, c.qt.Timeout(), c.connect, "mysql_real_connect()", ""); err != nil {
			return err
		}
		c.lost = false
	}
	c.qt.Start()
	return nil
}

func (c *conn) idle() {
	c.qt.Stop()
	c.busy.Store(false)
}

// gone reports a call on a connection lost earlier: a 2006 error, which
// reconnects when it is ignorable, as libmysqlclient would report it.
func (c *conn) gone(ctx context.Context, query, op string) error {
	return c.fail(ctx, driver.ErrBadConn, query, op)
}

// Query runs SQL text and buffers its first result.
func (c *conn) Query(ctx context.Context, query string) (drivers.Result, error) {
	defer c.idle()
	if err := c.begin(ctx, query, "mysql_drv_query()"); err != nil {
		return nil, err
	}
	if c.dc == nil {
		return nil, c.gone(ctx, query, "mysql_drv_query()")
	}
	return c.run(ctx, query, returnsRows(query) || multiStatement(query))
}

// run sends query as text. rows selects Query (result set) over Exec.
func (c *conn) run(ctx context.Context, query string, rows bool) (drivers.Result, error) {
	const op = "mysql_drv_query()"
	if c.d.s.debug {
		c.d.debugf("mysql_real_query(\"%s\", %d)", query, len(query))
	}
	c.sess.Count(1)
	if !rows {
		r, err := c.execer.Exec(query, nil)
		if err != nil {
			return nil, c.fail(ctx, err, query, op)
		}
		n, _ := r.RowsAffected()
		c.res.setExec(n)
		return &c.res, nil
	}
	rs, err := c.queryer.Query(query, nil)
	if err != nil {
		return nil, c.fail(ctx, err, query, op)
	}
	return c.store(ctx, rs, len(rs.Columns()), "mysql_store_result()")
}

// store buffers every row of rs and keeps rs only if more results follow.
func (c *conn) store(ctx context.Context, rs driver.Rows, nfields int, op string) (drivers.Result, error) {
	res, err := c.storeRows(rs, nfields)
	if err != nil {
		return nil, c.fail(ctx, err, "", op)
	}
	return res, nil
}

// storeRows is store with the error left to the caller to report.
func (c *conn) storeRows(rs driver.Rows, nfields int) (drivers.Result, error) {
	if cap(c.dest) < nfields {
		c.dest = make([]driver.Value, nfields)
	}
	if err := c.res.fill(rs, nfields, c.dest[:nfields]); err != nil {
		rs.Close()
		c.res.reset()
		return nil, err
	}
	if m, ok := rs.(driver.RowsNextResultSet); ok && m.HasNextResultSet() {
		c.rows = rs
	} else {
		rs.Close()
	}
	return &c.res, nil
}

// MoreResults reports whether a multi-statement query left results.
func (c *conn) MoreResults() bool {
	if c.rows == nil {
		return false
	}
	m, ok := c.rows.(driver.RowsNextResultSet)
	return ok && m.HasNextResultSet()
}

// NextResult moves to the next result set of a multi-statement query. With
// none left it returns an empty result. Statements without a result set
// inside a batch are skipped.
func (c *conn) NextResult(ctx context.Context) (drivers.Result, error) {
	c.watch(ctx)
	c.busy.Store(true)
	defer c.idle()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rs := c.rows
	if rs == nil {
		c.res.reset()
		return &c.res, nil
	}
	c.rows = nil
	m, ok := rs.(driver.RowsNextResultSet)
	if !ok {
		rs.Close()
		c.res.reset()
		return &c.res, nil
	}
	if err := m.NextResultSet(); err != nil {
		rs.Close()
		c.res.reset()
		if err == io.EOF {
			return &c.res, nil
		}
		return nil, c.fail(ctx, err, "", "mysql_next_result()")
	}
	c.sess.Count(1) // another statement of the query
	return c.store(ctx, rs, len(rs.Columns()), "mysql_store_result()")
}

// fail converts err into *drivers.Error, decides its kind from
// --mysql-ignore-errors, reconnects after a lost connection that is to be
// ignored, and prints what the reference prints.
func (c *conn) fail(ctx context.Context, err error, query, op string) error {
	if c.qt.Expired() && ctx.Err() == nil {
		return c.timedOut(query, op)
	}
	if ctx.Err() != nil {
		c.close()
		return fmt.Errorf("%s: %w", op, ctx.Err())
	}
	e := queryError(err, strings.Clone(query), op)
	if lostConn(err) {
		// go-sql-driver closes a connection it lost; so do we.
		c.close()
	}
	if !c.d.ignorable(e.Code) {
		e.Kind = drivers.Fatal
		c.logFatal(op, strconv.Itoa(e.Code), e)
		return e
	}
	c.d.debugf("Ignoring error %d %s, ", e.Code, e.Msg)
	if !reconnectable(e.Code) {
		e.Kind = drivers.Ignorable
		return e
	}
	e.Kind = drivers.Reconnect
	if rerr := c.reconnectLoop(ctx); rerr != nil {
		return rerr
	}
	return e
}

// logFatal prints the FATAL line of an error that ends the run, as the
// reference words it: the operation, the error's code and the query.
func (c *conn) logFatal(op, code string, e *drivers.Error) {
	if e.Query != "" {
		c.d.log.Fatalf("%s returned error %s (%s) for query '%s'", op, code, e.Msg, e.Query)
	} else {
		c.d.log.Fatalf("%s returned error %s (%s)", op, code, e.Msg)
	}
}

// timedOut gives up the connection of a call that --query-timeout
// ended (abort closed its socket). When the timeout is ignored the event
// restarts and its next call connects again, for the timeout at most
// (drivers.Relink).
func (c *conn) timedOut(query, op string) error {
	c.qt.Stop()
	c.aborted.Store(false)
	c.close()
	e := drivers.TimeoutError(c.qt.Timeout(), op, strings.Clone(query))
	if !c.d.ignorableTimeout() {
		e.Kind = drivers.Fatal
		c.logFatal(op, e.State, e)
		return e
	}
	c.d.debugf("Ignoring error %s %s, ", e.State, e.Msg)
	e.Kind = drivers.Reconnect
	c.lost = true
	return e
}

// reconnectLoop reconnects until it succeeds or ctx ends, as the
// reference does after an ignored lost connection.
func (c *conn) reconnectLoop(ctx context.Context) error {
	c.d.debugf("Reconnecting")
	c.close()
	err := drivers.RetryUntil(ctx, c.connect)
	if err == nil {
		c.d.debugf("Reconnected")
	}
	return err
}

// Reconnect closes the connection and opens it again on the same target.
func (c *conn) Reconnect(ctx context.Context) error {
	c.watch(ctx)
	c.busy.Store(true)
	defer c.idle()
	c.aborted.Store(false)
	return c.reconnectLoop(ctx)
}

// close drops the server connection but keeps the conn reusable.
func (c *conn) close() {
	if c.rows != nil {
		c.rows.Close()
		c.rows = nil
	}
	if c.dc != nil {
		c.dc.Close()
		c.dc, c.queryer, c.execer = nil, nil, nil
	}
	c.sess.Close()
	c.sess = nil
	c.ncMu.Lock()
	c.nc = nil
	c.ncMu.Unlock()
}

// Close closes the connection.
func (c *conn) Close() error {
	if c.stopWatch != nil {
		c.stopWatch()
		c.stopWatch = nil
	}
	c.watched = nil
	c.close()
	return nil
}

// Prepare prepares query on the server (--db-ps-mode=auto) or keeps it for
// client-side substitution (disable, or when the server answers 1295).
func (c *conn) Prepare(ctx context.Context, query string) (drivers.Stmt, error) {
	s := &stmt{c: c, query: query, rows: returnsRows(query) || multiStatement(query), ncols: -1}
	if c.d.s.psMode == drivers.PSDisable {
		s.emulated = true
		return s, nil
	}
	defer c.idle()
	if err := c.begin(ctx, query, "mysql_stmt_prepare()"); err != nil {
		return nil, err
	}
	var err error
	if c.dc == nil {
		err = driver.ErrBadConn
	} else {
		err = s.prepare()
	}
	if err == nil {
		return s, nil
	}
	var me *gomysql.MySQLError
	if errors.As(err, &me) && me.Number == erUnsupportedPS {
		c.d.debugf("Failed to prepare query \"%s\" (%d: %s), using emulation", query, me.Number, me.Message)
		s.emulated = true
		return s, nil
	}
	if c.qt.Expired() && ctx.Err() == nil {
		return nil, c.timedOut(query, "mysql_stmt_prepare()")
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("mysql_stmt_prepare(): %w", ctx.Err())
	}
	if lostConn(err) {
		if code := queryError(err, "", "").Code; reconnectable(code) && c.d.ignorable(code) {
			// A lost connection found by a prepare rather than a query
			// (a script preparing in event(), or oltp_common's
			// before_restart_event hook after an earlier reconnect):
			// reconnect and restart the event all the same, where the
			// reference gives up. Errors from the server stay fatal.
			return nil, c.fail(ctx, err, query, "mysql_stmt_prepare()")
		}
	}
	e := queryError(err, query, "mysql_stmt_prepare()")
	e.Kind = drivers.Fatal
	c.d.log.Fatalf("mysql_stmt_prepare() failed")
	c.d.log.Fatalf("MySQL error: %d \"%s\"", e.Code, e.Msg)
	if lostConn(err) {
		c.close()
	}
	return nil, e
}

// stmt is a prepared statement.
type stmt struct {
	c        *conn
	query    string
	rows     bool // run with a result set (see classify.go)
	emulated bool // client-side substitution

	ds      driver.Stmt
	gen     int // c.gen when ds was prepared
	nparams int
	ncols   int // columns of the result set, -1 until known

	wire bool     // executed by c.wire
	id   uint32   // the server's statement id, for wire
	cols []column // result columns as wire last saw them
}

func (s *stmt) prepare() error {
	if s.c.d.s.debug {
		s.c.d.debugf("mysql_stmt_prepare(\"%s\", %d)", s.query, len(s.query))
	}
	ds, err := s.c.dc.Prepare(s.query)
	if err != nil {
		return err
	}
	s.ds, s.gen, s.nparams, s.ncols = ds, s.c.gen, ds.NumInput(), -1
	s.wire = false
	// A CALL may return several results, which NextResult reads through
	// go-sql-driver.
	if s.c.wireOn && !isCall(s.query) {
		s.id, s.cols, s.wire = stmtInfo(ds, s.cols)
	}
	return nil
}

// emptyBytes is sent for empty non-NULL strings: a nil []byte is NULL.
var emptyBytes = []byte{}

// Execute runs the statement with args.
func (s *stmt) Execute(ctx context.Context, args []drivers.Value) (drivers.Result, error) {
	c := s.c
	defer c.idle()
	op := "mysql_stmt_execute()"
	if s.emulated {
		op = "mysql_drv_query()"
	}
	if err := c.begin(ctx, s.query, op); err != nil {
		return nil, err
	}
	if c.dc == nil {
		return nil, c.gone(ctx, s.query, op)
	}
	if s.emulated {
		buf, err := drivers.Interpolate(c.buf[:0], s.query, args, c.dialect())
		c.buf = buf
		if errors.Is(err, drivers.ErrNoLiteral) {
			// A value that no text can stand for: this execution goes
			// as written, prepared on the server, as the statement would
			// have without --db-ps-mode=disable.
			res, op, err := s.execute(args)
			if err != nil {
				if op == "" {
					return nil, err
				}
				return nil, c.fail(ctx, err, queryFor(op, s.query), op)
			}
			return res, nil
		}
		if err != nil {
			c.d.log.Fatalf("%s", err)
			return nil, &drivers.Error{Kind: drivers.Fatal, Code: crUnknownError, State: "HY000", Msg: err.Error(), Query: s.query, Op: "mysql_drv_execute()"}
		}
		// The driver copies the text into its packet buffer before
		// returning; c.buf is not touched until the next call.
		return c.run(ctx, unsafe.String(unsafe.SliceData(buf), len(buf)), s.rows)
	}

	res, op, err := s.execute(args)
	if err != nil {
		if op == "" { // already reported
			return nil, err
		}
		return nil, c.fail(ctx, err, queryFor(op, s.query), op)
	}
	return res, nil
}

// queryFor is the query that an error in the C API call op is reported
// with: none for fetching a result, as the reference reports it.
func queryFor(op, query string) string {
	if op == "mysql_stmt_store_result()" {
		return ""
	}
	return query
}

// execute runs a server-side prepared statement, preparing it again on a
// new connection. A failure comes back unreported, with the C API call
// that sysbench would name for it, or with op "" when it is reported
// already.
func (s *stmt) execute(args []drivers.Value) (drivers.Result, string, error) {
	c := s.c
	if s.gen != c.gen {
		// The connection was re-established: prepare again.
		if err := s.prepare(); err != nil {
			return nil, "mysql_stmt_prepare()", err
		}
	}
	if len(args) != s.nparams {
		c.d.log.Fatalf("Wrong number of parameters to mysql_stmt_bind_param")
		return nil, "", &drivers.Error{Kind: drivers.Fatal, Code: crUnknownError, State: "HY000",
			Msg: fmt.Sprintf("statement has %d parameters, %d given", s.nparams, len(args)), Query: s.query, Op: "mysql_stmt_bind_param()"}
	}
	if c.d.s.debug {
		c.d.debugf("mysql_stmt_execute(\"%s\")", s.query)
	}
	c.sess.Count(1)
	if s.wire {
		if err := c.wire.execute(s, args, &c.res); err != nil {
			if f, ok := err.(fetchError); ok {
				return nil, "mysql_stmt_store_result()", f.error
			}
			return nil, "mysql_stmt_execute()", err
		}
		return &c.res, "", nil
	}
	c.args = c.args[:0]
	for i := range args {
		a := &args[i]
		var v driver.Value
		switch {
		case a.Null:
		case a.Type.IsInteger():
			v = a.Int
		case a.Type.IsFloat():
			v = a.Float
		case a.Str == nil:
			v = emptyBytes
		default:
			v = a.Str
		}
		c.args = append(c.args, v)
	}
	defer clear(c.args) // the caller owns the argument bytes

	if !s.rows {
		r, err := s.ds.Exec(c.args)
		if err != nil {
			return nil, "mysql_stmt_execute()", err
		}
		n, _ := r.RowsAffected()
		c.res.setExec(n)
		return &c.res, "", nil
	}
	rs, err := s.ds.Query(c.args)
	if err != nil {
		return nil, "mysql_stmt_execute()", err
	}
	if s.ncols < 0 {
		s.ncols = len(rs.Columns())
	}
	res, err := c.storeRows(rs, s.ncols)
	if err != nil {
		return nil, "mysql_stmt_store_result()", err
	}
	return res, "", nil
}

// Close frees the server-side statement.
func (s *stmt) Close() error {
	if s.ds != nil && s.gen == s.c.gen && s.c.dc != nil {
		s.ds.Close()
	}
	s.ds = nil
	return nil
}

var _ drivers.ServerVersioner = (*conn)(nil)

// ServerVersion is the server's version string.
func (c *conn) ServerVersion(ctx context.Context) (string, error) {
	return drivers.QueryString(ctx, c, "SELECT VERSION()")
}
