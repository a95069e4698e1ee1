// Package dryrun is a driver that pretends every call succeeds without
// talking to a server. It measures the client-side cost of a workload, as
// the reference's --mysql-dry-run does, and it counts every query as
// "other" exactly like the reference.
package dryrun

import (
	"context"

	"github.com/sysbench-go/sysbench-go/drivers"
)

// New returns the dry-run driver.
func New() drivers.Driver { return driver{} }

type driver struct{}

// IsDryRun reports whether d is the dry-run driver (it has no server).
func IsDryRun(d drivers.Driver) bool {
	_, ok := d.(driver)
	return ok
}

var (
	_ drivers.Driver = driver{}
	_ drivers.Conn   = (*conn)(nil)
	_ drivers.Stmt   = (*stmt)(nil)
	_ drivers.Result = (*result)(nil)
)

func (driver) Connect(ctx context.Context) (drivers.Conn, error) {
	c := &conn{}
	c.stmt.conn = c
	return c, nil
}

func (driver) Close() error { return nil }

// conn owns the one result and the one statement object it hands out, so
// nothing is allocated per query.
type conn struct {
	res  result
	stmt stmt
}

func (c *conn) Query(ctx context.Context, query string) (drivers.Result, error) {
	return &c.res, nil
}

// Prepare returns the same statement object for every query: a dry-run
// statement has no state.
func (c *conn) Prepare(ctx context.Context, query string) (drivers.Stmt, error) {
	return &c.stmt, nil
}

func (c *conn) MoreResults() bool { return false }

func (c *conn) NextResult(ctx context.Context) (drivers.Result, error) {
	return &c.res, nil
}

func (c *conn) Reconnect(ctx context.Context) error { return nil }
func (c *conn) Close() error                        { return nil }

var _ drivers.Endpointer = (*conn)(nil)

// Endpoint is none: a dry run talks to no server.
func (c *conn) Endpoint() drivers.Endpoint { return drivers.Endpoint{} }

type stmt struct{ conn *conn }

func (s *stmt) Execute(ctx context.Context, args []drivers.Value) (drivers.Result, error) {
	return &s.conn.res, nil
}

func (s *stmt) Close() error { return nil }

// result is always empty.
type result struct{}

func (*result) Counter() drivers.Counter   { return drivers.CntOther }
func (*result) NRows() uint64              { return 0 }
func (*result) NFields() int               { return 0 }
func (*result) Next() bool                 { return false }
func (*result) Value(i int) ([]byte, bool) { return nil, false }
func (*result) Close()                     {}
