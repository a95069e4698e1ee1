package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/sysbench-go/sysbench-go/metrics"
	"github.com/sysbench-go/sysbench-go/stats"
)

// SchemaVersion is the version of the results file format written. A
// reader takes files of this version and refuses others with one line.
const SchemaVersion = 1

// Results is the results file: one JSON document per run, described by
// docs/results.schema.json and docs/results.md.
type Results struct {
	SchemaVersion int  `json:"schema_version"`
	Tool          Tool `json:"tool"`
	// RunID identifies the run (random, made when it starts), so that a
	// merge counts each run once.
	RunID string    `json:"run_id,omitempty"`
	Host  Host      `json:"host"`
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// CommandLine is the arguments, secrets redacted.
	CommandLine []string `json:"command_line"`
	// Options are every option's value (secrets redacted).
	Options  map[string]string `json:"options"`
	Workload Workload          `json:"workload"`
	Driver   *Driver           `json:"driver,omitempty"`
	// Settings are those of the measurement.
	Settings Settings `json:"settings"`
	// Intervals are the --report-interval reports.
	Intervals []Interval `json:"intervals"`
	// Checkpoints are the --report-checkpoints reports, each since the
	// previous one.
	Checkpoints []Window `json:"checkpoints"`
	// Total is the whole measured run (after --warmup-time); nil when
	// the run failed before it began.
	Total *Window `json:"total"`
	// Warmup is how --warmup-time ended: when the measured window began
	// and why; nil without a warm-up.
	Warmup *WarmupEnd `json:"warmup,omitempty"`
	// Steady is where the measured intervals' throughput settled
	// (MSER-5); nil with fewer intervals than it needs.
	Steady *stats.Steady `json:"steady,omitempty"`
	// Variation is how much the interval throughput varied from the
	// steady start on; nil with fewer than 2 intervals.
	Variation *stats.Variation `json:"variation,omitempty"`
	// Outages are the stretches in which the service did not answer
	// (docs/availability.md); absent when there was none.
	Outages []Outage `json:"outages,omitempty"`
	Exit    Exit     `json:"exit"`
	// Thresholds are the --threshold outcomes.
	Thresholds []ThresholdResult `json:"thresholds"`
	// Server is --server-stats' record of the server.
	Server *ServerStats `json:"server,omitempty"`
	// Statements are --statement-stats' statements, the most time first.
	Statements []StatementResult `json:"statements,omitempty"`
	// Instance is --instance's: this run was one of several.
	Instance *Instance `json:"instance,omitempty"`
	// Connections are the connections held open, with --idle-connections.
	Connections *Connections `json:"connections,omitempty"`
	// Capacity is the capacity command's search and sweep
	// (docs/capacity.md); absent for the other commands.
	Capacity *Capacity `json:"capacity,omitempty"`
	// Merged names the files a merged result was made of; Parts are the
	// runs in them, with their windows; Combined is how those windows
	// made the merged one (rounds one after the other, instances
	// together); Alignment is how the windows of instances lined up.
	Merged    []string     `json:"merged,omitempty"`
	Parts     []Part       `json:"parts,omitempty"`
	Combined  *Combination `json:"combined,omitempty"`
	Alignment *Alignment   `json:"alignment,omitempty"`
	// Warnings are what a merge took in that a reader of its figures
	// should know (MergeWarnings); not written.
	Warnings []string `json:"-"`
}

// Instance is one of the processes of a distributed run.
type Instance struct {
	Index int `json:"index"` // K of --instance=K/N
	Count int `json:"count"` // N
	// FirstThread is sysbench.tid of its first thread.
	FirstThread int `json:"first_thread"`
}

// Tool says what produced the file.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	API     string `json:"api"` // the sysbench version whose API is implemented
	Lua     string `json:"lua"`
	// Commit and BuildDate are the build's, when it recorded them.
	Commit    string `json:"commit,omitempty"`
	BuildDate string `json:"build_date,omitempty"`
}

// Host is the client machine.
type Host struct {
	Name string `json:"name"`
	CPUs int    `json:"cpus"`
	OS   string `json:"os"`
	Arch string `json:"arch"`
}

// Workload identifies what ran: results are merged only when it is the
// same.
type Workload struct {
	Test    string `json:"test"`
	Command string `json:"command"`
	Driver  string `json:"driver,omitempty"`
	// Options are the test's own options (a script's, a built-in test's).
	Options map[string]string `json:"options"`
}

// Driver is the database the run talked to.
type Driver struct {
	Name          string `json:"name"`
	ServerVersion string `json:"server_version,omitempty"`
}

// Settings are the run's general settings.
type Settings struct {
	Threads           int       `json:"threads"`
	TimeSeconds       float64   `json:"time_s"`
	Events            uint64    `json:"events"`
	Rate              float64   `json:"rate"`
	WarmupSeconds     float64   `json:"warmup_s"`
	ReportIntervalSec float64   `json:"report_interval_s"`
	Checkpoints       []float64 `json:"checkpoints_s"`
	Percentiles       []float64 `json:"percentiles"`
	RandSeed          int64     `json:"rand_seed"`
	MaxTries          int       `json:"max_tries"`
	// StartAt is --start-at: when the measured window was due to begin.
	StartAt *time.Time `json:"start_at,omitempty"`
}

// Interval is one intermediate report.
type Interval struct {
	Time           float64            `json:"time_s"`     // since the start
	Duration       float64            `json:"duration_s"` // the interval's length
	ThreadsRunning int                `json:"threads"`
	TPS            float64            `json:"tps"`
	QPS            QPS                `json:"qps"`
	Latency        map[string]float64 `json:"latency_ms"` // by percentile
	ErrorsPerSec   float64            `json:"errors_per_s"`
	ReconnPerSec   float64            `json:"reconnects_per_s"`
	Counters       Counters           `json:"counters"`
	// Warmup marks an interval of the --warmup-time, before the measured
	// window (its time_s counts from the run's start, the later ones' from
	// the window's).
	Warmup      bool    `json:"warmup,omitempty"`
	QueueLength *uint64 `json:"queue_length,omitempty"` // --rate only
	Concurrency *int64  `json:"concurrency,omitempty"`
	// Server is --server-stats' side of the interval.
	Server *ServerInterval `json:"server,omitempty"`
}

// QPS is queries per second by kind.
type QPS struct {
	Total float64 `json:"total"`
	Read  float64 `json:"read"`
	Write float64 `json:"write"`
	Other float64 `json:"other"`
}

// Counters are the sysbench counters of a window.
type Counters struct {
	Events     uint64 `json:"events"`
	Reads      uint64 `json:"reads"`
	Writes     uint64 `json:"writes"`
	Other      uint64 `json:"other"`
	Errors     uint64 `json:"errors"`
	Reconnects uint64 `json:"reconnects"`
	// FailedEvents, RetriedEvents and Retries: --max-tries.
	FailedEvents  uint64 `json:"failed_events"`
	RetriedEvents uint64 `json:"retried_events"`
	Retries       uint64 `json:"retries"`
}

// Failure is the retries and failed events one error code caused.
type Failure struct {
	Retries uint64 `json:"retries"`
	Failed  uint64 `json:"failed"`
}

// Window is a cumulative report: everything needed to print it again and
// to merge it with others without loss.
type Window struct {
	Start    time.Time `json:"start"`
	End      time.Time `json:"end"`
	Duration float64   `json:"duration_s"`
	Counters Counters  `json:"counters"`
	// Errors are the ignored errors by driver error code or SQLSTATE.
	Errors map[string]uint64 `json:"errors_by_code"`
	// Failures are the retries and failed events by error code.
	Failures map[string]Failure `json:"failures_by_code"`
	TPS      float64            `json:"tps"`
	QPS      QPS                `json:"qps"`
	Latency  Latency            `json:"latency"`
	Threads  []Thread           `json:"threads"`
	// Hosts are the endpoints that served the window (hosts.go).
	Hosts []ServedHost `json:"hosts,omitempty"`

	hist *hdr.Histogram // the decoded histogram, once checked
}

// Latency is a window's event latency: exact min/max/sum (ns) and their
// readable forms (ms), percentiles, and the whole histogram.
type Latency struct {
	Events      uint64             `json:"events"`
	MinNS       int64              `json:"min_ns"`
	MaxNS       int64              `json:"max_ns"`
	SumNS       int64              `json:"sum_ns"`
	MinMS       float64            `json:"min_ms"`
	AvgMS       float64            `json:"avg_ms"`
	MaxMS       float64            `json:"max_ms"`
	SumMS       float64            `json:"sum_ms"`
	Percentiles map[string]float64 `json:"percentiles_ms"`
	Histogram   Histogram          `json:"histogram"`
}

// Histogram is an HDR histogram of latencies in µs: Encoded is
// hdrhistogram-go's V2 compressed encoding in base64 (lossless, readable
// by any HdrHistogram implementation); Buckets are its counts in the
// buckets that --histogram prints (at most 1024, log-spaced), to read.
type Histogram struct {
	Unit               string   `json:"unit"`
	LowestTrackable    int64    `json:"lowest_trackable"`
	HighestTrackable   int64    `json:"highest_trackable"`
	SignificantFigures int64    `json:"significant_figures"`
	Count              int64    `json:"count"`
	Encoded            string   `json:"hdr_v2_base64"`
	Buckets            []Bucket `json:"buckets"`
}

// Bucket is one non-empty bucket of the printed histogram: its value in
// ms, as --histogram prints it, and its count.
type Bucket struct {
	MS    float64 `json:"ms"`
	Count int64   `json:"count"`
}

// Thread is one worker's figures over a window.
type Thread struct {
	Events uint64 `json:"events"`
	SumNS  int64  `json:"time_ns"`
	MinNS  int64  `json:"min_ns"`
	MaxNS  int64  `json:"max_ns"`
}

// Exit is how the run ended.
type Exit struct {
	Status int `json:"status"`
	// Reason is "completed", "interrupted" (SIGINT/SIGTERM), "failed",
	// "forced_shutdown" or "thresholds_failed": the first of Reasons.
	Reason string `json:"reason"`
	// Reasons are every reason that applies (an interrupted run that also
	// missed a threshold), the main one first; absent in files written
	// before it existed. A merge keeps every part's.
	Reasons []string `json:"reasons,omitempty"`
	Fatal   []string `json:"fatal"`
}

// Complete says whether the run measured its whole window: it ended as
// planned (a missed threshold too), for every reason it gives; else the
// first reason that says otherwise.
func (e *Exit) Complete() (bool, string) {
	for _, r := range append([]string{e.Reason}, e.Reasons...) {
		if r != "completed" && r != "thresholds_failed" {
			return false, r
		}
	}
	return true, ""
}

// PercentileKey is how a percentile is named in the file, as printed:
// "95", "99.9".
func PercentileKey(p float64) string { return pctLabel(p) }

func countersOf(c metrics.Counts) Counters {
	return Counters{Events: c[metrics.CntEvent], Reads: c[metrics.CntRead], Writes: c[metrics.CntWrite],
		Other: c[metrics.CntOther], Errors: c[metrics.CntError], Reconnects: c[metrics.CntReconnect],
		FailedEvents: c[metrics.CntFailedEvent], RetriedEvents: c[metrics.CntRetriedEvent], Retries: c[metrics.CntRetry]}
}

func (c Counters) counts() (out metrics.Counts) {
	out[metrics.CntEvent], out[metrics.CntRead], out[metrics.CntWrite] = c.Events, c.Reads, c.Writes
	out[metrics.CntOther], out[metrics.CntError], out[metrics.CntReconnect] = c.Other, c.Errors, c.Reconnects
	out[metrics.CntFailedEvent], out[metrics.CntRetriedEvent], out[metrics.CntRetry] = c.FailedEvents, c.RetriedEvents, c.Retries
	return out
}

func qpsOf(c Counters, sec float64) QPS {
	if sec <= 0 {
		return QPS{}
	}
	return QPS{Total: float64(c.Reads+c.Writes+c.Other) / sec, Read: float64(c.Reads) / sec,
		Write: float64(c.Writes) / sec, Other: float64(c.Other) / sec}
}

func perSec(n uint64, sec float64) float64 {
	if sec <= 0 {
		return 0
	}
	return float64(n) / sec
}

func ms(ns int64) float64 { return float64(ns) / 1e6 }

// NewInterval records an intermediate report.
func NewInterval(s *Stat, rate bool) Interval {
	c := Counters{Events: s.Events, Reads: s.Reads, Writes: s.Writes, Other: s.Other, Errors: s.Errors, Reconnects: s.Reconnects,
		FailedEvents: s.Failed, RetriedEvents: s.RetriedEvents, Retries: s.Retries}
	iv := Interval{Time: s.TimeTotal, Duration: s.TimeInterval, ThreadsRunning: s.ThreadsRunning,
		TPS: perSec(s.Events, s.TimeInterval), QPS: qpsOf(c, s.TimeInterval), Latency: map[string]float64{},
		ErrorsPerSec: perSec(s.Errors, s.TimeInterval), ReconnPerSec: perSec(s.Reconnects, s.TimeInterval), Counters: c,
		Warmup: s.Warmup}
	for i, p := range s.Percentiles {
		iv.Latency[PercentileKey(p)] = ms(int64(math.Round(s.LatencyPcts[i] * 1e9)))
	}
	if rate {
		q, n := s.QueueLength, s.Concurrency
		iv.QueueLength, iv.Concurrency = &q, &n
	}
	return iv
}

// NewWindow records snapshot w with the given percentiles.
func NewWindow(w *metrics.Snapshot, percentiles []float64) (*Window, error) {
	sec := w.Duration().Seconds()
	c := countersOf(w.Counters)
	out := &Window{Start: w.Start.UTC(), End: w.End.UTC(), Duration: sec, Counters: c,
		Errors: maps.Clone(w.Errors), TPS: perSec(c.Events, sec), QPS: qpsOf(c, sec),
		Threads: make([]Thread, len(w.Threads))}
	if out.Errors == nil {
		out.Errors = map[string]uint64{}
	}
	out.Failures = make(map[string]Failure, len(w.Failures))
	for k, f := range w.Failures {
		out.Failures[k] = Failure(f)
	}
	l := w.Latency
	out.Latency = Latency{Events: l.Events, MinNS: l.MinNS, MaxNS: l.MaxNS, SumNS: l.SumNS,
		MinMS: ms(l.MinNS), AvgMS: w.Avg() / 1e6, MaxMS: ms(l.MaxNS), SumMS: ms(l.SumNS),
		Percentiles: map[string]float64{}}
	for _, p := range percentiles {
		out.Latency.Percentiles[PercentileKey(p)] = ms(w.Percentile(p))
	}
	h, err := encodeHistogram(w.Histogram)
	if err != nil {
		return nil, err
	}
	out.Latency.Histogram = h
	for i, t := range w.Threads {
		out.Threads[i] = Thread(t)
	}
	if len(w.Hosts) > 0 {
		out.Hosts = hostsOf(w.Hosts, w.Start)
	}
	return out, nil
}

func encodeHistogram(h *hdr.Histogram) (Histogram, error) {
	enc, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		return Histogram{}, fmt.Errorf("encoding the latency histogram: %w", err)
	}
	out := Histogram{Unit: "us", LowestTrackable: h.LowestTrackableValue(),
		HighestTrackable: h.HighestTrackableValue(), SignificantFigures: h.SignificantFigures(),
		Count: h.TotalCount(), Encoded: string(enc), Buckets: []Bucket{}}
	buckets, _ := printedBuckets(h)
	for _, b := range buckets {
		out.Buckets = append(out.Buckets, Bucket{MS: math.Round(b.ms*1000) / 1000, Count: b.count})
	}
	return out, nil
}

// Snapshot turns the window back into the snapshot it was made of, its
// measured time the window's duration (which, merged from rounds, is less
// than from its start to its end).
func (w *Window) Snapshot() (*metrics.Snapshot, error) {
	h := w.hist
	if h == nil {
		var err error
		if h, err = decodeHistogram(&w.Latency.Histogram); err != nil {
			return nil, err
		}
	}
	s := &metrics.Snapshot{Start: w.Start, End: w.End, Measured: seconds64(w.Duration), Counters: w.Counters.counts(),
		Errors: maps.Clone(w.Errors), Histogram: h, Threads: make([]metrics.Thread, len(w.Threads)),
		Failures: make(map[string]metrics.Failure, len(w.Failures)),
		Latency:  metrics.Thread{Events: w.Latency.Events, SumNS: w.Latency.SumNS, MinNS: w.Latency.MinNS, MaxNS: w.Latency.MaxNS}}
	for i, t := range w.Threads {
		s.Threads[i] = metrics.Thread(t)
	}
	for k, f := range w.Failures {
		s.Failures[k] = metrics.Failure(f)
	}
	s.Hosts = hostsFrom(w.Hosts)
	return s, nil
}

// Write writes the results document to o, whole, through the stream a
// run writes (ResultsStream: one layout for both); stdout is standard
// output, for an output of "-".
func (r *Results) Write(o *Output, stdout io.Writer) error {
	s, err := NewResultsStream(o, stdout, r)
	if err != nil {
		return err
	}
	for i := range r.Intervals {
		s.Interval(&r.Intervals[i])
	}
	return s.Finish(r)
}

// PathCause drops an *os.PathError's path (a temporary file's, or one the
// message names already), keeping why the operation failed.
func PathCause(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ReadFile reads a results file, checking that it is one, of a version
// this program reads, and whole.
func ReadFile(path string) (*Results, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read '%s': %w", path, PathCause(err))
	}
	r, err := Decode(b)
	if err != nil {
		return nil, fmt.Errorf("'%s': %w", path, err)
	}
	return r, nil
}

// Decode parses a results document, checking it against the schema and
// its figures against each other (check).
func Decode(b []byte) (*Results, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) && se.Offset >= int64(len(bytes.TrimRight(b, " \n\t\r"))) {
			return nil, errors.New("not a whole results file (truncated?)")
		}
		return nil, fmt.Errorf("not a results file: %v", jsonMessage(err))
	}
	var version int
	var tool struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(fields["schema_version"], &version) != nil || json.Unmarshal(fields["tool"], &tool) != nil || tool.Name == "" {
		return nil, errors.New("not a results file (no schema_version and tool)")
	}
	if version != SchemaVersion {
		if version > SchemaVersion {
			return nil, fmt.Errorf("results schema version %d is newer than this program reads (%d): use a newer sysbench-go", version, SchemaVersion)
		}
		return nil, fmt.Errorf("results schema version %d is not read by this program (it reads version %d)", version, SchemaVersion)
	}
	for _, k := range []string{"start", "end", "workload", "settings", "total", "exit"} {
		if _, ok := fields[k]; !ok {
			return nil, fmt.Errorf("not a whole results file: no %q", k)
		}
	}
	if err := ValidateSchema(b); err != nil {
		return nil, err
	}
	var r Results
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("not a results file: %v", jsonMessage(err))
	}
	if r.Total != nil && len(r.Total.Threads) == 0 {
		return nil, errors.New("not a whole results file: the total has no threads")
	}
	if err := r.check(); err != nil {
		return nil, err
	}
	return &r, nil
}

func jsonMessage(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("%s is not a %s", te.Field, te.Type)
	}
	return err.Error()
}
