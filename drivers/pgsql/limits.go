package pgsql

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/sysbench-go/sysbench-go/drivers"
)

var _ drivers.LimitReader = (*driver)(nil)

// limitsQuery reads, in one row: max_connections, the slots reserved
// from it (superuser_reserved_connections, and reserved_connections from
// PostgreSQL 16 on), the client connections open, whether the role is a
// superuser (which none of the other limits binds), the role's
// rolconnlimit and its connections, the database's datconnlimit and its
// connections (-1: no limit), and idle_session_timeout in milliseconds
// (PostgreSQL 14 on; 0: off).
const limitsQuery = `SELECT current_setting('max_connections')::int,
 current_setting('superuser_reserved_connections')::int,
 COALESCE((SELECT setting::int FROM pg_settings WHERE name = 'reserved_connections'), 0),
 (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'),
 (SELECT CASE WHEN rolsuper THEN 1 ELSE 0 END FROM pg_roles WHERE rolname = current_user),
 (SELECT rolconnlimit FROM pg_roles WHERE rolname = current_user),
 (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND usename = current_user),
 (SELECT datconnlimit FROM pg_database WHERE datname = current_database()),
 (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND datname = current_database()),
 COALESCE((SELECT setting::bigint FROM pg_settings WHERE name = 'idle_session_timeout'), 0)`

// ReadLimits reads, on a connection of its own to the first host, the
// settings that bound a run's connections. PostgreSQL has no limit on
// prepared statements (each lives in its session's memory).
func (d *driver) ReadLimits(ctx context.Context) (drivers.Limits, error) {
	var l drivers.Limits
	c := &conn{d: d, n: 0, observer: true}
	if err := c.dial(ctx); err != nil {
		return l, fmt.Errorf("cannot connect to read the server's limits: %v", err)
	}
	defer c.Close()
	rows, err := drivers.QueryRows(ctx, c, limitsQuery)
	if err != nil {
		return l, fmt.Errorf("reading the server's limits: %w", err)
	}
	if len(rows) != 1 || len(rows[0]) != 10 {
		return l, fmt.Errorf("reading the server's limits: unexpected answer")
	}
	v := make([]int64, 10)
	for i, s := range rows[0] {
		if v[i], err = strconv.ParseInt(s, 10, 64); err != nil {
			return l, fmt.Errorf("reading the server's limits: %q is no number", s)
		}
	}
	maxConn, suReserved, reserved, open, super := v[0], v[1], v[2], v[3], v[4] == 1
	roleLimit, roleOpen, dbLimit, dbOpen := v[5], v[6], v[7], v[8]
	l.IdleTimeout = time.Duration(v[9]) * time.Millisecond
	// This connection is counted in each, and closes before the run.
	open, roleOpen, dbOpen = max(open-1, 0), max(roleOpen-1, 0), max(dbOpen-1, 0)
	if super {
		l.Connections = append(l.Connections, drivers.Limit{Setting: "max_connections", Value: maxConn, InUse: open})
		return l, nil
	}
	mc := drivers.Limit{Setting: "max_connections", Value: maxConn - suReserved - reserved, InUse: open}
	switch {
	case reserved > 0:
		mc.Note = fmt.Sprintf("%d, less superuser_reserved_connections %d and reserved_connections %d", maxConn, suReserved, reserved)
	case suReserved > 0:
		mc.Note = fmt.Sprintf("%d, less superuser_reserved_connections %d", maxConn, suReserved)
	}
	l.Connections = append(l.Connections, mc)
	if roleLimit >= 0 {
		l.Connections = append(l.Connections, drivers.Limit{Setting: "the CONNECTION LIMIT of role " + d.user, Value: roleLimit, InUse: roleOpen})
	}
	if dbLimit >= 0 {
		l.Connections = append(l.Connections, drivers.Limit{Setting: "the CONNECTION LIMIT of database " + d.db, Value: dbLimit, InUse: dbOpen})
	}
	return l, nil
}
