package metrics

import (
	"sync"
	"testing"
)

// Workers count on handles of their own while a reader totals them: the
// tally adds them up by table, keeps the plan, and has no total while a
// table without a plan is loaded.
func TestRows(t *testing.T) {
	r := NewRows()
	r.Plan("sbtest1", 3000)
	r.Plan("sbtest2", 3000)
	r.Plan("sbtest2", 2000) // said again by another worker: replaced
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := r.Handle()
			tb := h.Table("sbtest1")
			for range 250 {
				tb.Add(3)
				h.Query()
			}
			if w < 2 {
				h.Table("sbtest2").Add(1000)
			}
		}()
	}
	for range 10 {
		r.Tally() // beside the workers: go test -race
	}
	wg.Wait()
	got := r.Tally()
	want := []TableTally{{"sbtest1", 3000, 3000}, {"sbtest2", 2000, 2000}}
	if len(got.Tables) != 2 || got.Tables[0] != want[0] || got.Tables[1] != want[1] || got.Queries != 1000 {
		t.Fatalf("tally %+v, want %+v and 1000 queries", got, want)
	}
	if got.Done() != 5000 || got.Planned() != 5000 {
		t.Errorf("in all %d of %d rows, want 5000 of 5000", got.Done(), got.Planned())
	}
	r.Handle().Table("extra").Add(1)
	if got := r.Tally(); got.Planned() != 0 || got.Done() != 5001 || got.Tables[2].Name != "extra" {
		t.Errorf("with a table no plan names: %+v, want no total", got)
	}
}
