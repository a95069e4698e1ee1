package report

import (
	"strings"
	"testing"
)

// The attribution lines: others' work when the server counted more than
// the run and the sampler, none (not a negative count) when the server's
// published count is behind the run's.
func TestWriteAttribution(t *testing.T) {
	s := &ServerStats{Attribution: []Attribution{
		{Scope: "database", What: "transactions", Counter: "pg_stat_database.transactions",
			Server: 84623, Run: 84617, Sampler: 20, Others: -14},
		{Scope: "server", What: "transactions", Counter: "all_databases.transactions",
			Server: 90000, Run: 84617, Sampler: 20, Others: 5363, OthersActive: true},
	}}
	var b strings.Builder
	writeAttribution(&b, s, 37)
	out := b.String()
	for _, want := range []string{
		"the run 84617, this sampler 20, others 0 (the server's count is 14 behind: it publishes late)\n",
		"the run 84617, this sampler 20, others 5363\n",
		"other clients worked during the run",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "-14") {
		t.Errorf("a negative count of others' work:\n%s", out)
	}
}

// Issue 37 item 11: the block's values stand in one column, after the
// longest name and a space, however long the server's names are (a
// PostgreSQL counter with the mark of other clients' work, a long
// setting), and at the reference's column when every name is short.
func TestWriteServerAligned(t *testing.T) {
	long := &ServerStats{Endpoint: "pgsql 127.0.0.1:5432",
		Settings:       []Setting{{Name: "shared_buffers", Value: "128MB"}, {Name: "max_parallel_maintenance_workers_per_gather", Value: "2"}},
		Transactions:   1000,
		PerTransaction: map[string]float64{"wal_bytes": 512.5},
		CPU:            &ServerCPU{PID: 42, Processes: 3, Samples: 9, AvgPct: 12.5, PeakPct: 30, PeakBytes: 64 << 20},
		Counters:       map[string]float64{"pg_stat_bgwriter.buffers_checkpoint": 1234, "pg_stat_database.xact_commit": 1000},
		Gauges:         map[string]float64{"pg_stat_activity.idle_in_transaction_sessions": 0.25, "run.sessions": 2},
		Attribution: []Attribution{{Scope: "database", What: "transactions", Counter: "pg_stat_database.transactions",
			Prefix: "pg_stat_", Server: 1500, Run: 1000, Others: 500, OthersActive: true}},
	}
	short := &ServerStats{Endpoint: "mysql 127.0.0.1:3306", Transactions: 10, PerTransaction: map[string]float64{"binlog_bytes": 300},
		Settings: []Setting{{Name: "sync_binlog", Value: "1"}}, Counters: map[string]float64{"Questions": 200}}
	for _, c := range []struct {
		s      *ServerStats
		column int // where the values begin
	}{
		{long, 8 + len("pg_stat_activity.idle_in_transaction_sessions *:") + 1},
		{short, 8 + 37},
	} {
		var b strings.Builder
		WriteServer(&b, c.s)
		var values int
		for _, l := range strings.Split(b.String(), "\n") {
			name, _, ok := strings.Cut(strings.TrimLeft(l, " "), ": ")
			if !ok || strings.HasSuffix(l, ":") || strings.Contains(l, "other client") || strings.Contains(name, "%") {
				continue // a heading, a sentence, a wait event's share
			}
			i := strings.Index(l, ":") + 1
			at := i + len(l[i:]) - len(strings.TrimLeft(l[i:], " "))
			if at != c.column || l[at-1] != ' ' {
				t.Errorf("value at column %d, want %d: %q\n%s", at, c.column, l, b.String())
			}
			values++
		}
		if values < 4 {
			t.Errorf("%d values found in\n%s", values, b.String())
		}
	}
}
