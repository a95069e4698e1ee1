package pgsql

import (
	"context"

	"github.com/sysbench-go/sysbench-go/drivers"
)

var _ drivers.Reopener = (*conn)(nil)

// Reopen closes the server connection and opens a new one to the same
// host (--reconnect, --conn-lifetime); statements prepared on the old one
// are prepared again on their next execution (gen).
func (c *conn) Reopen(ctx context.Context) error {
	c.closePg()
	return c.open(ctx)
}
