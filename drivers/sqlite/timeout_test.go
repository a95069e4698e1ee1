package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

// A statement that outlives --query-timeout is interrupted and fails with
// an ignorable HYT00; the connection goes on with the next query.
func TestQueryTimeout(t *testing.T) {
	v := testenv.Values(Factory.Options, "sqlite-db", filepath.Join(t.TempDir(), "t.db"))
	d, _ := testenv.OpenDriver(t, Factory.Open, drivers.Config{Values: v, QueryTimeout: 100 * time.Millisecond})
	c := testenv.Connect(t, d)
	ctx := context.Background()
	// Counting to 10^9 takes SQLite tens of seconds.
	const slow = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 1000000000) SELECT count(*) FROM n"
	start := time.Now()
	_, err := c.Query(ctx, slow)
	took := time.Since(start)
	e := wantKind(t, err, drivers.Ignorable)
	if e.State != drivers.QueryTimeoutState || took > 5*time.Second {
		t.Fatalf("error %v after %s, want %s after about 100 ms", e, took, drivers.QueryTimeoutState)
	}
	if s, err := drivers.QueryString(ctx, c, "SELECT 42"); err != nil || s != "42" {
		t.Fatalf("the next query: %q, %v", s, err)
	}
}
