// Package sqlite is the embedded driver (--db-driver=sqlite) on
// modernc.org/sqlite, a pure-Go SQLite, so that every bundled workload runs
// with no server at all.
//
// Each connection is its own database handle on the same file, with one
// dedicated *sql.Conn, so connections behave like separate clients: in WAL
// mode readers run concurrently and writers take turns. A writer that finds
// the database locked past --sqlite-busy-timeout gets an ignorable error and
// its event restarts, as a deadlock would on a server.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	sqlite "modernc.org/sqlite"

	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/drivers/dryrun"
	"github.com/sysbench-go/sysbench-go/logging"
	"github.com/sysbench-go/sysbench-go/options"
)

// Factory registers the driver.
var Factory = drivers.Factory{
	Name:        "sqlite",
	Description: "SQLite driver (embedded)",
	Extension:   true,
	Options: []options.Option{
		{Name: "sqlite-db", Desc: "SQLite database file, relative to the current directory", Kind: options.String, Default: "sbtest.db"},
		{Name: "sqlite-journal-mode", Desc: "SQLite journal mode (WAL, DELETE, TRUNCATE, PERSIST, MEMORY, OFF)", Kind: options.String, Default: "WAL"},
		{Name: "sqlite-synchronous", Desc: "SQLite synchronous setting (OFF, NORMAL, FULL, EXTRA)", Kind: options.String, Default: "NORMAL"},
		{Name: "sqlite-busy-timeout", Desc: "milliseconds to wait for a locked database before failing with an ignorable error", Kind: options.Int, Default: "5000"},
	},
	Open: Open,
}

// SQLite result codes the driver acts on (primary and extended).
const (
	codeBusy             = 5
	codeLocked           = 6
	codeConstraint       = 19
	codeConstraintPK     = 19 | 6<<8  // SQLITE_CONSTRAINT_PRIMARYKEY
	codeConstraintUnique = 19 | 8<<8  // SQLITE_CONSTRAINT_UNIQUE
	codeConstraintRowID  = 19 | 10<<8 // SQLITE_CONSTRAINT_ROWID
)

type driver struct {
	file    string // --sqlite-db
	dsn     string
	psMode  drivers.PSMode
	log     *logging.Logger
	timeout time.Duration // --query-timeout
	// openMu serialises opening connections: setting the journal mode
	// takes a lock that SQLite's busy handler does not wait for, so two
	// workers connecting at once could fail with "database is locked".
	openMu sync.Mutex
	// writer is held by the connection writing: from BEGIN IMMEDIATE (or
	// the first write of a transaction) to COMMIT/ROLLBACK, or around one
	// autocommit write. SQLite lets one writer in at a time and makes the
	// others poll with growing sleeps, which starves some workers for
	// seconds; queueing on a Go mutex hands the lock over in order instead.
	writer sync.Mutex
}

// Open validates the sqlite-* options.
func Open(cfg drivers.Config) (drivers.Driver, error) {
	if cfg.DryRun {
		return dryrun.New(), nil
	}
	v := cfg.Values
	if v == nil {
		v = options.NewValues()
	}
	str := func(name, def string) string {
		if s, ok := v.Raw(name); ok && s != "" {
			return s
		}
		return def
	}
	file := str("sqlite-db", "sbtest.db")
	journal := strings.ToUpper(str("sqlite-journal-mode", "WAL"))
	switch journal {
	case "WAL", "DELETE", "TRUNCATE", "PERSIST", "MEMORY", "OFF":
	default:
		return nil, fmt.Errorf("invalid value for --sqlite-journal-mode: '%s'", journal)
	}
	sync := strings.ToUpper(str("sqlite-synchronous", "NORMAL"))
	switch sync {
	case "OFF", "NORMAL", "FULL", "EXTRA", "0", "1", "2", "3":
	default:
		return nil, fmt.Errorf("invalid value for --sqlite-synchronous: '%s'", sync)
	}
	busy := int64(5000)
	if s, ok := v.Raw("sqlite-busy-timeout"); ok && s != "" {
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("invalid value for --sqlite-busy-timeout: '%s'", s)
		}
		busy = n
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout("+strconv.FormatInt(busy, 10)+")")
	q.Add("_pragma", "journal_mode("+journal+")")
	q.Add("_pragma", "synchronous("+sync+")")
	d := &driver{
		file:    file,
		dsn:     "file:" + (&url.URL{Path: file}).EscapedPath() + "?" + q.Encode(),
		psMode:  cfg.PSMode,
		log:     logging.OrDiscard(cfg.Log),
		timeout: cfg.QueryTimeout,
	}
	return d, nil
}

func (d *driver) Connect(ctx context.Context) (drivers.Conn, error) {
	c := &conn{d: d}
	if err := c.open(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

func (d *driver) Close() error { return nil }

var _ drivers.Driver = (*driver)(nil)

var _ drivers.Endpointer = (*conn)(nil)

// Endpoint is the database file, as --sqlite-db names it.
func (c *conn) Endpoint() drivers.Endpoint { return drivers.Endpoint{Socket: c.d.file} }

type conn struct {
	d    *driver
	db   *sql.DB
	sc   *sql.Conn
	res  result
	args []any // reused for Execute
	sql  []byte
	gen  int // incremented by each (re)open: statements of an older one are stale

	inTx  bool // between BEGIN and COMMIT/ROLLBACK
	holds bool // holds d.writer
}

// gate says how a statement takes part in the writer queue.
type gate int

const (
	gateNone   gate = iota // reads
	gateBegin              // BEGIN: a transaction starts (IMMEDIATE/EXCLUSIVE ones write)
	gateBeginW             // BEGIN IMMEDIATE / EXCLUSIVE
	gateEnd                // COMMIT, END, ROLLBACK
	gateWrite              // statements that write
)

func gateOf(q string) gate {
	switch keyword(q) {
	case "BEGIN":
		u := strings.ToUpper(q)
		if strings.Contains(u, "IMMEDIATE") || strings.Contains(u, "EXCLUSIVE") {
			return gateBeginW
		}
		return gateBegin
	case "COMMIT", "END", "ROLLBACK":
		if strings.Contains(strings.ToUpper(q), " TO ") { // ROLLBACK TO savepoint
			return gateNone
		}
		return gateEnd
	case "INSERT", "UPDATE", "DELETE", "REPLACE", "CREATE", "DROP", "ALTER", "VACUUM", "REINDEX", "ANALYZE":
		return gateWrite
	}
	return gateNone
}

// enter queues for the writer lock before a statement that needs it.
func (c *conn) enter(g gate) {
	if (g == gateBeginW || g == gateWrite) && !c.holds {
		c.d.writer.Lock()
		c.holds = true
	}
}

// leave updates the transaction state after a statement ran (err is its
// outcome) and releases the writer lock when the writing is over.
func (c *conn) leave(g gate, err error) {
	switch g {
	case gateBegin, gateBeginW:
		c.inTx = err == nil
	case gateEnd:
		c.inTx = false
	}
	if c.holds && !c.inTx {
		c.release()
	}
}

func (c *conn) release() {
	if c.holds {
		c.holds = false
		c.d.writer.Unlock()
	}
}

var _ drivers.Conn = (*conn)(nil)

func (c *conn) open(ctx context.Context) error {
	c.d.openMu.Lock()
	defer c.d.openMu.Unlock()
	db, err := sql.Open("sqlite", c.d.dsn)
	if err == nil {
		db.SetMaxOpenConns(1)
		db.SetMaxIdleConns(1)
		db.SetConnMaxLifetime(0)
		c.sc, err = db.Conn(ctx)
		if err != nil {
			db.Close()
		}
	}
	if err != nil {
		c.d.log.Fatalf("unable to open SQLite database: %s", errorMessage(err))
		return c.convert(err, "sqlite3_open()", "")
	}
	c.db = db
	c.gen++
	return nil
}

func (c *conn) Reconnect(ctx context.Context) error {
	c.Close()
	return c.open(ctx)
}

func (c *conn) Close() error {
	c.inTx = false
	c.release()
	if c.sc != nil {
		c.sc.Close()
		c.sc = nil
	}
	if c.db != nil {
		c.db.Close()
		c.db = nil
	}
	return nil
}

func (c *conn) MoreResults() bool { return false }

func (c *conn) NextResult(context.Context) (drivers.Result, error) {
	return nil, errors.New("sqlite: no more results")
}

// Query runs SQL text. Statements that return rows are read through a
// cursor and buffered; others report the rows they changed.
func (c *conn) Query(ctx context.Context, query string) (drivers.Result, error) {
	if c.sc == nil {
		return nil, c.closedError(query)
	}
	g := gateOf(query)
	c.enter(g)
	res, err := c.run(ctx, query, classify(query), returnsRows(query), nil, nil)
	c.leave(g, err)
	return res, err
}

// run executes a statement (st, or the text query when st is nil),
// within --query-timeout.
func (c *conn) run(ctx context.Context, query string, cnt drivers.Counter, rowsWanted bool, st *sql.Stmt, args []any) (drivers.Result, error) {
	if c.d.timeout <= 0 {
		return c.runIn(ctx, query, cnt, rowsWanted, st, args)
	}
	bctx, cancel := drivers.WithQueryTimeout(ctx, c.d.timeout)
	defer cancel()
	res, err := c.runIn(bctx, query, cnt, rowsWanted, st, args)
	if err != nil && drivers.TimedOut(ctx, bctx) {
		// SQLite was interrupted: the statement and its transaction are
		// rolled back, and the event may restart, as after a lock wait.
		_, _ = c.sc.ExecContext(context.Background(), "ROLLBACK")
		c.inTx = false
		c.release()
		e := drivers.TimeoutError(c.d.timeout, "sqlite3_step()", query)
		e.Kind = drivers.Ignorable
		return nil, e
	}
	return res, err
}

func (c *conn) runIn(ctx context.Context, query string, cnt drivers.Counter, rowsWanted bool, st *sql.Stmt, args []any) (drivers.Result, error) {
	if rowsWanted {
		var rows *sql.Rows
		var err error
		if st != nil {
			rows, err = st.QueryContext(ctx, args...)
		} else {
			rows, err = c.sc.QueryContext(ctx, query)
		}
		return c.fill(ctx, rows, err, cnt, query)
	}
	var r sql.Result
	var err error
	if st != nil {
		r, err = st.ExecContext(ctx, args...)
	} else {
		r, err = c.sc.ExecContext(ctx, query)
	}
	return c.done(ctx, r, err, cnt, query)
}

// Prepare prepares a statement with '?' placeholders, which SQLite takes as
// they are. With --db-ps-mode=disable values are substituted into the text
// on each execution instead.
func (c *conn) Prepare(ctx context.Context, query string) (drivers.Stmt, error) {
	if c.sc == nil {
		return nil, c.closedError(query)
	}
	s := &stmt{c: c, query: query, counter: classify(query), rows: returnsRows(query), gate: gateOf(query)}
	if c.d.psMode == drivers.PSDisable {
		return s, nil
	}
	st, err := c.sc.PrepareContext(ctx, query)
	if err != nil {
		return nil, c.fail(ctx, err, "sqlite3_prepare()", query)
	}
	s.st, s.gen = st, c.gen
	return s, nil
}

type stmt struct {
	c       *conn
	st      *sql.Stmt // nil with --db-ps-mode=disable
	query   string
	counter drivers.Counter
	rows    bool
	gate    gate
	gen     int // the connection generation st was prepared on
}

var _ drivers.Stmt = (*stmt)(nil)

func (s *stmt) Execute(ctx context.Context, args []drivers.Value) (drivers.Result, error) {
	c := s.c
	if c.sc == nil {
		return nil, c.closedError(s.query)
	}
	if s.st == nil {
		var err error
		c.sql, err = drivers.Interpolate(c.sql[:0], s.query, args, drivers.DialectSQLite)
		if err != nil {
			return nil, &drivers.Error{Kind: drivers.Fatal, Msg: err.Error(), Query: s.query, Op: "sqlite3_prepare()"}
		}
		return c.Query(ctx, string(c.sql))
	}
	if s.gen != c.gen {
		// The connection was reopened: prepare again on the new one.
		st, err := c.sc.PrepareContext(ctx, s.query)
		if err != nil {
			return nil, c.fail(ctx, err, "sqlite3_prepare()", s.query)
		}
		s.st, s.gen = st, c.gen
	}
	c.args = c.args[:0]
	for i := range args {
		c.args = append(c.args, argValue(&args[i]))
	}
	c.enter(s.gate)
	res, err := c.run(ctx, s.query, s.counter, s.rows, s.st, c.args)
	c.leave(s.gate, err)
	return res, err
}

func (s *stmt) Close() error {
	if s.gen != s.c.gen || s.c.db == nil {
		// Prepared on a connection that is gone: nothing left to free.
		s.st = nil
		return nil
	}
	if s.st != nil {
		err := s.st.Close()
		s.st = nil
		return err
	}
	return nil
}

// argValue converts a parameter for database/sql. Strings are passed as
// text, not blobs, so that they compare equal to text columns; the bytes
// are only borrowed for the call, as SQLite copies bound text.
func argValue(v *drivers.Value) any {
	switch {
	case v.Null:
		return nil
	case v.Type.IsInteger():
		return v.Int
	case v.Type.IsFloat():
		return v.Float
	case len(v.Str) == 0:
		return ""
	}
	return unsafe.String(&v.Str[0], len(v.Str))
}

// fill buffers a row-returning statement's result.
func (c *conn) fill(ctx context.Context, rows *sql.Rows, err error, cnt drivers.Counter, query string) (drivers.Result, error) {
	if err != nil {
		return nil, c.fail(ctx, err, "sqlite3_step()", query)
	}
	r := &c.res
	r.Reset()
	cols, err := rows.Columns()
	if err != nil {
		rows.Close()
		return nil, c.fail(ctx, err, "sqlite3_step()", query)
	}
	r.scan = r.scan[:0]
	for len(r.vals) < len(cols) {
		r.vals = append(r.vals, nil)
	}
	for i := range cols {
		r.scan = append(r.scan, &r.vals[i])
	}
	for rows.Next() {
		// Scanning into *any hands over the driver's values as they are
		// (RawBytes would turn '' into NULL).
		if err := rows.Scan(r.scan...); err != nil {
			rows.Close()
			return nil, c.fail(ctx, err, "sqlite3_step()", query)
		}
		r.addRow(r.vals[:len(cols)])
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return nil, c.fail(ctx, err, "sqlite3_step()", query)
	}
	r.SetResultSet(cnt, len(cols))
	return r, nil
}

// done finishes a statement without rows.
func (c *conn) done(ctx context.Context, res sql.Result, err error, cnt drivers.Counter, query string) (drivers.Result, error) {
	if err != nil {
		return nil, c.fail(ctx, err, "sqlite3_step()", query)
	}
	r := &c.res
	r.Reset()
	var affected uint64
	if n, err := res.RowsAffected(); err == nil && n > 0 && cnt == drivers.CntWrite {
		affected = uint64(n)
	}
	r.SetCommand(cnt, affected)
	return r, nil
}

func (c *conn) closedError(query string) error {
	return &drivers.Error{Kind: drivers.Fatal, Msg: "connection is closed", Query: query}
}

// fail converts err and acts on it: a locked database or a uniqueness
// violation rolls back the transaction and is ignorable; anything else is
// fatal and printed.
func (c *conn) fail(ctx context.Context, err error, op, query string) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s: %w", op, ctxErr)
	}
	e := c.convert(err, op, query)
	if e.Kind == drivers.Ignorable {
		// Like sysbench's PostgreSQL driver: a restarted event must not
		// find itself inside the failed transaction.
		_, _ = c.sc.ExecContext(context.Background(), "ROLLBACK")
		c.inTx = false
		c.release()
		return e
	}
	c.d.log.Fatalf("%s failed: %d %s", op, e.Code, e.Msg)
	if query != "" {
		c.d.log.Fatalf("failed query was: %s", query)
	}
	return e
}

func (c *conn) convert(err error, op, query string) *drivers.Error {
	e := &drivers.Error{Kind: drivers.Fatal, Msg: errorMessage(err), Query: query, Op: op}
	var se *sqlite.Error
	if errors.As(err, &se) {
		e.Code = se.Code()
		switch e.Code & 0xff {
		case codeBusy, codeLocked:
			e.Kind = drivers.Ignorable
		case codeConstraint:
			switch e.Code {
			case codeConstraintUnique, codeConstraintPK, codeConstraintRowID:
				e.Kind = drivers.Ignorable
				e.State = "23505"
			}
		}
	}
	return e
}

// errorMessage is SQLite's message without modernc's "(code)" suffix.
func errorMessage(err error) string {
	msg := err.Error()
	var se *sqlite.Error
	if errors.As(err, &se) {
		if i := strings.LastIndex(msg, " ("); i > 0 && strings.HasSuffix(msg, ")") {
			msg = msg[:i]
		}
	}
	return msg
}

// keyword returns the first word of query, upper-cased, skipping blanks,
// comments and parentheses.
func keyword(q string) string {
	for {
		q = strings.TrimLeft(q, " \t\r\n(")
		switch {
		case strings.HasPrefix(q, "--"):
			if i := strings.IndexByte(q, '\n'); i >= 0 {
				q = q[i+1:]
				continue
			}
			return ""
		case strings.HasPrefix(q, "/*"):
			if i := strings.Index(q, "*/"); i >= 0 {
				q = q[i+2:]
				continue
			}
			return ""
		}
		break
	}
	end := 0
	for end < len(q) && (q[end] >= 'a' && q[end] <= 'z' || q[end] >= 'A' && q[end] <= 'Z') {
		end++
	}
	return strings.ToUpper(q[:end])
}

// classify counts a statement by its first keyword.
func classify(q string) drivers.Counter {
	switch keyword(q) {
	case "SELECT", "WITH", "VALUES":
		return drivers.CntRead
	case "INSERT", "UPDATE", "DELETE", "REPLACE":
		return drivers.CntWrite
	}
	return drivers.CntOther
}

// returnsRows says whether the statement is run as a query with a cursor.
func returnsRows(q string) bool {
	switch keyword(q) {
	case "SELECT", "WITH", "VALUES", "PRAGMA", "EXPLAIN":
		return true
	}
	return false
}

// lineWriter serialises whole lines from concurrent connections.

var _ drivers.ServerVersioner = (*conn)(nil)

// ServerVersion is the SQLite library's version, as "SQLite 3.x.y".
func (c *conn) ServerVersion(ctx context.Context) (string, error) {
	v, err := drivers.QueryString(ctx, c, "SELECT sqlite_version()")
	if err != nil {
		return "", err
	}
	return "SQLite " + v, nil
}
