package report

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Report formatters. Each writes sysbench 1.0.20's text to an io.Writer,
// byte for byte where the reference has one.

// Thousands writes v rounded to a whole number, its digits grouped by
// three: "12,345" (the tables of compare and capacity).
func Thousands(v float64) string {
	digits := strconv.FormatFloat(math.Abs(v), 'f', 0, 64)
	var sb strings.Builder
	if v < 0 {
		sb.WriteByte('-')
	}
	for i, d := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			sb.WriteByte(',')
		}
		sb.WriteRune(d)
	}
	return sb.String()
}

// pctLabel is the percentile as printed: "95", "99.9".
func pctLabel(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }

// WriteTimestamp writes the "[ Ns ] " prefix of intermediate lines.
func WriteTimestamp(w io.Writer, seconds float64) {
	fmt.Fprintf(w, "[ %.0fs ] ", seconds)
}

// WriteStamp writes the prefix of an intermediate line of s: "[ Ns ] ",
// or "[ warmup Ns ] " for an interval of --warmup-time. sysbench 1.1
// prints nothing then; ours shows the warm-up, marked so that a reader
// and a parser of sysbench 1.0.20's lines ("[ 12s ] thds: ...") tell it
// from the measured intervals, which count again from 1s when it ends.
func WriteStamp(w io.Writer, s *Stat) {
	if s.Warmup {
		fmt.Fprintf(w, "[ warmup %.0fs ] ", s.TimeTotal)
		return
	}
	WriteTimestamp(w, s.TimeTotal)
}

// writeMorePercentiles writes the percentiles after the first of
// --percentile=50,99.9 at the end of an intermediate line, each as the
// first is written, " lat (ms,99.9%): 3.10": the line up to its end stays
// sysbench's, whose parsers read the first.
func writeMorePercentiles(w io.Writer, s *Stat) {
	for i := 1; i < len(s.Percentiles) && i < len(s.LatencyPcts); i++ {
		fmt.Fprintf(w, " lat (ms,%s%%): %4.2f", pctLabel(s.Percentiles[i]), s.LatencyPcts[i]*1000)
	}
}

// WriteIntermediateSQL writes the default intermediate line of a test that
// talks to a database, plus the --rate queue line when rate is set.
func WriteIntermediateSQL(w io.Writer, s *Stat, rate bool) {
	sec := s.TimeInterval
	WriteStamp(w, s)
	fmt.Fprintf(w, "thds: %d tps: %4.2f qps: %4.2f (r/w/o: %4.2f/%4.2f/%4.2f) lat (ms,%s%%): %4.2f err/s: %4.2f reconn/s: %4.2f",
		s.ThreadsRunning, float64(s.Events)/sec,
		float64(s.Reads+s.Writes+s.Other)/sec,
		float64(s.Reads)/sec, float64(s.Writes)/sec, float64(s.Other)/sec,
		pctLabel(s.Percentile), s.LatencyPct*1000,
		float64(s.Errors)/sec, float64(s.Reconnects)/sec)
	writeMorePercentiles(w, s)
	fmt.Fprintf(w, "\n")
	if rate {
		WriteStamp(w, s)
		fmt.Fprintf(w, "queue length: %d, concurrency: %d\n", s.QueueLength, s.Concurrency)
	}
}

// WriteIntermediateDefault writes the intermediate line of a test that uses
// no database (events per second only).
func WriteIntermediateDefault(w io.Writer, s *Stat, rate bool) {
	WriteStamp(w, s)
	fmt.Fprintf(w, "thds: %d eps: %4.2f lat (ms,%s%%): %4.2f",
		s.ThreadsRunning, float64(s.Events)/s.TimeInterval,
		pctLabel(s.Percentile), s.LatencyPct*1000)
	writeMorePercentiles(w, s)
	fmt.Fprintf(w, "\n")
	if rate {
		WriteStamp(w, s)
		fmt.Fprintf(w, "queue length: %d concurrency: %d\n", s.QueueLength, s.Concurrency)
	}
}

// WriteSQLStatistics writes the "SQL statistics:" block.
func WriteSQLStatistics(w io.Writer, s *Stat) {
	sec := s.TimeInterval
	q := s.Reads + s.Writes + s.Other
	fmt.Fprintf(w, "SQL statistics:\n")
	fmt.Fprintf(w, "    queries performed:\n")
	fmt.Fprintf(w, "        read:                            %d\n", s.Reads)
	fmt.Fprintf(w, "        write:                           %d\n", s.Writes)
	fmt.Fprintf(w, "        other:                           %d\n", s.Other)
	fmt.Fprintf(w, "        total:                           %d\n", q)
	fmt.Fprintf(w, "    transactions:                        %-6d (%.2f per sec.)\n", s.Events, float64(s.Events)/sec)
	fmt.Fprintf(w, "    queries:                             %-6d (%.2f per sec.)\n", q, float64(q)/sec)
	fmt.Fprintf(w, "    ignored errors:                      %-6d (%.2f per sec.)\n", s.Errors, float64(s.Errors)/sec)
	fmt.Fprintf(w, "    reconnects:                          %-6d (%.2f per sec.)\n", s.Reconnects, float64(s.Reconnects)/sec)
	// Beyond the reference: with --max-tries or --failures-detailed, or
	// once an event failed (a run without them prints the reference's
	// block, however many events were restarted).
	if s.ShowRetries || s.Failed > 0 {
		fmt.Fprintf(w, "    failed events:                       %-6d (%.2f per sec.)\n", s.Failed, float64(s.Failed)/sec)
		fmt.Fprintf(w, "    retried events:                      %-6d (%.2f per sec.)\n", s.RetriedEvents, float64(s.RetriedEvents)/sec)
		fmt.Fprintf(w, "    retries:                             %-6d (%.2f per sec.)\n", s.Retries, float64(s.Retries)/sec)
	}
}

// WriteFailures writes --failures-detailed's block: per error code (with
// its name where known), the restarts it caused and the events it made
// fail, most frequent first.
func WriteFailures(w io.Writer, s *Stat) {
	fmt.Fprintf(w, "Failures by error:\n")
	if len(s.Failures) == 0 {
		fmt.Fprintf(w, "    none\n\n")
		return
	}
	codes := make([]string, 0, len(s.Failures))
	for c := range s.Failures {
		codes = append(codes, c)
	}
	sort.Slice(codes, func(i, j int) bool {
		a, b := s.Failures[codes[i]], s.Failures[codes[j]]
		if a.Retries+a.Failed != b.Retries+b.Failed {
			return a.Retries+a.Failed > b.Retries+b.Failed
		}
		return codes[i] < codes[j]
	})
	for _, c := range codes {
		f := s.Failures[c]
		fmt.Fprintf(w, "    %-36s retried: %-8d failed: %d\n", ErrorLabel(c)+":", f.Retries, f.Failed)
	}
	fmt.Fprintf(w, "\n")
}

// errorNames are the names of the error codes that benchmarks meet: the
// MySQL/MariaDB error numbers and the PostgreSQL SQLSTATEs ignored by
// default, and their neighbours.
var errorNames = map[string]string{
	"1205":  "lock_wait_timeout",
	"1213":  "deadlock",
	"1020":  "record_changed",
	"1062":  "duplicate_entry",
	"2006":  "server_gone",
	"2013":  "lost_connection",
	"40001": "serialization_failure",
	"40P01": "deadlock_detected",
	"23505": "unique_violation",
	"55P03": "lock_not_available",
	"57014": "query_canceled",
	"08006": "connection_failure",
	"HYT00": "query_timeout", // --query-timeout (the SQL/CLI's "timeout expired")
}

// ErrorLabel is a code with its name: "1213 (deadlock)"; "unknown" for
// an error without a code.
func ErrorLabel(code string) string {
	if code == "" {
		return "unknown"
	}
	if n, ok := errorNames[code]; ok {
		return code + " (" + n + ")"
	}
	return code
}

// WriteGeneralStatistics writes the blocks every test ends with: general
// statistics, latency and threads fairness.
func WriteGeneralStatistics(w io.Writer, s *Stat) {
	// Blank lines are written alone: each is a message of its own, as in
	// the reference (the logger's duplicate check sees them).
	if s.Unfinished > 0 {
		fmt.Fprintf(w, "\n")
		fmt.Fprintf(w, "Number of unfinished transactions on forced shutdown: %d\n", s.Unfinished)
	}
	fmt.Fprintf(w, "\n")
	fmt.Fprintf(w, "General statistics:\n")
	fmt.Fprintf(w, "    total time:                          %.4fs\n", s.TimeTotal)
	fmt.Fprintf(w, "    total number of events:              %d\n", s.Events)
	fmt.Fprintf(w, "\n")
	fmt.Fprintf(w, "Latency (ms):\n")
	fmt.Fprintf(w, "         min: %39.2f\n", s.LatencyMin*1000)
	fmt.Fprintf(w, "         avg: %39.2f\n", s.LatencyAvg*1000)
	fmt.Fprintf(w, "         max: %39.2f\n", s.LatencyMax*1000)
	if len(s.Percentiles) == 0 {
		fmt.Fprintf(w, "         percentile stats:               disabled\n")
	}
	for i, p := range s.Percentiles {
		label := pctLabel(p)
		if p == math.Trunc(p) {
			fmt.Fprintf(w, "        %3dth percentile: %27.2f\n", int(p), s.LatencyPcts[i]*1000)
		} else {
			// Beyond the reference: fractional percentiles keep the
			// value column aligned with the integer form.
			fmt.Fprintf(w, "        %sth percentile: %*.2f\n", label, 30-len(label), s.LatencyPcts[i]*1000)
		}
	}
	fmt.Fprintf(w, "         sum: %39.2f\n", s.LatencySum*1000)
	fmt.Fprintf(w, "\n")

	n := len(s.ThreadEvents)
	if n == 0 {
		n = 1
	}
	var evSum uint64
	for _, e := range s.ThreadEvents {
		evSum += e
	}
	evAvg := float64(evSum) / float64(n)
	timeAvg := s.LatencySum / float64(n)
	var evDev, timeDev float64
	for i := range s.ThreadEvents {
		d := evAvg - float64(s.ThreadEvents[i])
		evDev += d * d
		d = timeAvg - s.ThreadTime[i]
		timeDev += d * d
	}
	evDev = math.Sqrt(evDev / float64(n))
	timeDev = math.Sqrt(timeDev / float64(n))
	fmt.Fprintf(w, "Threads fairness:\n")
	fmt.Fprintf(w, "    events (avg/stddev):           %.4f/%3.2f\n", evAvg, evDev)
	fmt.Fprintf(w, "    execution time (avg/stddev):   %.4f/%3.2f\n", timeAvg, timeDev)
	fmt.Fprintf(w, "\n")
	if s.PerThread && len(s.ThreadMin) == len(s.ThreadEvents) {
		writePerThread(w, s)
	}
}

// writePerThread writes --debug's per-thread timers, as DEBUG lines.
func writePerThread(w io.Writer, s *Stat) {
	fmt.Fprintf(w, "DEBUG: Verbose per-thread statistics:\n\n")
	for i, n := range s.ThreadEvents {
		avg := 0.0
		if n > 0 {
			avg = s.ThreadTime[i] / float64(n)
		}
		fmt.Fprintf(w, "DEBUG:     thread #%3d: min: %.4fs  avg: %.4fs  max: %.4fs  events: %d\n",
			i, s.ThreadMin[i], avg, s.ThreadMax[i], n)
		fmt.Fprintf(w, "DEBUG:                  total time taken by event execution: %.4fs\n", s.ThreadTime[i])
	}
	fmt.Fprintf(w, "\n")
}
