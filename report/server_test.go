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
	writeAttribution(&b, s)
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
