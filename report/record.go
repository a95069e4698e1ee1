package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
)

// Recorder records a run's reports for the results file: the intervals
// written to Stream as they come (a run of any length keeps none of them),
// the checkpoints (at most 256) and the total kept for the end.
type Recorder struct {
	Percentiles []float64
	Rate        bool // --rate: intervals carry the queue
	Stream      *ResultsStream

	Checkpoints []Window
	Total       *Window
	// The final report's warm-up, steady state and variation.
	Warmup     *WarmupEnd
	Steadiness *Steadiness
	Outages    []Outage
	// Err is the first report that could not be recorded.
	Err error
}

// Report records r.
func (rec *Recorder) Report(r *Report) {
	switch r.Kind {
	case Intermediate:
		iv := NewInterval(r.Stat, rec.Rate)
		iv.Server = r.Server
		rec.Stream.Interval(&iv)
	case Checkpoint:
		w, err := NewWindow(r.Window, rec.Percentiles)
		rec.keep(err)
		if w != nil {
			rec.Checkpoints = append(rec.Checkpoints, *w)
		}
	case Final:
		w, err := NewWindow(r.Run, rec.Percentiles)
		rec.keep(err)
		rec.Total = w
		rec.Warmup, rec.Steadiness, rec.Outages = r.Warmup, r.Steadiness, r.Outages
	}
}

func (rec *Recorder) keep(err error) {
	if err != nil && rec.Err == nil {
		rec.Err = err
	}
}

// IntervalsCSV writes the intermediate reports as CSV rows, one per
// interval, under a header row; each row is flushed as it is written, so
// the file holds every interval of a run that is killed.
type IntervalsCSV struct {
	w           *csv.Writer
	percentiles []float64
	rate        bool
	server      bool
	warmup      bool
	header      bool
	// Err is the first write error.
	Err error
}

// NewIntervalsCSV writes to w; the columns follow the percentiles and
// whether --rate is on.
func NewIntervalsCSV(w io.Writer, percentiles []float64, rate bool) *IntervalsCSV {
	return &IntervalsCSV{w: csv.NewWriter(w), percentiles: percentiles, rate: rate}
}

// WithServer adds --server-stats' columns: server CPU and WAL/redo bytes
// per second.
func (c *IntervalsCSV) WithServer() *IntervalsCSV {
	c.server = true
	return c
}

// WithWarmup adds the warmup column, last: 1 on the rows of the
// --warmup-time (their time_s counts from the run's start), 0 on the
// measured ones (from the measured window's).
func (c *IntervalsCSV) WithWarmup() *IntervalsCSV {
	c.warmup = true
	return c
}

// Header is the CSV's column names.
func (c *IntervalsCSV) Header() []string {
	h := []string{"time_s", "duration_s", "threads", "tps", "qps", "reads_per_s", "writes_per_s", "other_per_s"}
	for _, p := range c.percentiles {
		h = append(h, "latency_p"+PercentileKey(p)+"_ms")
	}
	h = append(h, "errors_per_s", "reconnects_per_s", "events", "reads", "writes", "other", "errors", "reconnects",
		"failed_events", "retries")
	if c.rate {
		h = append(h, "queue_length", "concurrency")
	}
	if c.server {
		h = append(h, "server_cpu_pct", "wal_bytes_per_s")
	}
	if c.warmup {
		h = append(h, "warmup")
	}
	return h
}

// Report writes an intermediate report's row; others are ignored.
func (c *IntervalsCSV) Report(r *Report) {
	if r.Kind != Intermediate || c.Err != nil {
		return
	}
	if !c.header {
		c.header = true
		c.write(c.Header())
	}
	iv := NewInterval(r.Stat, c.rate)
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	row := []string{f(iv.Time), f(iv.Duration), strconv.Itoa(iv.ThreadsRunning), f(iv.TPS), f(iv.QPS.Total),
		f(iv.QPS.Read), f(iv.QPS.Write), f(iv.QPS.Other)}
	for _, p := range c.percentiles {
		row = append(row, f(iv.Latency[PercentileKey(p)]))
	}
	k := iv.Counters
	row = append(row, f(iv.ErrorsPerSec), f(iv.ReconnPerSec), u(k.Events), u(k.Reads), u(k.Writes), u(k.Other), u(k.Errors), u(k.Reconnects),
		u(k.FailedEvents), u(k.Retries))
	if c.rate {
		row = append(row, u(*iv.QueueLength), strconv.FormatInt(*iv.Concurrency, 10))
	}
	if c.server {
		opt := func(v *float64) string {
			if v == nil {
				return ""
			}
			return f(*v)
		}
		var sv ServerInterval
		if r.Server != nil {
			sv = *r.Server
		}
		row = append(row, opt(sv.CPUPct), opt(sv.WALBytesPerSec))
	}
	if c.warmup {
		row = append(row, map[bool]string{false: "0", true: "1"}[iv.Warmup])
	}
	c.write(row)
}

// Close writes the header of a run that had no interval.
func (c *IntervalsCSV) Close() error {
	if !c.header && c.Err == nil {
		c.header = true
		c.write(c.Header())
	}
	return c.Err
}

func (c *IntervalsCSV) write(row []string) {
	if err := c.w.Write(row); err == nil {
		c.w.Flush()
		c.Err = c.w.Error()
	} else {
		c.Err = err
	}
	if c.Err != nil {
		c.Err = fmt.Errorf("cannot write the intervals CSV: %w", c.Err)
	}
}
