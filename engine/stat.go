package engine

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
