package metrics

import (
	"maps"
	"slices"
	"unsafe"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Statement latencies (--statement-stats) go into histograms of 2
// significant digits (26 KiB each, against 184 KiB at the run's 3): one
// per statement and worker.
const StatementSig = 2

// NewStatementHistogram returns an empty statement latency histogram (µs).
func NewStatementHistogram() *hdr.Histogram { return hdr.New(HistMinUS, HistMaxUS, StatementSig) }

// Sampling: a statement is timed on every execution until sampleAfter
// executions were timed; if they took under sampleBelowNS on average,
// only one execution in sampleEvery is timed from then on, so that the
// clock (two readings, some 50-100 ns together) costs no more than a few
// per cent of what it measures. Counts and errors stay exact; on a real
// server every execution is timed.
const (
	sampleAfter   = 64
	sampleBelowNS = 20_000
	sampleEvery   = 16
)

// Statement is one statement's figures: executions (Count), failed ones
// (Errors), and the latency of the Timed executions.
type Statement struct {
	SQL    string
	Count  uint64
	Errors uint64
	Timed  uint64
	SumNS  int64
	MinNS  int64
	MaxNS  int64
	Hist   *hdr.Histogram

	every, skip int
}

// Avg is the mean latency of the timed executions, in ns.
func (s *Statement) Avg() float64 {
	if s.Timed == 0 {
		return 0
	}
	return float64(s.SumNS) / float64(s.Timed)
}

// Total estimates the time spent in all executions, in ns: the mean of
// the timed ones times the count.
func (s *Statement) Total() float64 { return s.Avg() * float64(s.Count) }

// Percentile is the latency at percentile p in ns, within the observed
// min and max; 0 when nothing was timed.
func (s *Statement) Percentile(p float64) int64 {
	if s.Hist == nil || s.Hist.TotalCount() == 0 {
		return 0
	}
	return min(max(s.Hist.ValueAtPercentile(p)*1000, s.MinNS), s.MaxNS)
}

// Begin counts an execution and reports whether to time it.
func (s *Statement) Begin() bool {
	s.Count++
	if s.every <= 1 {
		return true
	}
	s.skip++
	if s.skip < s.every {
		return false
	}
	s.skip = 0
	return true
}

// End records a timed execution of ns nanoseconds.
func (s *Statement) End(ns int64, failed bool) {
	if failed {
		s.Errors++
	}
	if s.Timed == 0 || ns < s.MinNS {
		s.MinNS = ns
	}
	s.MaxNS = max(s.MaxNS, ns)
	s.Timed++
	s.SumNS += ns
	us := min(max((ns+500)/1000, HistMinUS), HistMaxUS)
	_ = s.Hist.RecordValue(us)
	if s.Timed == sampleAfter && s.every <= 1 && s.SumNS < sampleBelowNS*sampleAfter {
		s.every = sampleEvery
	}
}

// Fail counts an execution that was not timed as failed.
func (s *Statement) Fail() { s.Errors++ }

// add folds o into s.
func (s *Statement) add(o *Statement) {
	if o.Timed > 0 {
		if s.Timed == 0 || o.MinNS < s.MinNS {
			s.MinNS = o.MinNS
		}
		s.MaxNS = max(s.MaxNS, o.MaxNS)
	}
	s.Count += o.Count
	s.Errors += o.Errors
	s.Timed += o.Timed
	s.SumNS += o.SumNS
	s.Hist.Merge(o.Hist)
}

// Statements are one worker's statements by text. Only the worker uses
// its Statements while it runs.
type Statements struct {
	byText map[string]*Statement
	// raw maps a query's text as run to its statement, for texts that
	// repeat (BEGIN, COMMIT, prepared statements), up to maxRaw of them.
	raw    map[string]*Statement
	recent [2]recentText
}

type recentText struct {
	q  string
	st *Statement
}

const maxRaw = 256

// NewStatements returns an empty set.
func NewStatements() *Statements {
	return &Statements{byText: map[string]*Statement{}, raw: map[string]*Statement{}}
}

// Get returns the statement of query text q as run, normalizing it with
// norm the first time a text is seen.
func (ss *Statements) Get(q string, norm func(string) string) *Statement {
	// A script's constant texts (BEGIN, COMMIT) come back as the same
	// string: the last two are found without hashing.
	for i := range ss.recent {
		if r := &ss.recent[i]; r.st != nil && len(r.q) == len(q) && unsafe.StringData(r.q) == unsafe.StringData(q) {
			return r.st
		}
	}
	s := ss.get(q, norm)
	ss.recent[1], ss.recent[0] = ss.recent[0], recentText{q, s}
	return s
}

func (ss *Statements) get(q string, norm func(string) string) *Statement {
	if s, ok := ss.raw[q]; ok {
		return s
	}
	key := norm(q)
	s, ok := ss.byText[key]
	if !ok {
		s = &Statement{SQL: key, Hist: NewStatementHistogram()}
		ss.byText[key] = s
	}
	if len(ss.raw) < maxRaw {
		ss.raw[q] = s
	}
	return s
}

// Prepared returns the statement of a prepared statement's text, kept
// exactly as it was prepared: it is one statement whatever its values, so
// there is nothing to normalize, and its literals are part of what the
// script runs. A query whose normalized text is the same is the same
// statement.
func (ss *Statements) Prepared(q string) *Statement {
	s, ok := ss.byText[q]
	if !ok {
		s = &Statement{SQL: q, Hist: NewStatementHistogram()}
		ss.byText[q] = s
	}
	return s
}

// MergeStatements merges statement sets (workers', runs') into one list,
// by text, the most time first.
func MergeStatements(sets ...[]*Statement) []*Statement {
	by := map[string]*Statement{}
	for _, set := range sets {
		for _, s := range set {
			m, ok := by[s.SQL]
			if !ok {
				m = &Statement{SQL: s.SQL, Hist: NewStatementHistogram()}
				by[s.SQL] = m
			}
			m.add(s)
		}
	}
	out := slices.Collect(maps.Values(by))
	slices.SortFunc(out, func(a, b *Statement) int {
		switch ta, tb := a.Total(), b.Total(); {
		case ta > tb:
			return -1
		case ta < tb:
			return 1
		}
		if a.SQL < b.SQL {
			return -1
		}
		return 1
	})
	return out
}

// List is the set's statements that ran (a statement prepared and never
// executed is left out).
func (ss *Statements) List() []*Statement {
	out := make([]*Statement, 0, len(ss.byText))
	for _, s := range ss.byText {
		if s.Count > 0 {
			out = append(out, s)
		}
	}
	return out
}
