package mysql

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/sysbench-go/sysbench-go/drivers"
)

var _ drivers.LimitReader = (*drv)(nil)

// ReadLimits reads, on a connection of its own to the first target, the
// settings that bound a run: max_connections (the server's, less the
// connections open now), max_user_connections (the account's limit, or
// the server's per-account one, less the account's connections open now)
// and max_prepared_stmt_count (less the statements prepared now).
func (d *drv) ReadLimits(ctx context.Context) (drivers.Limits, error) {
	var l drivers.Limits
	c := &conn{d: d, t: d.s.targets[0], observer: true}
	if err := c.connect(ctx); err != nil {
		return l, fmt.Errorf("cannot connect to read the server's limits: %s", connectError(err, c.t).Msg)
	}
	defer c.Close()
	// The session's max_user_connections is the account's own limit
	// when it has one, else the server's (0: none).
	row, err := queryInts(ctx, c, "SELECT @@GLOBAL.max_connections, @@SESSION.max_user_connections, @@GLOBAL.max_prepared_stmt_count, "+
		"(SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER = SUBSTRING_INDEX(CURRENT_USER(), '@', 1)), "+
		"@@SESSION.wait_timeout")
	if err != nil {
		return l, err
	}
	maxConn, maxUser, maxStmts, mine := row[0], row[1], row[2], row[3]
	l.IdleTimeout = time.Duration(row[4]) * time.Second
	status, err := drivers.QueryRows(ctx, c, "SHOW GLOBAL STATUS WHERE Variable_name IN ('Threads_connected', 'Prepared_stmt_count')")
	if err != nil {
		return l, fmt.Errorf("reading the server's limits: %w", err)
	}
	var connected, prepared int64
	for _, r := range status {
		if len(r) < 2 {
			continue
		}
		n, _ := strconv.ParseInt(r[1], 10, 64)
		switch r[0] {
		case "Threads_connected":
			connected = n
		case "Prepared_stmt_count":
			prepared = n
		}
	}
	// This connection is counted in both, and closes before the run.
	l.Connections = append(l.Connections, drivers.Limit{Setting: "max_connections", Value: maxConn, InUse: max(connected-1, 0)})
	if maxUser > 0 {
		l.Connections = append(l.Connections, drivers.Limit{Setting: "max_user_connections", Value: maxUser, InUse: max(mine-1, 0),
			Note: "user " + d.s.user})
	}
	l.PreparedStatements = &drivers.Limit{Setting: "max_prepared_stmt_count", Value: maxStmts, InUse: prepared}
	return l, nil
}

// queryInts runs a query returning one row of integers.
func queryInts(ctx context.Context, c drivers.Conn, q string) ([]int64, error) {
	rows, err := drivers.QueryRows(ctx, c, q)
	if err != nil {
		return nil, fmt.Errorf("reading the server's limits: %w", err)
	}
	if len(rows) != 1 {
		return nil, fmt.Errorf("reading the server's limits: %d rows", len(rows))
	}
	out := make([]int64, len(rows[0]))
	for i, v := range rows[0] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("reading the server's limits: %q is no number", v)
		}
		out[i] = n
	}
	return out, nil
}
