package drivers

import (
	"context"
	"time"
)

// Limits are the server settings that bound what a run may open, read
// before it starts so that a run that cannot succeed is refused up front
// rather than failing once it has begun.
type Limits struct {
	// Connections are the bounds on the connections the run may open,
	// each a setting of the server, the role or the database; a run must
	// fit under every one.
	Connections []Limit
	// PreparedStatements bounds the server-side prepared statements of
	// the whole server (MySQL's max_prepared_stmt_count); nil where the
	// server has no such limit (PostgreSQL).
	PreparedStatements *Limit
	// IdleTimeout is how long the server lets a connection of the run's
	// sit idle before it closes it (MySQL's wait_timeout, PostgreSQL's
	// idle_session_timeout); 0 for never.
	IdleTimeout time.Duration
}

// Limit is one setting that bounds a count, and how much of it is left.
type Limit struct {
	// Setting names it as the user changes it: "max_connections",
	// "rolconnlimit of role sbtest".
	Setting string
	// Value is the setting's value.
	Value int64
	// InUse is what others hold against it now (the connection reading
	// the limits not counted).
	InUse int64
	// Note says what else Value leaves out ("3 reserved for
	// superusers"), "" for nothing.
	Note string
}

// Free is what the setting leaves for the run.
func (l Limit) Free() int64 { return max(l.Value-l.InUse, 0) }

// LimitReader is implemented by drivers that can read their server's
// limits (Limits) on a connection of their own, not one of the run's.
type LimitReader interface {
	ReadLimits(ctx context.Context) (Limits, error)
}

// Reopener is implemented by connections that can be closed and opened
// again on request, for a run that opens new connections as it goes
// (--reconnect): unlike Reconnect, which keeps the reference's answer for
// drivers that have none, Reopen always opens a new server connection.
// Statements prepared on the connection stay usable: the driver prepares
// them again on the new one.
type Reopener interface {
	Reopen(ctx context.Context) error
}

// Reopen closes c's server connection and opens a new one: by its Reopen,
// else by its Reconnect.
func Reopen(ctx context.Context, c Conn) error {
	if r, ok := c.(Reopener); ok {
		return r.Reopen(ctx)
	}
	return c.Reconnect(ctx)
}
