package cli

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

// quickStart is the README's "Quick start" section: its code blocks'
// commands, a block a slice, as a reader would type them.
func quickStart(t *testing.T) [][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "\n## Quick start\n")
	if start < 0 {
		t.Fatal("README.md has no Quick start section")
	}
	section := doc[start+1:]
	if end := strings.Index(section, "\n## "); end > 0 {
		section = section[:end]
	}
	var blocks [][]string
	var block []string
	in := false
	for _, l := range strings.Split(section, "\n") {
		switch {
		case strings.HasPrefix(l, "```"):
			if in && len(block) > 0 {
				blocks = append(blocks, block)
			}
			in, block = !in, nil
		case in && strings.HasPrefix(l, "sysbench-go "):
			block = append(block, l)
		}
	}
	return blocks
}

// TestReadmeQuickStart runs every command of the README's quick start as a
// newcomer types it (the program as a process: as installed, not under
// the race detector, which would make its prepares take a minute), with the user, password and database it shows
// (sysbench's defaults, the test servers' too), read from README.md so
// that the two cannot drift apart (issue 48, item 6). What the test
// changes, and why: the host and port are the test servers' (the README
// says 127.0.0.1 and the default ports); a run's --time is 1 s (the
// commands are checked, not their figures); the SQLite file is the test's
// own (/tmp/sbtest.db is shared with whatever else runs here). It is the
// one test that uses the servers' default database, as the README does;
// the blocks use tables of their own in it (docs/testing.md).
func TestReadmeQuickStart(t *testing.T) {
	t.Parallel()
	blocks := quickStart(t)
	if len(blocks) < 5 {
		t.Fatalf("%d blocks of commands in the quick start, want MySQL, PostgreSQL, SQLite, a built-in test and shop_mixed", len(blocks))
	}
	// The blocks run side by side; within one, in order.
	var wg sync.WaitGroup
	for _, block := range blocks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(blockName(block[0]), func(t *testing.T) { runQuickStartBlock(t, block) })
		}()
	}
	wg.Wait()
}

// blockName names a block by its first command's test and driver.
func blockName(line string) string {
	f := strings.Fields(line)
	driver := "mysql"
	for _, a := range f {
		if d, ok := strings.CutPrefix(a, "--db-driver="); ok {
			driver = d
		}
	}
	if len(f) > 2 && f[2] == "run" {
		return f[1]
	}
	return f[1] + " " + driver
}

func runQuickStartBlock(t *testing.T, block []string) {
	sqliteFile := filepath.Join(t.TempDir(), "sbtest.db")
	var cmds [][]string
	for _, line := range block {
		if strings.ContainsAny(line, `'"\$*?;|&<>`) {
			t.Fatalf("a command this test cannot split into words as a shell would: %s", line)
		}
		cmds = append(cmds, quickStartArgs(t, strings.Fields(line)[1:], sqliteFile))
	}
	last := cmds[len(cmds)-1]
	hasPrepare := false
	for _, c := range cmds {
		hasPrepare = hasPrepare || c[len(c)-1] == "prepare"
	}
	if hasPrepare && last[len(last)-1] != "cleanup" {
		t.Errorf("the block prepares tables and does not clean them up: %q", block)
	}
	if hasPrepare {
		// What an interrupted earlier run of this test left.
		runQuickStartCommand(t, last)
	}
	for _, c := range cmds {
		runQuickStartCommand(t, c)
	}
}

// quickStartArgs are a README command's arguments pointed at the test
// servers; its user, password and database must be on the line.
func quickStartArgs(t *testing.T, args []string, sqliteFile string) []string {
	kind := ""
	for _, a := range args {
		switch {
		case a == "--db-driver=pgsql":
			kind = "pgsql"
		case strings.HasPrefix(a, "--mysql-host="):
			kind = "mysql"
		}
	}
	var srv testenv.Server
	if kind != "" {
		srv = testenv.RequireServer(t, kind)
		for _, o := range []string{"host", "user", "password", "db"} {
			if !strings.Contains(strings.Join(args, " "), "--"+kind+"-"+o+"=") {
				t.Errorf("the README's command does not say --%s-%s: %q", kind, o, args)
			}
		}
	}
	out := make([]string, 0, len(args)+3)
	timed, paced := false, false
	for _, a := range args {
		name, _, _ := strings.Cut(a, "=")
		switch name {
		case "--" + kind + "-host":
			a = name + "=" + srv.Host
		case "--sqlite-db":
			a = name + "=" + sqliteFile
		case "--time":
			a, timed = "--time=1", true
		case "--rate":
			paced = true
		}
		out = append(out, a)
	}
	command := out[len(out)-1]
	out = out[:len(out)-1]
	if kind != "" {
		out = append(out, "--"+kind+"-port="+srv.Port)
	}
	if command == "run" && !timed {
		out = append(out, "--time=1")
	}
	// A second of a run shows that the line works; at full speed the
	// README's 8 threads took both cores for it.
	if command == "run" && !paced {
		out = append(out, "--rate=200")
	}
	return append(out, command)
}

func runQuickStartCommand(t *testing.T, args []string) {
	t.Helper()
	out, code := runOwnProcess(t, args...)
	if code != 0 || strings.Contains(out, "FATAL") {
		t.Fatalf("sysbench-go %s: exit %d (the README's user, password and database must be the test servers', scripts/testdb.sh)\n%s",
			strings.Join(args, " "), code, out)
	}
}
