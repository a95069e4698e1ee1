package luaapi

import (
	"context"
	"time"

	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/metrics"
)

// --statement-stats: a worker's connections are wrapped so that every
// query and statement execution, whichever Lua call makes it (query,
// query_row, execute, execute_random, bulk inserts, the 0.5-era API), is
// counted and timed under its text: a prepared statement's as prepared, a
// query's with its literals made '?' (drivers.Normalize).

// timeStatements wraps conn to record into ss; driver names the dialect.
func timeStatements(conn drivers.Conn, ss *metrics.Statements, driver string) drivers.Conn {
	d := drivers.DialectStandard
	if driver == "mysql" {
		d = drivers.DialectMySQL
	}
	return &timedConn{Conn: conn, ss: ss, norm: func(q string) string { return drivers.Normalize(q, d) }}
}

type timedConn struct {
	drivers.Conn
	ss   *metrics.Statements
	norm func(string) string
}

var (
	_ drivers.BulkBatcher = (*timedConn)(nil)
	_ drivers.BulkLoader  = (*timedConn)(nil)
)

// Each call counts an execution (Statement.Begin, inlined) and, when it
// is one to time, goes the timed way: the common path of a sampled
// statement costs a counter and a branch.

func (c *timedConn) Query(ctx context.Context, q string) (drivers.Result, error) {
	st := c.ss.Get(q, c.norm)
	if st.Begin() {
		return c.timedQuery(ctx, q, st)
	}
	res, err := c.Conn.Query(ctx, q)
	if err != nil {
		st.Fail()
	}
	return res, err
}

func (c *timedConn) timedQuery(ctx context.Context, q string, st *metrics.Statement) (drivers.Result, error) {
	t0 := time.Now()
	res, err := c.Conn.Query(ctx, q)
	st.End(int64(time.Since(t0)), err != nil)
	return res, err
}

func (c *timedConn) Prepare(ctx context.Context, q string) (drivers.Stmt, error) {
	st, err := c.Conn.Prepare(ctx, q)
	if err != nil {
		return nil, err
	}
	return &timedStmt{Stmt: st, st: c.ss.Prepared(q)}, nil
}

// BulkBatchSize passes the driver's on (bulkPacketSize without one).
func (c *timedConn) BulkBatchSize() int {
	if b, ok := c.Conn.(drivers.BulkBatcher); ok {
		return b.BulkBatchSize()
	}
	return bulkPacketSize
}

// BulkInsert times the driver's bulk load, when it has one and takes the
// query (otherwise Query runs it, and times it).
func (c *timedConn) BulkInsert(ctx context.Context, q string) (drivers.Result, bool, error) {
	bl, ok := c.Conn.(drivers.BulkLoader)
	if !ok {
		return nil, false, nil
	}
	t0 := time.Now()
	res, handled, err := bl.BulkInsert(ctx, q)
	if handled {
		st := c.ss.Get(q, c.norm)
		st.Begin()
		st.End(int64(time.Since(t0)), err != nil)
	}
	return res, handled, err
}

type timedStmt struct {
	drivers.Stmt
	st *metrics.Statement
}

func (s *timedStmt) Execute(ctx context.Context, args []drivers.Value) (drivers.Result, error) {
	if s.st.Begin() {
		return s.timedExecute(ctx, args)
	}
	res, err := s.Stmt.Execute(ctx, args)
	if err != nil {
		s.st.Fail()
	}
	return res, err
}

func (s *timedStmt) timedExecute(ctx context.Context, args []drivers.Value) (drivers.Result, error) {
	t0 := time.Now()
	res, err := s.Stmt.Execute(ctx, args)
	s.st.End(int64(time.Since(t0)), err != nil)
	return res, err
}

// newStatements gives a worker its statement set.
func (s *Script) newStatements() *metrics.Statements {
	ss := metrics.NewStatements()
	s.stmtMu.Lock()
	defer s.stmtMu.Unlock()
	if s.stmtSets == nil {
		s.stmtSets = map[*metrics.Statements]bool{}
	}
	s.stmtSets[ss] = false
	return ss
}

// statementsClosed marks a worker's set complete.
func (s *Script) statementsClosed(ss *metrics.Statements) {
	s.stmtMu.Lock()
	defer s.stmtMu.Unlock()
	s.stmtSets[ss] = true
}

// Statements are the run's statements merged over the workers that have
// finished, the most time first, and the number of workers left out
// (still running after a forced shutdown).
func (s *Script) Statements() (list []*metrics.Statement, running int) {
	s.stmtMu.Lock()
	defer s.stmtMu.Unlock()
	var sets [][]*metrics.Statement
	for ss, closed := range s.stmtSets {
		if !closed {
			running++
			continue
		}
		sets = append(sets, ss.List())
	}
	return metrics.MergeStatements(sets...), running
}
