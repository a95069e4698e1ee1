package metrics

import (
	"strings"
	"testing"
)

func run(s *Statement, n int, ns int64) (timed int) {
	for range n {
		if s.Begin() {
			s.End(ns, false)
			timed++
		}
	}
	return timed
}

// A statement faster than the clock is worth is timed on 1 execution in
// sampleEvery once sampleAfter were timed; a slower one on every one.
// Counts are exact either way.
func TestStatementSampling(t *testing.T) {
	ss := NewStatements()
	fast := ss.Get("SELECT 1", strings.ToUpper)
	if n := run(fast, sampleAfter+160, 2_000); n != sampleAfter+160/sampleEvery || fast.Count != sampleAfter+160 || fast.Timed != uint64(n) {
		t.Errorf("fast: %d timed of %d (Timed %d)", n, fast.Count, fast.Timed)
	}
	slow := ss.Get("select 2", strings.ToUpper)
	if n := run(slow, sampleAfter+160, 300_000); n != sampleAfter+160 {
		t.Errorf("slow: %d timed of %d", n, slow.Count)
	}
	if slow.Avg() != 300_000 || slow.Total() != 300_000*float64(sampleAfter+160) || slow.Percentile(99) != 300_000 {
		t.Errorf("slow: avg %v total %v p99 %v", slow.Avg(), slow.Total(), slow.Percentile(99))
	}
	// Texts normalise to one statement; a statement never run is not listed.
	if ss.Get("Select 2", strings.ToUpper) != ss.Get("SELECT 2", strings.ToUpper) {
		t.Error("two texts of one statement are two statements")
	}
	ss.Get("never", strings.ToUpper)
	if n := len(ss.List()); n != 2 {
		t.Errorf("%d statements listed, want the 2 that ran", n)
	}
}

// Merged statements add up by text, the most total time first.
func TestMergeStatements(t *testing.T) {
	a, b := NewStatements(), NewStatements()
	run(a.Get("q1", strings.ToUpper), 10, 100_000)
	run(b.Get("q1", strings.ToUpper), 30, 200_000)
	run(b.Get("q2", strings.ToUpper), 5, 10_000_000)
	b.Get("q2", strings.ToUpper).Fail()
	m := MergeStatements(a.List(), b.List())
	if len(m) != 2 || m[0].SQL != "Q2" || m[1].SQL != "Q1" {
		t.Fatalf("merged %v", m)
	}
	q1 := m[1]
	if q1.Count != 40 || q1.Timed != 40 || q1.MinNS != 100_000 || q1.MaxNS != 200_000 || q1.Avg() != 175_000 || q1.Hist.TotalCount() != 40 {
		t.Errorf("q1 %+v", q1)
	}
	if m[0].Errors != 1 {
		t.Errorf("q2 errors %d", m[0].Errors)
	}
}

// A prepared statement keeps its text as prepared, literals and all; a
// query normalizing to that text is the same statement.
func TestPreparedStatementText(t *testing.T) {
	ss := NewStatements()
	norm := func(q string) string { return strings.ReplaceAll(q, "100", "?") }
	p := ss.Prepared("SELECT v + 100 FROM t WHERE id = ?")
	if p.SQL != "SELECT v + 100 FROM t WHERE id = ?" {
		t.Errorf("prepared as %q", p.SQL)
	}
	if q := ss.Get("SELECT v + 100 FROM t WHERE id = ?", norm); q == p || q.SQL != "SELECT v + ? FROM t WHERE id = ?" {
		t.Errorf("the query's statement %q is the prepared one's", q.SQL)
	}
	if ss.Prepared("SELECT v + ? FROM t WHERE id = ?") != ss.Get("SELECT v + 100 FROM t WHERE id = ?", norm) {
		t.Error("a prepared text that a query normalizes to is two statements")
	}
}
