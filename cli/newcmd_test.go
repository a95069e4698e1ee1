package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sysbench-go/sysbench-go/authoring"
	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

// newWorkload writes a workload of shape in a directory of the test's own
// and returns its path; check finds nothing in it.
func newWorkload(t *testing.T, shape string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "my_"+strings.ReplaceAll(shape, "-", "_")+".lua")
	out, code := runCLI(t, "new", "--shape="+shape, file)
	if code != 0 || !strings.HasPrefix(out, "Wrote "+file+": ") {
		t.Fatalf("new: status %d\n%s", code, out)
	}
	if out, code := runCLI(t, "check", file); code != 0 || !strings.HasSuffix(out, ": nothing found\n") {
		t.Fatalf("check of a new %s workload: status %d\n%s", shape, code, out)
	}
	return file
}

// runsAsWritten runs a new workload's commands with the connection
// options conn: prepare, its own commands, run, cleanup.
func runsAsWritten(t *testing.T, file, shape string, conn ...string) {
	t.Helper()
	step := func(args ...string) string {
		t.Helper()
		all := append(append([]string{file}, conn...), args...)
		out, code := runCLI(t, all...)
		if code != 0 || len(fatalLines(out)) > 0 {
			t.Fatalf("%s: status %d\n%s", strings.Join(args, " "), code, out)
		}
		return out
	}
	step("--table-size=50", "prepare")
	if shape == "command" {
		if out := step("--table-size=50", "verify"); !strings.Contains(out, ": 50 rows, 50 expected") {
			t.Errorf("verify:\n%s", out)
		}
		step("--threads=2", "prewarm")
	}
	out := step("--table-size=50", "--threads=2", "--events=20", "--time=0", "run")
	// Two threads' transactions over 50 rows may deadlock: those restart
	// (ignored errors); the other shapes never conflict (the inserts'
	// keys are the thread's own).
	if !strings.Contains(out, "transactions:                        20 ") ||
		(shape != "transaction" && !strings.Contains(out, "ignored errors:                      0 ")) {
		t.Errorf("run:\n%s", out)
	}
	step("cleanup")
}

// TestNewShapesRun: each shape new writes passes check and runs as
// written on the embedded SQLite engine and the dry run: prepare, its
// commands, run, cleanup (the servers: TestNewShapesOnServers).
func TestNewShapesRun(t *testing.T) {
	t.Parallel()
	for _, s := range authoring.Shapes {
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			file := newWorkload(t, s.Name)
			runsAsWritten(t, file, s.Name, "--db-driver=sqlite", "--sqlite-db="+filepath.Join(t.TempDir(), "w.db"))
			out, code := runCLI(t, file, "--db-dry-run", "--events=20", "--time=0", "run")
			if code != 0 || !strings.Contains(out, "transactions:                        20 ") {
				t.Errorf("dry run: status %d\n%s", code, out)
			}
		})
	}
}

// TestNewShapesOnServers: the same on MySQL/MariaDB and PostgreSQL, in a
// database of the test's own.
func TestNewShapesOnServers(t *testing.T) {
	t.Parallel()
	for _, db := range []string{"mysql", "pgsql"} {
		t.Run(db, func(t *testing.T) {
			t.Parallel()
			conn := testenv.OwnDatabase(t, db).Args()
			for _, s := range authoring.Shapes {
				runsAsWritten(t, newWorkload(t, s.Name), s.Name, conn...)
			}
		})
	}
}

// TestNewRefuses: new never overwrites a file, and says so in one FATAL
// line; an unknown shape is refused the same way.
func TestNewRefuses(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "mine.lua")
	if err := os.WriteFile(file, []byte("-- mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := runCLI(t, "new", file)
	if code != 1 || out != "FATAL: new: "+file+" exists: choose another name, or remove it first\n" {
		t.Errorf("status %d\n%s", code, out)
	}
	if b, _ := os.ReadFile(file); string(b) != "-- mine\n" {
		t.Errorf("the file was changed: %q", b)
	}
	other := filepath.Join(t.TempDir(), "x.lua")
	out, code = runCLI(t, "new", "--shape=olap", other)
	if code != 1 || out != "FATAL: new: no shape 'olap' (shapes: point-select, transaction, insert, command)\n" {
		t.Errorf("status %d\n%s", code, out)
	}
	if _, err := os.Stat(other); err == nil {
		t.Errorf("%s written for an unknown shape", other)
	}
	out, code = runCLI(t, "new")
	if code != 1 || len(fatalLines(out)) != 1 {
		t.Errorf("no file: status %d\n%s", code, out)
	}
}
