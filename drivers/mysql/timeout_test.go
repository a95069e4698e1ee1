package mysql

import (
	"context"
	"testing"
	"time"

	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

// TestTimerExpiresAsCallCompletes: --query-timeout's timer fires as a
// call completes in time (after its answer came, before the timer was
// stopped): the call stands, but the timer's abort closed the socket, and
// any transaction the connection held went with it. The next call fails
// with the timeout (HYT00, a reconnect when ignored) rather than run on a
// new connection in autocommit, and the call after it runs on a new
// connection, where the transaction's row is not. (A reconnect that the
// loaded machine does not complete within the timeout fails with HYT00
// too, and the next call tries again, as a run's would.)
func TestTimerExpiresAsCallCompletes(t *testing.T) {
	s := testenv.OwnDatabase(t, "mysql")
	d, _ := openDriver(t, drivers.Config{Values: s.Values(driverOptions, "mysql-ignore-errors", "HYT00"), QueryTimeout: 500 * time.Millisecond})
	ctx := context.Background()
	c := testenv.Connect(t, d)
	table(t, c, "late_timer", "(id INT PRIMARY KEY) ENGINE=InnoDB")
	id := testenv.Rows(testenv.MustQuery(t, c, "SELECT CONNECTION_ID()"))[0][0]
	testenv.MustQuery(t, c, "BEGIN")
	testenv.MustQuery(t, c, "INSERT INTO late_timer VALUES (1)")
	// A call under way, which the timer outlives before it is stopped:
	// what a call that had its answer as the timer fired leaves.
	mc := c.(*conn)
	if err := mc.begin(ctx, "", "test"); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); !mc.qt.Expired(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the query timer did not fire within 30 s")
		}
	}
	mc.idle()

	_, err := c.Query(ctx, "INSERT INTO late_timer VALUES (2)")
	if e := drivers.AsError(err); e == nil || e.Kind != drivers.Reconnect || e.State != drivers.QueryTimeoutState {
		t.Fatalf("the call after the timer fired: %v, want the timeout (HYT00) as a reconnect", err)
	}
	var rows [][]string
	for deadline := time.Now().Add(30 * time.Second); ; {
		r, err := c.Query(ctx, "SELECT CONNECTION_ID(), (SELECT COUNT(*) FROM late_timer)")
		if err == nil {
			rows = testenv.Rows(r)
			break
		}
		// Only a reconnect that took longer than the timeout.
		if e := drivers.AsError(err); e == nil || e.State != drivers.QueryTimeoutState || time.Now().After(deadline) {
			t.Fatalf("no call ran within 30 s after the timer fired: %v", err)
		}
	}
	if rows[0][0] == id {
		t.Errorf("the connection whose socket the timer closed was kept (id %s)", id)
	}
	if rows[0][1] != "0" {
		t.Errorf("%s rows in the table: the transaction's insert, or one after it, was committed", rows[0][1])
	}
}
