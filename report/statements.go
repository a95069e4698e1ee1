package report

import (
	"fmt"
	"io"
	"strings"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/sysbench-go/sysbench-go/metrics"
)

// WriteStatements writes --statement-stats' table, as pgbench -r's: one
// line per statement, the most total time first, with its executions,
// failed ones, mean and percentiles in ms. running is the number of
// workers left out (still running after a forced shutdown).
func WriteStatements(w io.Writer, list []*metrics.Statement, percentiles []float64, running int) {
	fmt.Fprintf(w, "Statements (latency in ms, the most total time first):\n")
	head := fmt.Sprintf("    %12s %10s %8s %9s", "total", "count", "errors", "avg")
	for _, p := range percentiles {
		head += fmt.Sprintf(" %9s", pctLabel(p)+"%")
	}
	fmt.Fprintf(w, "%s  statement\n", head)
	sampled := false
	for _, s := range list {
		mark := " "
		if s.Timed < s.Count {
			mark, sampled = "~", true
		}
		line := fmt.Sprintf("   %s%12.2f %10d %8d %9.3f", mark, s.Total()/1e6, s.Count, s.Errors, s.Avg()/1e6)
		for _, p := range percentiles {
			line += fmt.Sprintf(" %9.3f", float64(s.Percentile(p))/1e6)
		}
		fmt.Fprintf(w, "%s  %s\n", line, oneLine(s.SQL))
	}
	if len(list) == 0 {
		fmt.Fprintf(w, "    none\n")
	}
	if sampled {
		fmt.Fprintf(w, "    (~: a statement under 20 us on average, timed on 1 execution in 16; counts are exact)\n")
	}
	if running > 0 {
		fmt.Fprintf(w, "    (%d worker(s) still running at the forced shutdown left out)\n", running)
	}
	fmt.Fprintf(w, "\n")
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

// StatementResult is a statement's figures in the results file; they
// merge without loss (the histogram is whole).
type StatementResult struct {
	SQL         string             `json:"sql"`
	Count       uint64             `json:"count"`
	Errors      uint64             `json:"errors"`
	Timed       uint64             `json:"timed"`
	TotalMS     float64            `json:"total_ms"`
	AvgMS       float64            `json:"avg_ms"`
	MinNS       int64              `json:"min_ns"`
	MaxNS       int64              `json:"max_ns"`
	SumNS       int64              `json:"sum_ns"`
	Percentiles map[string]float64 `json:"percentiles_ms"`
	Histogram   Histogram          `json:"histogram"`

	hist *hdr.Histogram // the decoded histogram, once checked
}

// NewStatementResults records statements with the given percentiles.
func NewStatementResults(list []*metrics.Statement, percentiles []float64) ([]StatementResult, error) {
	out := make([]StatementResult, 0, len(list))
	for _, s := range list {
		h, err := encodeHistogram(s.Hist)
		if err != nil {
			return nil, err
		}
		r := StatementResult{SQL: s.SQL, Count: s.Count, Errors: s.Errors, Timed: s.Timed, TotalMS: s.Total() / 1e6,
			AvgMS: s.Avg() / 1e6, MinNS: s.MinNS, MaxNS: s.MaxNS, SumNS: s.SumNS, Percentiles: map[string]float64{}, Histogram: h}
		for _, p := range percentiles {
			r.Percentiles[PercentileKey(p)] = ms(s.Percentile(p))
		}
		out = append(out, r)
	}
	return out, nil
}

// statement turns a recorded statement back into its figures.
func (r *StatementResult) statement() (*metrics.Statement, error) {
	h := r.hist
	if h == nil {
		var err error
		if h, err = decodeHistogram(&r.Histogram); err != nil {
			return nil, fmt.Errorf("statement %q: %v", r.SQL, err)
		}
	}
	return &metrics.Statement{SQL: r.SQL, Count: r.Count, Errors: r.Errors, Timed: r.Timed,
		SumNS: r.SumNS, MinNS: r.MinNS, MaxNS: r.MaxNS, Hist: h}, nil
}

// StatementList is the file's statements, to print or merge.
func (r *Results) StatementList() ([]*metrics.Statement, error) {
	var list []*metrics.Statement
	for i := range r.Statements {
		s, err := r.Statements[i].statement()
		if err != nil {
			return nil, err
		}
		list = append(list, s)
	}
	return list, nil
}

// mergeStatements merges the statements of several results files.
func mergeStatements(rs []*Results, percentiles []float64) ([]StatementResult, error) {
	var sets [][]*metrics.Statement
	for _, r := range rs {
		set, err := r.StatementList()
		if err != nil {
			return nil, err
		}
		sets = append(sets, set)
	}
	if len(sets) == 0 {
		return nil, nil
	}
	return NewStatementResults(metrics.MergeStatements(sets...), percentiles)
}
