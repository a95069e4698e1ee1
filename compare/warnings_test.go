package compare

import (
	"strings"
	"testing"
)

func ptr[T any](v T) *T { return &v }

// Each unfairness the summary shows is warned about, once, and a fair
// comparison gets no warning.
func TestWarnings(t *testing.T) {
	durable := []Setting{{"innodb_flush_log_at_trx_commit", "1"}, {"log_bin", "OFF"}, {"sync_binlog", "0"}}
	relaxed := []Setting{{"innodb_flush_log_at_trx_commit", "2"}, {"log_bin", "OFF"}, {"sync_binlog", "0"}}
	group := func(target string, threads int, spread, client float64) Group {
		return Group{Workload: "w", Threads: threads, Target: target, Rounds: 3,
			TPS: Agg{N: 3, Median: 100, SpreadPct: spread}, ClientCPUPct: Agg{N: 3, Max: client}}
	}
	fair := &Summary{Rate: RateTPS, Targets: []Target{
		{Name: "a", Driver: "mysql", ServerVersion: "10.11.6-MariaDB", Settings: durable, Durable: ptr(true)},
		{Name: "b", Driver: "mysql", ServerVersion: "10.11.6-MariaDB", Settings: durable, Durable: ptr(true)},
		{Name: "c", Driver: "sqlite"},
	}, Groups: []Group{group("a", 4, 2, 100), group("b", 4, 4.9, 150), group("c", 1, 1, 100)}}
	if w := warnings(fair, 2); len(w) != 0 {
		t.Errorf("a fair comparison warned: %v", w)
	}

	unfair := &Summary{Rate: RateTPS, Targets: []Target{
		{Name: "a", Driver: "mysql", ServerVersion: "10.11.6-MariaDB", Settings: durable, Durable: ptr(true)},
		{Name: "b", Driver: "mysql", ServerVersion: "11.4.2-MariaDB", Settings: relaxed, Durable: ptr(false)},
		{Name: "m", Driver: "mysql", ServerVersion: "8.4.0"},
	}, Groups: []Group{group("a", 1, 2, 95), group("b", 4, 7.5, 20),
		group("m", 1, 6, 10), group("m", 2, 7, 10), group("m", 4, 8, 10), group("m", 8, 9, 10)}}
	got := map[string][]string{}
	for _, w := range warnings(unfair, 2) {
		got[w.Kind] = append(got[w.Kind], w.Message)
	}
	want := map[string][]string{
		"server_version": {"MariaDB targets run different server versions: a 10.11.6-MariaDB, b 11.4.2-MariaDB"},
		"durability": {"commits do not wait for the disk on b (log_bin=OFF, sync_binlog=0, innodb_flush_log_at_trx_commit=2), and do on a",
			"a and b have different durability settings: innodb_flush_log_at_trx_commit 1 / 2"},
		"client_cpu": {"a, w, 1 thread: the client used 95% CPU"},
		"spread":     {"b, w, 4 threads: TPS spread 7.5% across 3 rounds", "m: TPS spread across rounds above 5% in 4 of 4 workloads and thread counts; the largest: w, 8 threads 9.0%; w, 4 threads 8.0%; w, 2 threads 7.0%"},
	}
	for kind, msgs := range want {
		if len(got[kind]) != len(msgs) {
			t.Errorf("%s: %q, want %d", kind, got[kind], len(msgs))
			continue
		}
		for i, m := range msgs {
			if !strings.HasPrefix(got[kind][i], m) {
				t.Errorf("%s warning %q, want it to start %q", kind, got[kind][i], m)
			}
		}
	}
}
