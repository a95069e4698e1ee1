package pgsql

import (
	"bytes"
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

// openTimed opens a driver for the test server with --query-timeout=d and
// the options set on top.
func openTimed(t *testing.T, d time.Duration, set ...string) drivers.Driver {
	t.Helper()
	v := testenv.RequireServer(t, "pgsql").Values(Factory.Options, set...)
	drv, _ := testenv.OpenDriver(t, Factory.Open, drivers.Config{Values: v, PSMode: drivers.PSAuto, QueryTimeout: d})
	return drv
}

// lateCancel is a connection that ends its connect's context as the
// server's last start-up message (ReadyForQuery) arrives: it hands that
// message to pgconn only once pgconn's watcher of the context has set the
// socket's deadline. The connect then completes from what it read, on a
// socket its deadline shut: what happened when a reconnect's time (the
// --query-timeout, on a loaded machine) ran out just as it completed.
type lateCancel struct {
	net.Conn
	cancel   func()
	tail     []byte
	once     sync.Once
	deadline chan struct{} // closed when a deadline is set
}

func (c *lateCancel) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	seen := append(c.tail, p[:n]...)
	if i := bytes.Index(seen, []byte{'Z', 0, 0, 0, 5}); i >= 0 && i+5 < len(seen) {
		c.cancel()
		select {
		case <-c.deadline:
		case <-time.After(30 * time.Second):
		}
	}
	c.tail = append(c.tail[:0], seen[max(0, len(seen)-5):]...)
	return n, err
}

func (c *lateCancel) SetDeadline(t time.Time) error {
	if !t.IsZero() {
		c.once.Do(func() { close(c.deadline) })
	}
	return c.Conn.SetDeadline(t)
}

// A connect whose context ends as it completes is given up: with
// blocking socket calls, pgconn's watcher of the context has shut the
// socket down by then, and the connection it returns fails its first
// call as a lost one (08006), which ended a run that ignored only HYT00
// (TestOutageOnServers/pgsql under load, issue 46).
func TestConnectEndedAsItCompletes(t *testing.T) {
	d := openTimed(t, 0, "pgsql-blocking-io", "on").(*driver)
	connect := func(how func(context.Context, *pgconn.Config) (*pgconn.PgConn, error)) (*pgconn.PgConn, error) {
		cfg, err := d.config(0, true, nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		cfg.AfterNetConnect = func(_ context.Context, _ *pgconn.Config, nc net.Conn) (net.Conn, error) {
			return &lateCancel{Conn: nc, cancel: cancel, deadline: make(chan struct{})}, nil
		}
		return how(ctx, cfg)
	}

	// pgconn alone: a connection, with its socket shut.
	pg, err := connect(pgconn.ConnectConfig)
	if err != nil {
		t.Fatalf("pgconn's connect failed (%v): the context ended too early to show the case", err)
	}
	_, err = pg.Exec(context.Background(), "SELECT 1").ReadAll()
	pg.Close(context.Background())
	if err == nil {
		t.Fatal("a connection whose connect's context ended as it completed still works: no case to guard against")
	}

	// The driver's connect gives it up.
	if pg, err := connect(connectConfig); err == nil {
		pg.Close(context.Background())
		t.Fatal("connectConfig returned a connection whose connect's context ended")
	}
}

// TestTimerExpiresAsCallCompletes: --query-timeout's timer fires as a
// call completes in time (after its answer came, before the timer was
// stopped): the call stands, but the deadline shut the socket (with
// blocking socket calls, for good). The next call does not fail as a lost
// connection: outside a transaction it connects again and runs; inside
// one, whose transaction went with the connection, it fails with the
// timeout (HYT00, a reconnect when ignored), and the call after it runs
// on a new connection. (A reconnect that the loaded machine does not
// complete within the timeout fails with HYT00 too, and the next call
// tries again, as a run's would.)
func TestTimerExpiresAsCallCompletes(t *testing.T) { inIOModes(t, testTimerExpiresAsCallCompletes) }

func testTimerExpiresAsCallCompletes(t *testing.T, blocking string) {
	d := openTimed(t, 500*time.Millisecond, "pgsql-blocking-io", blocking, "pgsql-ignore-errors", "HYT00")
	ctx := context.Background()
	for _, inTx := range []bool{false, true} {
		c := testenv.Connect(t, d)
		pid := backendPID(t, c)
		if inTx {
			testenv.MustQuery(t, c, "BEGIN")
		}
		// A call under way, which the timer outlives before it is
		// stopped: what a call that had its answer as the timer fired
		// leaves.
		pc := c.(*conn)
		if err := pc.begin(ctx); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(30 * time.Second); !pc.qt.Expired(); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the query timer did not fire within 30 s")
			}
		}
		pc.end()

		_, err := c.Query(ctx, "SELECT 1")
		if inTx {
			wantKind(t, err, drivers.Reconnect, drivers.QueryTimeoutState)
			_, err = c.Query(ctx, "SELECT 1")
		}
		for deadline := time.Now().Add(30 * time.Second); err != nil && time.Now().Before(deadline); {
			// Only a reconnect that took longer than the timeout.
			wantKind(t, err, drivers.Reconnect, drivers.QueryTimeoutState)
			_, err = c.Query(ctx, "SELECT 1")
		}
		if err != nil {
			t.Fatalf("in a transaction: %v; no call ran within 30 s after the timer fired: %v", inTx, err)
		}
		if pc.pg.TxStatus() != 'I' {
			t.Errorf("in a transaction: %v; the new connection is in one (%q)", inTx, pc.pg.TxStatus())
		}
		if backendPID(t, c) == pid {
			t.Errorf("in a transaction: %v; the connection whose socket the timer shut was kept", inTx)
		}
	}
}

// A call that its deadline or context ended just as it returned (here a
// prepare's, the expiry set by hand as expireCall and interrupt set it)
// is settled at the next call's start, on a new connection: the
// statement the next call executes is prepared there first, not sent by
// the name it had on the connection that went (a run died so beside a
// loaded suite: "prepared statement "sbstmt2" does not exist").
func TestExecuteAfterASettledExpiry(t *testing.T) {
	drv := openTimed(t, 10*time.Second)
	c := testenv.Connect(t, drv)
	ctx := context.Background()
	st, err := c.Prepare(ctx, "SELECT CAST(? AS int) + 1")
	if err != nil {
		t.Fatal(err)
	}
	arg := []drivers.Value{{Type: drivers.TypeInt, Int: 41}}
	for round := range 3 {
		pc := c.(*conn)
		gen := pc.gen
		if round > 0 {
			pc.mu.Lock()
			pc.expired = true
			pc.mu.Unlock()
		}
		res, err := st.Execute(ctx, arg)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if rows := testenv.Rows(res); len(rows) != 1 || rows[0][0] != "42" {
			t.Fatalf("round %d: rows %v", round, rows)
		}
		if round > 0 && pc.gen == gen {
			t.Fatalf("round %d: the settled expiry did not connect again (generation %d)", round, gen)
		}
	}
}
