package pgsql

import (
	"context"

	"github.com/sysbench-go/sysbench-go/drivers"
)

var _ drivers.Reopener = (*conn)(nil)

// Reopen closes the server connection and opens a new one to the same
// host (--reconnect, --conn-lifetime), trying again until it succeeds or
// ctx ends, as a lost connection is re-established (and as the MySQL
// driver's Reconnect does): a server restarting under the run refuses
// connections for a while. Statements prepared on the old connection are
// prepared again on their next execution (gen).
func (c *conn) Reopen(ctx context.Context) error {
	return c.reconnectLoop(ctx)
}
