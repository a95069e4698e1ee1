// Package report prints and records what a run measured: the sysbench
// text format (byte for byte the reference's), the results file (JSON),
// the interval series (CSV), and the merge of results files. Everything
// here is a function of snapshots (package metrics) and an io.Writer.
package report

import (
	"github.com/sysbench-go/sysbench-go/metrics"
)

// Stat is one report's figures, as sysbench's sb_stat_t: an intermediate
// report covers one interval, a cumulative one the time since the start
// or the last checkpoint. Times are in seconds.
type Stat struct {
	ThreadsRunning int
	Threads        int     // --threads
	TimeInterval   float64 // seconds covered by this report
	TimeTotal      float64 // seconds since the run started

	Events     uint64
	Reads      uint64
	Writes     uint64
	Other      uint64
	Errors     uint64
	Reconnects uint64

	// --max-tries: events given up, events retried, restarts; printed
	// when ShowRetries is set or an event failed. Failures holds them by
	// error code.
	Failed        uint64
	RetriedEvents uint64
	Retries       uint64
	ShowRetries   bool
	Failures      map[string]metrics.Failure

	// Latency in seconds. LatencyPct is the value at Percentile (the first
	// of Percentiles); Percentiles/LatencyPcts hold every requested one.
	LatencyMin  float64
	LatencyMax  float64
	LatencyAvg  float64
	LatencySum  float64
	Percentile  float64
	LatencyPct  float64
	Percentiles []float64
	LatencyPcts []float64

	// Warmup marks an intermediate report of the --warmup-time.
	Warmup bool

	// --rate only.
	QueueLength uint64
	Concurrency int64

	// Per-thread figures for the fairness block (cumulative only).
	ThreadEvents []uint64
	ThreadTime   []float64 // seconds of event execution per thread
	// ThreadMin and ThreadMax are each thread's shortest and longest
	// event in seconds, printed per thread with --debug (PerThread).
	ThreadMin []float64
	ThreadMax []float64
	PerThread bool

	// Checkpoint is set on a --report-checkpoints report.
	Checkpoint bool

	// Unfinished is the number of events still running at a forced shutdown.
	Unfinished int
}

// NewStat returns the figures of window w with the given percentiles;
// the caller sets what the window does not know (threads running, time
// since the start, the --rate queue).
func NewStat(w *metrics.Snapshot, percentiles []float64) *Stat {
	c := w.Counters
	s := &Stat{
		Threads:      len(w.Threads),
		TimeInterval: w.Duration().Seconds(),
		Events:       c[metrics.CntEvent], Reads: c[metrics.CntRead], Writes: c[metrics.CntWrite],
		Other: c[metrics.CntOther], Errors: c[metrics.CntError], Reconnects: c[metrics.CntReconnect],
		Failed: c[metrics.CntFailedEvent], RetriedEvents: c[metrics.CntRetriedEvent], Retries: c[metrics.CntRetry],
		Failures:   w.Failures,
		LatencyMin: seconds(w.Latency.MinNS), LatencyMax: seconds(w.Latency.MaxNS),
		LatencySum: seconds(w.Latency.SumNS), LatencyAvg: w.Avg() / 1e9,
		Percentiles:  percentiles,
		LatencyPcts:  make([]float64, len(percentiles)),
		ThreadEvents: make([]uint64, len(w.Threads)),
		ThreadTime:   make([]float64, len(w.Threads)),
		ThreadMin:    make([]float64, len(w.Threads)),
		ThreadMax:    make([]float64, len(w.Threads)),
	}
	for i, p := range percentiles {
		s.LatencyPcts[i] = seconds(w.Percentile(p))
	}
	if len(percentiles) > 0 {
		s.Percentile, s.LatencyPct = percentiles[0], s.LatencyPcts[0]
	}
	for i, t := range w.Threads {
		s.ThreadEvents[i] = t.Events
		s.ThreadTime[i] = seconds(t.SumNS)
		s.ThreadMin[i] = seconds(t.MinNS)
		s.ThreadMax[i] = seconds(t.MaxNS)
	}
	return s
}

func seconds(ns int64) float64 { return float64(ns) / 1e9 }
