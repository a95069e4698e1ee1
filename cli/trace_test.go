package cli

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

// digits masks numbers and the spaces that align them, for outputs of
// two runs to compare.
var digits = regexp.MustCompile(` *[0-9]+(\.[0-9]+)?`)

// TestTrace: --trace=1 prints, on standard error, thread_init's prepare,
// then the first event of each thread statement by statement — the text,
// the value bound, the row or the error the server gave, the latency —
// and the events' statement mix, on every driver; the dry run says that
// it sent nothing; with --db-ps-mode=disable the value is in the text.
// Standard output is what it is without the option.
func TestTrace(t *testing.T) {
	t.Parallel()
	ms := `\([0-9]+\.[0-9]{3} ms\)`
	event := func(prepared, select1, execute, failed string) []string {
		return []string{
			`^\[trace\] thread 0 thread_init: 1 statement, [0-9.]+ ms$`,
			`^  prepare SELECT \? \+ 1 -> ` + prepared + ` ` + ms + `$`,
			`^\[trace\] thread 0 event 1: 3 statements, [0-9.]+ ms of [0-9.]+ ms$`,
			`^  query SELECT 1 -> ` + select1 + ` ` + ms + `$`,
			`^  execute ` + execute + ` ` + ms + `$`,
			`^  query SELECT no_such_column FROM no_such_table -> ` + failed + ` ` + ms + `$`,
			`^\[trace\] statement mix of 1 event \(1 thread\), [0-9.]+ ms in all:$`,
			`^  per event    time  errors  statement$`,
		}
	}
	served := func(failed string) []string {
		return event("ok", `1 row: \(1\)`, `SELECT \? \+ 1 -- \(41\) -> 1 row: \(42\)`, failed)
	}
	cases := []struct {
		name string
		conn func(t *testing.T) []string
		want []string
	}{
		{"sqlite", func(t *testing.T) []string {
			return []string{"--db-driver=sqlite", "--sqlite-db=" + filepath.Join(t.TempDir(), "t.db")}
		}, served(`error 1: SQL logic error: no such table: no_such_table`)},
		{"dry run", func(*testing.T) []string { return []string{"--db-dry-run"} },
			event(`not sent \(dry run\)`, `not sent \(dry run\)`, `SELECT \? \+ 1 -- \(41\) -> not sent \(dry run\)`, `not sent \(dry run\)`)},
		{"mysql", func(t *testing.T) []string { return testenv.OwnDatabase(t, "mysql").Args() },
			served(`error 1146: Table '\w+\.no_such_table' doesn't exist`)},
		{"mysql, values substituted", func(t *testing.T) []string {
			return append(testenv.OwnDatabase(t, "mysql").Args(), "--db-ps-mode=disable")
		}, event("ok", `1 row: \(1\)`, `SELECT 41 \+ 1 -> 1 row: \(42\)`, `error 1146: .*`)},
		{"pgsql", func(t *testing.T) []string { return testenv.OwnDatabase(t, "pgsql").Args() },
			served(`error 42P01: relation "no_such_table" does not exist`)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"testdata/scripts/trace.lua", "--events=2", "--time=0"}, c.conn(t)...)
			plainOut, plainErr, code := runStreams(t, append(args, "run")...)
			if code != 0 || plainErr != "" {
				t.Fatalf("without --trace: status %d\n%s%s", code, plainOut, plainErr)
			}
			out, errs, code := runStreams(t, append(args, "--trace=1", "run")...)
			if code != 0 {
				t.Fatalf("status %d\n%s%s", code, out, errs)
			}
			if a, b := digits.ReplaceAllString(plainOut, "0"), digits.ReplaceAllString(out, "0"); a != b {
				t.Errorf("standard output with --trace differs from without (numbers masked):\n%s", testenv.LineDiff(a, b))
			}
			lines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
			if len(lines) < len(c.want)+4 {
				t.Fatalf("standard error:\n%s", errs)
			}
			for i, w := range c.want {
				if !regexp.MustCompile(w).MatchString(lines[i]) {
					t.Errorf("line %d: %q does not match %q\n%s", i+1, lines[i], w, errs)
				}
			}
			// The mix: each of the three statements once per event, and
			// the script's own share of the time.
			mix := strings.Join(lines[len(c.want):], "\n")
			for _, s := range []string{"SELECT no_such_column FROM no_such_table", "SELECT ? + 1", "SELECT ?",
				"(the script's own time"} {
				if !strings.Contains(mix, s) {
					t.Errorf("the mix lacks %q:\n%s", s, mix)
				}
			}
			if n := strings.Count(mix, "      1.00 "); n != 3 {
				t.Errorf("the mix's statements are not once per event each:\n%s", mix)
			}
		})
	}
}

// TestTraceThreads: each thread traces its own first N events, the
// bundled workloads' too (their events run as Go plans), and the mix is
// over all of them.
func TestTraceThreads(t *testing.T) {
	t.Parallel()
	db := "--sqlite-db=" + filepath.Join(t.TempDir(), "t.db")
	if out, code := runCLI(t, "oltp_point_select", "--db-driver=sqlite", db, "--table-size=100", "prepare"); code != 0 {
		t.Fatalf("prepare: %s", out)
	}
	_, errs, code := runStreams(t, "oltp_point_select", "--db-driver=sqlite", db, "--table-size=100", "--threads=2",
		"--events=10", "--time=0", "--trace=2", "run")
	if code != 0 {
		t.Fatalf("status %d\n%s", code, errs)
	}
	// Each thread traces at most its first two events (a thread may get
	// none of the ten: the other took them first).
	events := regexp.MustCompile(`(?m)^\[trace\] thread (\d) event (\d+):`).FindAllStringSubmatch(errs, -1)
	for _, e := range events {
		if e[2] != "1" && e[2] != "2" {
			t.Errorf("thread %s's event %s traced:\n%s", e[1], e[2], errs)
		}
	}
	if len(events) < 2 || !strings.Contains(errs, fmt.Sprintf("[trace] statement mix of %d events (", len(events))) {
		t.Errorf("%d events traced, the mix says otherwise:\n%s", len(events), errs)
	}
	if strings.Count(errs, "thread_init: 1 statement") != 2 {
		t.Errorf("not both threads' thread_init:\n%s", errs)
	}
	if !regexp.MustCompile(`(?m)^  execute SELECT c FROM sbtest1 WHERE id=\? -- \(\d+\) -> 1 row: \('[0-9-]+\.\.\.'\) \(`).MatchString(errs) {
		t.Errorf("no point select with its row:\n%s", errs)
	}
	if !regexp.MustCompile(`(?m)^ +1\.00 +[0-9.]+% +0  SELECT c FROM sbtest1 WHERE id=\?$`).MatchString(errs) {
		t.Errorf("the mix is not one point select per event:\n%s", errs)
	}
	_, _, code = runStreams(t, "oltp_point_select", "--db-driver=sqlite", db, "--trace=-1", "run")
	if code != 1 {
		t.Errorf("--trace=-1: status %d", code)
	}
}
