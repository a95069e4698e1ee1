package compare

import (
	"path/filepath"
	"testing"
)

// Issue 37, item 9: a failed cell's cause is the FATAL line that says why,
// with the failed query, not the generic lines after it.
func TestFailureCause(t *testing.T) {
	for log, want := range map[string]string{
		"no-such-table.log": "FATAL: sqlite3_prepare() failed: 1 SQL logic error: no such table: sbtest2; failed query was: SELECT c FROM sbtest2 WHERE id=?",
		"lua-error.log":     "FATAL: `thread_init' function failed: own.lua:3: attempt to index a nil value",
		"generic.log":       "FATAL: Thread initialization failed!",
		"none.log":          "",
		"missing.log":       "",
	} {
		if got := failureCause(filepath.Join("testdata", "logs", log)); got != want {
			t.Errorf("%s: %q, want %q", log, got, want)
		}
	}
}
