package compare

import (
	"time"

	"github.com/sysbench-go/sysbench-go/stats"
)

// SummaryVersion is the version of compare.json's format.
// 2: a verdict's word ("verdict") in place of "sure" and "apart".
const SummaryVersion = 2

// Summary is a comparison read back from its results files: what the
// text and Markdown tables, compare.json and report.html all show.
type Summary struct {
	SchemaVersion int       `json:"schema_version"`
	Title         string    `json:"title"`
	Matrix        string    `json:"matrix"` // the matrix file it ran
	Generated     time.Time `json:"generated"`
	// Rate is the throughput figure of the tables: "tps" or "qps".
	Rate      string   `json:"rate"`
	Targets   []Target `json:"targets"`
	Workloads []string `json:"workloads"`
	Threads   []int    `json:"threads"`
	Rounds    int      `json:"rounds"`
	Groups    []Group  `json:"groups"`
	// Verdicts say, for each workload and thread count, which target
	// leads and the verdict on its lead (better, no difference detected,
	// ...: stats.Verdicts).
	Verdicts []Verdict `json:"verdicts"`
	// TimeS is each cell's measured time, in seconds.
	TimeS int `json:"time_s"`
	// Capacity says the cells are capacity searches (nil: runs at a
	// fixed load): a cell's tps is the rate it sustained within the
	// objective, its p95 and qps those of the rounds that confirmed it.
	Capacity *CapacityDesign `json:"capacity,omitempty"`
	Cells    []Cell          `json:"cells"`
	Warnings []Warning       `json:"warnings"`
}

// Target is one engine of the comparison, as its runs found it.
type Target struct {
	Name          string `json:"name"`
	Driver        string `json:"driver"`
	ServerVersion string `json:"server_version,omitempty"`
	// Settings are the durability settings --server-stats read (the
	// first finished cell's), empty without it.
	Settings []Setting `json:"settings"`
	// Durable says whether a commit waits for its log to reach the disk
	// (nil when the settings were not read).
	Durable *bool `json:"durable,omitempty"`
}

// Setting is a server setting.
type Setting struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Group is the rounds of one workload at one thread count on one target,
// aggregated: the medians, and their spread across rounds.
type Group struct {
	Workload string `json:"workload"`
	Threads  int    `json:"threads"`
	Target   string `json:"target"`
	// Rounds is how many rounds finished (the aggregates are over them).
	Rounds int `json:"rounds"`
	TPS    Agg `json:"tps"`
	QPS    Agg `json:"qps"`
	P95MS  Agg `json:"p95_ms"`
	// Best marks the best target of the workload and thread count: the
	// highest median rate, the lowest median p95.
	BestRate bool `json:"best_rate"`
	BestP95  bool `json:"best_p95"`
	// ServerCPUPct, PeakMemoryBytes (the server's memory: its peak PSS)
	// and BytesPerTrx come from --server-stats (nil without it, or for a
	// server on another machine).
	ServerCPUPct    *Agg `json:"server_cpu_pct,omitempty"`
	PeakMemoryBytes *Agg `json:"server_peak_memory_bytes,omitempty"`
	// OtherClients counts the rounds during which --server-stats saw other
	// clients work on the server: its figures include their work then.
	OtherClients int `json:"other_clients,omitempty"`
	// BytesPerTrx are the bytes the server wrote per transaction, by kind
	// (wal_bytes, binlog_bytes, data_bytes) and in all ("total").
	BytesPerTrx map[string]Agg `json:"bytes_per_trx,omitempty"`
	// ClientCPUPct is the client process's CPU time over the cell's wall
	// time (100 = one core).
	ClientCPUPct Agg `json:"client_cpu_pct"`
	// Capacity is a capacity search's: each round's interval and the
	// saturation (nil for cells at a fixed load).
	Capacity *GroupCapacity `json:"capacity,omitempty"`
}

// GroupCapacity is what the rounds of a capacity search found beside the
// rate (the group's tps).
type GroupCapacity struct {
	// Intervals are the rounds' 95% intervals of their answers, in round
	// order: where each search puts the capacity.
	Intervals [][2]float64 `json:"intervals"`
	// Saturation is the offered rate at which the server fell behind.
	Saturation Agg `json:"saturation"`
}

// Agg is a figure over the finished rounds.
type Agg struct {
	N      int     `json:"n"`
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	// SpreadPct is (max - min) / median in percent.
	SpreadPct float64 `json:"spread_pct"`
	// Rounds are the figures of the finished rounds, in round order: the
	// samples a verdict's confidence interval is computed from.
	Rounds []float64 `json:"rounds,omitempty"`
}

// Cell is one run: a target, a workload, a thread count and a round.
type Cell struct {
	ID       string `json:"id"`
	Target   string `json:"target"`
	Workload string `json:"workload"`
	Threads  int    `json:"threads"`
	Round    int    `json:"round"` // from 1
	Status   string `json:"status"`
	// Fatal is a failed cell's FATAL line.
	Fatal string `json:"fatal,omitempty"`
	// Results is the cell's results file, relative to the directory.
	Results string  `json:"results,omitempty"`
	TPS     float64 `json:"tps"`
	QPS     float64 `json:"qps"`
	P95MS   float64 `json:"p95_ms"`
	// Series are the cell's per-second intervals.
	Series []Point `json:"series"`
	// Steady is where the cell's interval rate settled (stats.SteadyState,
	// MSER-5), nil when its series is too short to tell (SteadyNote says
	// so). Variation is the CV of its interval rate and its longest dip
	// below half the median (stats.MeasureVariation), from the steady
	// start when there is one, else over every interval.
	Steady     *stats.Steady    `json:"steady,omitempty"`
	SteadyNote string           `json:"steady_note,omitempty"`
	Variation  *stats.Variation `json:"variation,omitempty"`
	// Capacity is a capacity search's answer (nil for a run at a fixed
	// load): TPS is its rate, QPS and P95MS those of its confirming
	// rounds together.
	Capacity *CellCapacity `json:"capacity,omitempty"`
	// Outages are the stretches the cell's target did not answer
	// (docs/availability.md), drawn as bands on the charts over time.
	Outages []OutageSpan `json:"outages,omitempty"`
}

// CellCapacity is a capacity search's answer.
type CellCapacity struct {
	// Low and High are its 95% interval; Offered the arrival rate of its
	// confirming rounds; Saturation the rate at which the server fell
	// behind.
	Low        float64 `json:"low"`
	High       float64 `json:"high"`
	Offered    float64 `json:"offered"`
	Saturation float64 `json:"saturation"`
	// Line is the search's answer line.
	Line string `json:"line"`
}

// OutageSpan is when an outage of a cell's run was, in seconds of its
// measured window (as its series' t_s).
type OutageSpan struct {
	StartS  float64 `json:"start_s"`
	EndS    float64 `json:"end_s"`
	Ongoing bool    `json:"ongoing,omitempty"`
}

// Point is one interval of a cell's run.
type Point struct {
	T     float64 `json:"t_s"`
	TPS   float64 `json:"tps"`
	QPS   float64 `json:"qps"`
	P95MS float64 `json:"p95_ms"`
}

// Warning is something detected that makes the comparison unfair.
type Warning struct {
	Kind    string `json:"kind"` // server_version, durability, client_cpu, other_clients, spread
	Message string `json:"message"`
}

// Cell statuses.
const (
	StatusPending     = "pending"
	StatusDone        = "done"
	StatusFailed      = "failed"
	StatusInterrupted = "interrupted"
)
