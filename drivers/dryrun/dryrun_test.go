package dryrun

import (
	"context"
	"testing"

	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/internal/allocs"
)

func TestDryRun(t *testing.T) {
	ctx := context.Background()
	d := New()
	c, err := d.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Query(ctx, "SELECT 1")
	if err != nil {
		t.Fatal(err)
	}
	if r.Counter() != drivers.CntOther || r.NRows() != 0 || r.NFields() != 0 || r.Next() {
		t.Fatalf("non-empty dry-run result")
	}
	if _, ok := r.Value(0); ok {
		t.Fatal("Value reported a non-NULL value")
	}
	s, err := c.Prepare(ctx, "UPDATE t SET a=? WHERE id=?")
	if err != nil {
		t.Fatal(err)
	}
	args := []drivers.Value{{Type: drivers.TypeInt, Int: 1}, {Type: drivers.TypeVarChar, Str: []byte("x")}}
	perCall := allocs.PerRun(100, func() {
		r, _ := s.Execute(ctx, args)
		r.Close()
		r, _ = c.Query(ctx, "BEGIN")
		_ = r.Counter()
	})
	if perCall != 0 {
		t.Fatalf("%v allocations per query, want 0", perCall)
	}
	if c.MoreResults() {
		t.Fatal("MoreResults = true")
	}
	if err := c.Reconnect(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
}
