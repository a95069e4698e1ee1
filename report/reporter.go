package report

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/sysbench-go/sysbench-go/metrics"
)

// Kind tells which of a run's reports a Report is.
type Kind int

const (
	// Intermediate reports come every --report-interval.
	Intermediate Kind = iota
	// Checkpoint reports come at --report-checkpoints; each covers the
	// time since the previous one.
	Checkpoint
	// Final is the report at the end of the run, since the start or the
	// last checkpoint.
	Final
)

func (k Kind) String() string {
	return [...]string{"intermediate", "checkpoint", "final"}[k]
}

// Report is one report of a run, handed to every configured Reporter.
type Report struct {
	Kind Kind
	// Stat is the sysbench figures of Window.
	Stat *Stat
	// Window is what was measured since the previous report of its kind
	// (for a checkpoint and the final report, since the previous
	// checkpoint or the start).
	Window *metrics.Snapshot
	// Run is the whole measured run up to this report; nil for
	// intermediate reports.
	Run *metrics.Snapshot
	// Server is the server's side of an intermediate report, set by the
	// --server-stats reporter for the reporters after it.
	Server *ServerInterval
	// Warmup is how the warm-up ended (final report, nil without one).
	Warmup *WarmupEnd
	// Steadiness is what the intervals say of the run (final report,
	// nil without intermediate reports).
	Steadiness *Steadiness
	// Outages are the stretches the service did not answer (final
	// report; none when it always did).
	Outages []Outage
	// Incomplete: the run was cut short (a worker failed, a signal
	// stopped it) and the final report covers what it measured until
	// then.
	Incomplete bool
}

// Reporter receives a run's reports. The engine calls reporters from one
// goroutine at a time, in report order.
type Reporter interface {
	Report(r *Report)
}

// Hooks print a test's own text for a report; false lets Text print the
// default. Lua scripts' sysbench.hooks and the built-in tests' extra
// blocks come in through them.
type Hooks interface {
	ReportIntermediate(w io.Writer, s *Stat) bool
	ReportCumulative(w io.Writer, s *Stat) bool
}

// Text prints reports in the sysbench 1.0.20 format.
type Text struct {
	Out     io.Writer // the cumulative reports
	Stamped io.Writer // the intermediate lines
	// Aside is where what a plain sysbench command line does not print,
	// and no option asked for, goes (standard error; nil: Out): the final
	// report of an incomplete run, which the reference does not print, so
	// that a parser of the output never reads a failed run as a complete
	// one; the steady state; the Availability and Hosts blocks unless
	// OutagesAsked.
	Aside        io.Writer
	OutagesAsked bool
	Hooks        Hooks
	// Rate adds the --rate queue line to the default intermediate line.
	Rate bool
	// Histogram prints the latency histogram before the final report.
	Histogram bool
	// FailuresDetailed prints the failures by error code after the
	// final report.
	FailuresDetailed bool
	// BeforeFinal runs before the final report is printed (to close the
	// JSON arrays a script's report hooks opened).
	BeforeFinal func()
}

// Report prints r.
func (t *Text) Report(r *Report) {
	switch r.Kind {
	case Intermediate:
		if !t.Hooks.ReportIntermediate(t.Stamped, r.Stat) {
			WriteIntermediateDefault(t.Stamped, r.Stat, t.Rate)
		}
		return
	case Checkpoint:
		WriteTimestamp(t.Out, r.Stat.TimeTotal)
		fmt.Fprintf(t.Out, "Checkpoint report:\n")
	case Final:
		if t.BeforeFinal != nil {
			t.BeforeFinal()
		}
	}
	out, aside := t.Out, t.Out
	if t.Aside != nil {
		aside = t.Aside
	}
	if r.Kind == Final && r.Incomplete {
		out = aside
	}
	if r.Kind == Final && t.Histogram {
		fmt.Fprintf(out, "Latency histogram (values are in milliseconds)\n")
		WriteHistogram(out, r.Window.Histogram)
		fmt.Fprintf(out, " \n")
	}
	if !t.Hooks.ReportCumulative(out, r.Stat) {
		WriteGeneralStatistics(out, r.Stat)
	}
	if r.Kind != Final {
		return
	}
	if t.FailuresDetailed {
		WriteFailures(out, r.Stat)
	}
	if r.Steadiness != nil {
		WriteSteadiness(aside, *r.Steadiness)
	}
	outages := aside
	if t.OutagesAsked && !r.Incomplete {
		outages = out
	}
	WriteAvailability(outages, r.Outages)
	WriteHosts(outages, r.Run)
}

// Header is the run-mode header's settings.
type Header struct {
	Threads        int
	Rate           float64
	ReportInterval time.Duration
	Checkpoints    []time.Duration
	Warmup         time.Duration
	WarmupAuto     bool // Warmup is the automatic warm-up's maximum
	Debug          bool
	Validate       bool
	RandSeed       int64
	// ForcedShutdown is when a forced shutdown is due, 0 for none.
	ForcedShutdown time.Duration
}

// WriteHeader writes the "Running the test with following options:" block.
func WriteHeader(w io.Writer, c Header) {
	fmt.Fprintf(w, "Running the test with following options:\n")
	fmt.Fprintf(w, "Number of threads: %d\n", c.Threads)
	if c.Rate > 0 {
		fmt.Fprintf(w, "Target transaction rate: %s/sec\n", formatNumber(c.Rate))
	}
	if c.ReportInterval > 0 {
		every := formatSeconds(c.ReportInterval)
		if s := c.ReportInterval / time.Second; s > math.MaxInt32 && s <= math.MaxUint32 && c.ReportInterval%time.Second == 0 {
			// A negative --report-interval, kept unsigned as the
			// reference keeps it, is printed as given, as there.
			every = fmt.Sprint(int32(uint32(s)))
		}
		fmt.Fprintf(w, "Report intermediate results every %s second(s)\n", every)
	}
	if len(c.Checkpoints) > 0 {
		fmt.Fprintf(w, "Report checkpoint(s) at ")
		for i, cp := range c.Checkpoints {
			if i > 0 {
				fmt.Fprintf(w, ", ")
			}
			fmt.Fprintf(w, "%s", formatSeconds(cp))
		}
		fmt.Fprintf(w, " seconds\n")
	}
	if c.Warmup > 0 && c.WarmupAuto {
		fmt.Fprintf(w, "Warmup time: until the throughput is steady, at most %s seconds\n", formatSeconds(c.Warmup))
	} else if c.Warmup > 0 {
		fmt.Fprintf(w, "Warmup time: %s seconds\n", formatSeconds(c.Warmup))
	}
	if c.Debug {
		fmt.Fprintf(w, "Debug mode enabled.\n\n")
	}
	if c.Validate {
		fmt.Fprintf(w, "Validation checks: on.\n\n")
	}
	if c.RandSeed != 0 {
		fmt.Fprintf(w, "Initializing random number generator from seed (%d).\n\n", c.RandSeed)
	} else {
		fmt.Fprintf(w, "Initializing random number generator from current time\n\n")
	}
	if c.ForcedShutdown > 0 {
		fmt.Fprintf(w, "Forcing shutdown in %d seconds\n", int64(c.ForcedShutdown/time.Second))
	}
	fmt.Fprintf(w, "\n")
}

func formatNumber(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%g", v)
}

func formatSeconds(d time.Duration) string { return formatNumber(d.Seconds()) }
