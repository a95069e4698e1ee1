package report

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"
)

// ServerStats is --server-stats' record of the server over the measured
// window (docs/telemetry.md).
type ServerStats struct {
	Endpoint string    `json:"endpoint"`
	Settings []Setting `json:"settings"`
	Seconds  float64   `json:"duration_s"`
	// Transactions are the run's events over the window, for the
	// per-transaction figures.
	Transactions uint64 `json:"transactions"`
	// Counters are the deltas of the server's counters over the window
	// (those that moved); Gauges the averages of its levels.
	Counters map[string]float64 `json:"counters"`
	Gauges   map[string]float64 `json:"gauges_avg"`
	// PerTransaction are the bytes written per transaction: wal_bytes,
	// binlog_bytes, data_bytes.
	PerTransaction map[string]float64 `json:"per_transaction"`
	// CPU is nil when the server's processes are not on this machine.
	CPU         *ServerCPU  `json:"cpu"`
	WaitSamples int         `json:"wait_samples"`
	Waits       []WaitShare `json:"waits"`
	// Notes say what could not be read, and why.
	Notes []string `json:"notes"`
	// Attribution compares the server's counters with the run's own
	// counts: what other clients did beside the run (docs/telemetry.md).
	Attribution []Attribution `json:"attribution,omitempty"`
	// Absent are what this server does not have (a view of a newer
	// version): facts of the server, not problems of the run.
	Absent []string `json:"absent,omitempty"`
}

// Gauges of the run's own sessions, from the samples of what they do.
const (
	RunSessions       = "run.sessions"
	RunSessionsActive = "run.sessions_active" // not waiting for the client
)

// Attribution is one server counter of client work (MySQL's Questions,
// PostgreSQL's transactions) over the window, against the counts of the
// run's connections and of the sampler, made by the client: the rest is
// other clients' work.
type Attribution struct {
	// Scope is what the counter covers: "server" or "database"; Prefix
	// marks the counters of that scope ("" for all the others, and the
	// server's CPU and memory).
	Scope   string  `json:"scope"`
	Counter string  `json:"counter"`
	What    string  `json:"what"`
	Prefix  string  `json:"prefix,omitempty"`
	Server  float64 `json:"server"`
	Run     float64 `json:"run"`
	Sampler float64 `json:"sampler"`
	Others  float64 `json:"others"`
	// OthersActive says that the others' share is beyond noise: the
	// figures of this scope include their work.
	OthersActive bool `json:"others_active"`
}

// scopeOf is the attribution that covers a figure (a counter's name, or
// "" for the server's CPU and memory): the one of the longest prefix of
// name, nil when nothing was attributed.
func (s *ServerStats) scopeOf(name string) *Attribution {
	var best *Attribution
	for i := range s.Attribution {
		a := &s.Attribution[i]
		if strings.HasPrefix(name, a.Prefix) && (best == nil || len(a.Prefix) > len(best.Prefix)) {
			best = a
		}
	}
	return best
}

// Others says whether other clients' work is in a figure.
func (s *ServerStats) Others(name string) bool {
	if strings.HasPrefix(name, "run.") {
		return false // the run's own sessions
	}
	a := s.scopeOf(name)
	return a != nil && a.OthersActive
}

// mark is " *" after a figure that includes other clients' work.
func (s *ServerStats) mark(name string) string {
	if s.Others(name) {
		return " *"
	}
	return ""
}

// Setting is one server setting.
type Setting struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ServerCPU is the server processes' CPU and memory, sampled every second.
type ServerCPU struct {
	PID       int     `json:"pid"`
	Processes int     `json:"processes_peak"`
	Samples   int     `json:"samples"`
	AvgPct    float64 `json:"avg_pct"`
	PeakPct   float64 `json:"peak_pct"`
	PeakBytes uint64  `json:"peak_memory_bytes"`
}

// WaitShare is one wait event's share of the samples of the run's
// sessions.
type WaitShare struct {
	Event   string  `json:"event"`
	Samples int     `json:"samples"`
	Share   float64 `json:"share"`
}

// ServerInterval is the server's side of an intermediate report.
type ServerInterval struct {
	CPUPct         *float64 `json:"cpu_pct,omitempty"`
	WALBytesPerSec *float64 `json:"wal_bytes_per_s,omitempty"`
}

// shownCounters are the counters the text block lists when they moved
// (the results file has every one that did).
var shownCounters = []string{
	"Innodb_os_log_written", "Innodb_data_written", "Binlog_bytes_written", "Innodb_data_fsyncs",
	"Innodb_os_log_fsyncs", "Innodb_row_lock_waits", "Innodb_row_lock_time", "Innodb_buffer_pool_reads",
	"Innodb_buffer_pool_read_requests", "Innodb_buffer_pool_wait_free", "Created_tmp_disk_tables",
	"Created_tmp_tables", "Innodb_deadlocks", "Com_commit", "Questions",
	"pg_stat_wal.wal_bytes", "pg_stat_wal.wal_records", "pg_stat_wal.wal_fpi",
	"pg_stat_database.xact_commit", "pg_stat_database.xact_rollback", "pg_stat_database.blks_read",
	"pg_stat_database.blks_hit", "pg_stat_database.temp_bytes", "pg_stat_database.deadlocks",
	"pg_stat_bgwriter.buffers_checkpoint", "pg_stat_bgwriter.buffers_clean", "pg_stat_bgwriter.buffers_backend",
	"pg_stat_bgwriter.checkpoints_timed", "pg_stat_bgwriter.checkpoints_req",
	"pg_stat_io.writes", "pg_stat_io.reads", "pg_stat_io.fsyncs",
}

// writeAttribution says, for each counter of client work, how much of it
// was the run's, and so which figures are the run's alone.
func writeAttribution(w io.Writer, s *ServerStats, width int) {
	if len(s.Attribution) == 0 {
		return
	}
	fmt.Fprintf(w, "    other clients (the server's counts of client work against the run's own):\n")
	others := false
	for _, a := range s.Attribution {
		// The server publishes its counts late (PostgreSQL's statistics
		// are flushed about once a second), so its count can fall short
		// of the run's own at the end: no other client's work, said as
		// such rather than as a negative count.
		rest := fmt.Sprintf("others %.0f", a.Others)
		if a.Others < 0 {
			rest = fmt.Sprintf("others 0 (the server's count is %.0f behind: it publishes late)", -a.Others)
		}
		fmt.Fprintf(w, "        %-*s%.0f (%s): the run %.0f, this sampler %.0f, %s\n",
			width, a.Scope+" "+a.What+":", a.Server, a.Counter, a.Run, a.Sampler, rest)
		others = others || a.OthersActive
	}
	if others {
		fmt.Fprintf(w, "        other clients worked during the run: the figures marked * include their work\n")
	} else {
		fmt.Fprintf(w, "        no other client's work seen: the figures are the run's\n")
	}
}

// perTransaction are the bytes-written figures, by key, as labelled.
var perTransaction = []struct{ key, label string }{{"wal_bytes", "WAL/redo log"}, {"binlog_bytes", "binary log"}, {"data_bytes", "data files"}}

// labelWidth is the width of the block's name column: the reference's
// 37 characters, or the longest name and its colon with a space after,
// so that no name runs into its value (pg_stat_bgwriter's counters,
// a long setting).
func labelWidth(s *ServerStats, counters, gauges []string) int {
	width := 37
	fit := func(label string) { width = max(width, utf8.RuneCountInString(label)+1) }
	for _, st := range s.Settings {
		fit(st.Name + ":")
	}
	for _, a := range s.Attribution {
		fit(a.Scope + " " + a.What + ":")
	}
	for _, k := range perTransaction {
		if _, ok := s.PerTransaction[k.key]; ok {
			fit(k.label + s.mark(k.key) + ":")
		}
	}
	for _, k := range append(append([]string{}, counters...), gauges...) {
		fit(k + s.mark(k) + ":")
	}
	return width
}

// WriteServer writes the "Server statistics" block, its values in one
// column.
func WriteServer(w io.Writer, s *ServerStats) {
	var moved []string
	for _, k := range shownCounters {
		if v := s.Counters[k]; v != 0 {
			moved = append(moved, k)
		}
	}
	gauges := make([]string, 0, len(s.Gauges))
	for k := range s.Gauges {
		gauges = append(gauges, k)
	}
	sort.Strings(gauges)
	width := labelWidth(s, moved, gauges)

	fmt.Fprintf(w, "Server statistics (%s):\n", s.Endpoint)
	if len(s.Settings) > 0 {
		fmt.Fprintf(w, "    settings:\n")
		for _, st := range s.Settings {
			fmt.Fprintf(w, "        %-*s%s\n", width, st.Name+":", st.Value)
		}
	}
	writeAttribution(w, s, width)
	fmt.Fprintf(w, "    bytes written per transaction (%d transactions):\n", s.Transactions)
	for _, k := range perTransaction {
		if v, ok := s.PerTransaction[k.key]; ok {
			fmt.Fprintf(w, "        %-*s%.1f\n", width, k.label+s.mark(k.key)+":", v)
		}
	}
	if c := s.CPU; c != nil {
		fmt.Fprintf(w, "    %-*savg %.1f%%, peak %.1f%% (pid %d, %d process(es), %d samples)\n", width+4, "server CPU"+s.mark("")+":",
			c.AvgPct, c.PeakPct, c.PID, c.Processes, c.Samples)
		fmt.Fprintf(w, "    %-*speak %.1f MiB\n", width+4, "server memory"+s.mark("")+":", float64(c.PeakBytes)/(1<<20))
	} else {
		fmt.Fprintf(w, "    %-*snot available (the server is not on this machine)\n", width+4, "server CPU and memory:")
	}
	if s.WaitSamples > 0 {
		fmt.Fprintf(w, "    sessions (%d samples of the run's sessions), by share:\n", s.WaitSamples)
		for i, ws := range s.Waits {
			if i == 10 {
				fmt.Fprintf(w, "        ... %d more in the results file\n", len(s.Waits)-10)
				break
			}
			fmt.Fprintf(w, "        %5.1f%%  %s\n", ws.Share*100, ws.Event)
		}
	}
	if len(moved) > 0 {
		fmt.Fprintf(w, "    counters over the run (per transaction):\n")
		for _, k := range moved {
			v := s.Counters[k]
			per := 0.0
			if s.Transactions > 0 {
				per = v / float64(s.Transactions)
			}
			fmt.Fprintf(w, "        %-*s%-14.0f (%.2f)\n", width, k+s.mark(k)+":", v, per)
		}
	}
	if len(gauges) > 0 {
		fmt.Fprintf(w, "    averages over the run:\n")
		for _, k := range gauges {
			fmt.Fprintf(w, "        %-*s%.2f\n", width, k+s.mark(k)+":", s.Gauges[k])
		}
	}
	for _, a := range s.Absent {
		fmt.Fprintf(w, "    not on this server: %s\n", a)
	}
	for _, n := range s.Notes {
		fmt.Fprintf(w, "    not read: %s\n", strings.TrimSpace(n))
	}
	fmt.Fprintf(w, "\n")
}
