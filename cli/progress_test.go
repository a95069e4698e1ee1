package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

// progressBytes is what the progress is made of: its escapes, its carriage
// returns, its words. None may reach an output it is not drawn on.
var progressBytes = regexp.MustCompile("\x1b|\r|rows/s|events/s|rows loaded into")

// Issue 48, item 7: a run's progress, forced on (--progress=on) into a
// buffer on the fake clock: its time of --time and its events, drawn
// again as they grow, each draw erasing the last, and erased at the end,
// before the report; standard output has not a byte of it.
func TestProgressRun(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		stdout, stderr, code := runStreams(t, "testdata/scripts/wait.lua", "--time=2", "--wait=2000", "--progress=on", "run")
		if code != 0 {
			t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
		}
		if m := progressBytes.FindString(stdout); m != "" || !strings.Contains(stdout, "General statistics:") {
			t.Errorf("standard output has %q of the progress, or no report:\n%s", m, stdout)
		}
		// The draws, each after the erasing of the last.
		draws := strings.Split(stderr, "\r\x1b[K")
		if last := draws[len(draws)-1]; last != "" {
			t.Errorf("the progress was left on the terminal: %q", last)
		}
		line := regexp.MustCompile(`^run: (\d) of 2 s, (\d+) events, (\d+) events/s$`)
		seconds, events := map[string]bool{}, 0
		for _, d := range draws[:len(draws)-1] {
			m := line.FindStringSubmatch(d)
			if m == nil {
				t.Fatalf("a draw reads %q", d)
			}
			n, _ := strconv.Atoi(m[2])
			if n < events {
				t.Errorf("events went back from %d to %d", events, n)
			}
			seconds[m[1]], events = true, n
			// A thread waiting 2 ms on average an event: 500 a second
			// on this clock.
			if r, _ := strconv.Atoi(m[3]); r < 400 || r > 600 {
				t.Errorf("%q: want about 500 events/s", d)
			}
		}
		if !seconds["0"] || !seconds["1"] || len(draws) < 6 {
			t.Errorf("%d draws over seconds %v, want one every 250 ms through 2 s:\n%q", len(draws)-1, seconds, stderr)
		}
	})
	// Not asked for and not on a terminal: nothing, on either stream.
	synctest.Test(t, func(t *testing.T) {
		stdout, stderr, code := runStreams(t, "testdata/scripts/wait.lua", "--time=1", "--wait=2000", "run")
		if m := progressBytes.FindString(stdout + stderr); code != 0 || m != "" {
			t.Errorf("exit %d; the progress drew %q into a buffer\n%s%s", code, m, stdout, stderr)
		}
	})
}

// Issue 48, item 7: prepare counts the rows of the bundled workloads
// against the rows they say they load, on every driver's bulk path (the
// summary left on standard error when the progress ends says both), and a
// script that says nothing gets its rows counted without a total.
func TestProgressPrepareCounts(t *testing.T) {
	t.Parallel()
	sqlite := func(t *testing.T) []string {
		return []string{"--db-driver=sqlite", "--sqlite-db=" + filepath.Join(t.TempDir(), "p.db")}
	}
	cases := []struct {
		name string
		args func(t *testing.T) []string
		load []string
		want string
	}{
		{"oltp on sqlite", sqlite, []string{"oltp_read_write", "--tables=2", "--table-size=300", "--threads=2"}, "prepare: 600 of 600 rows loaded into 2 tables in "},
		{"shop on sqlite", sqlite, []string{"shop_mixed", "--scale=0.002", "--threads=2"}, "prepare: 2800 of 2800 rows loaded into 4 tables in "},
		{"tpcb on sqlite", sqlite, []string{"tpcb_like", "--scale=0.01"}, "prepare: 1002 of 1002 rows loaded into 3 tables in "},
		{"oltp on pgsql", func(t *testing.T) []string { return testenv.OwnDatabase(t, "pgsql").Args() },
			[]string{"oltp_read_write", "--tables=2", "--table-size=300", "--threads=2"}, "prepare: 600 of 600 rows loaded into 2 tables in "},
		{"oltp on mysql", func(t *testing.T) []string { return testenv.OwnDatabase(t, "mysql").Args() },
			[]string{"oltp_read_write", "--tables=2", "--table-size=300"}, "prepare: 600 of 600 rows loaded into 2 tables in "},
		{"a script without a plan", sqlite, []string{"testdata/scripts/paced_load.lua", "--tables=1", "--rows=120", "--pause=0", "--plan=off"}, "prepare: 120 rows loaded into 1 table in "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			args := append(append(c.load, c.args(t)...), "--progress=on", "prepare")
			stdout, stderr, code := runStreams(t, args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
			}
			// Last, in place of what was drawn (if anything was: this
			// prepare may end before the first draw).
			body := strings.TrimSuffix(stderr, "\n")
			from := strings.LastIndex(body, "\n") + 1
			if i := strings.LastIndex(body, "\x1b[K"); i >= 0 {
				from = max(from, i+3)
			}
			last := body[from:] + "\n"
			if !strings.HasPrefix(last, c.want) || !strings.HasSuffix(last, " rows/s\n") {
				t.Errorf("standard error does not end with %q:\n%q", c.want, stderr)
			}
			if m := progressBytes.FindString(stdout); m != "" {
				t.Errorf("standard output has %q of the progress:\n%s", m, stdout)
			}
		})
	}
}

// Issue 48, item 7, in a real terminal: tmux runs the binary, and its
// screen shows a prepare's progress (per table and in all) and a run's
// updating, then the prepare's summary and the run's report in their
// place; with standard output in a file or a pipe meanwhile, not a byte
// of the progress is in it.
func TestProgressTerminal(t *testing.T) {
	t.Parallel()
	tmux := testenv.Tool(t, "tmux", "apt-get install -y tmux")
	bin := testenv.Binary(t)
	dir := t.TempDir()
	scripts, err := filepath.Abs("testdata/scripts")
	if err != nil {
		t.Fatal(err)
	}
	prepare := fmt.Sprintf("%s %s/paced_load.lua --db-driver=sqlite --tables=2 --rows=500", bin, scripts)
	run := fmt.Sprintf("%s %s/wait.lua --wait=2000", bin, scripts)
	script := filepath.Join(dir, "steps.sh")
	steps := strings.Join([]string{
		"cd " + dir,
		// Some 6 s (20 pauses of 300 ms): a loaded machine's screens
		// still catch the counts as they move.
		prepare + " --sqlite-db=a.db --pause=300 prepare; echo prepare-exit=$?",
		// 5 s: an unloaded suite's screens caught one count of a 2 s run
		// (tmux captures are processes, late on a busy machine).
		run + " --time=5 run; echo run-exit=$?",
		prepare + " --sqlite-db=b.db --pause=20 prepare > prepare.out; echo file-exit=$?",
		run + " --time=1 --report-interval=1 run | cat > run.out; echo pipe-exit=$?",
		"echo all-done; sleep 60",
	}, "\n")
	if err := os.WriteFile(script, []byte(steps+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A server of its own (-L): the user's sessions are not touched.
	sock := fmt.Sprintf("sbgo-progress-%d", os.Getpid())
	tm := func(args ...string) string {
		out, err := exec.Command(tmux, append([]string{"-L", sock}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	tm("new-session", "-d", "-s", "p", "-x", "100", "-y", "50", "sh "+script)
	t.Cleanup(func() { _ = exec.Command(tmux, "-L", sock, "kill-server").Run() })

	// Screens until one shows done; every screen seen on the way.
	var screens []string
	waitFor := func(done string) string {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			s := tm("capture-pane", "-p", "-t", "p")
			screens = append(screens, s)
			if strings.Contains(s, done) {
				return s
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("the terminal never showed %q:\n%s", done, screens[len(screens)-1])
		return ""
	}
	seen := func(re *regexp.Regexp) map[string]bool {
		values := map[string]bool{}
		for _, s := range screens {
			for _, m := range re.FindAllStringSubmatch(s, -1) {
				values[m[1]] = true
			}
		}
		return values
	}

	end := waitFor("prepare-exit=")
	total := regexp.MustCompile(`(?m)^prepare: (\d+) of 1000 rows \(\d+%\), \d+ rows/s`)
	table := regexp.MustCompile(`(?m)^  paced\d: (\d+) of 500 rows \(\d+%\), \d+ rows/s`)
	if n := len(seen(total)); n < 2 || len(seen(table)) < 2 {
		t.Errorf("the prepare's progress showed %d totals and %d table counts, want them updating:\n%s", n, len(seen(table)), end)
	}
	if !strings.Contains(end, "prepare-exit=0") || !regexp.MustCompile(`(?m)^prepare: 1000 of 1000 rows loaded into 2 tables in \d+s, \d+ rows/s$`).MatchString(end) ||
		total.MatchString(end) || table.MatchString(end) {
		t.Errorf("after the prepare, want its summary in place of its progress:\n%s", end)
	}

	screens = nil
	end = waitFor("run-exit=")
	line := regexp.MustCompile(`(?m)^run: \d of 5 s, (\d+) events, \d+ events/s$`)
	if n := len(seen(line)); n < 2 {
		t.Errorf("the run's progress showed %d event counts, want it updating", n)
	}
	if !strings.Contains(end, "run-exit=0") || strings.Contains(end, "run: ") || !strings.Contains(end, "Threads fairness:") {
		t.Errorf("after the run, want its report in place of its progress:\n%s", end)
	}

	end = waitFor("all-done")
	if !strings.Contains(end, "file-exit=0") || !strings.Contains(end, "pipe-exit=0") {
		t.Fatalf("the redirected runs failed:\n%s", end)
	}
	for _, f := range []string{"prepare.out", "run.out"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if m := progressBytes.Find(b); m != nil || len(b) == 0 {
			t.Errorf("%s (standard output) has %q of the progress:\n%s", f, m, b)
		}
	}
}

// Issue 48, item 7: with standard output and standard error both pipes,
// or both files, not one byte of progress in either: not a terminal, no
// progress.
func TestProgressNotIntoPipesOrFiles(t *testing.T) {
	t.Parallel()
	bin := testenv.Binary(t)
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
	}{
		{"prepare", []string{"testdata/scripts/paced_load.lua", "--db-driver=sqlite", "--tables=2", "--rows=100", "--pause=100", "prepare"}},
		{"run", []string{"testdata/scripts/wait.lua", "--wait=2000", "--time=1", "--report-interval=1", "run"}},
	} {
		for _, files := range []bool{false, true} {
			db := fmt.Sprintf("--sqlite-db=%s/%s-%v.db", dir, c.name, files)
			cmd := exec.Command(bin, append([]string{db}, c.args...)...)
			var outb, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &outb, &errb // pipes
			if files {
				out, err1 := os.Create(filepath.Join(dir, c.name+".out"))
				errf, err2 := os.Create(filepath.Join(dir, c.name+".err"))
				if err1 != nil || err2 != nil {
					t.Fatal(err1, err2)
				}
				cmd.Stdout, cmd.Stderr = out, errf
				defer out.Close()
				defer errf.Close()
			}
			if err := cmd.Run(); err != nil {
				t.Fatalf("%s: %v\n%s%s", c.name, err, outb.String(), errb.String())
			}
			if files {
				o, _ := os.ReadFile(filepath.Join(dir, c.name+".out"))
				e, _ := os.ReadFile(filepath.Join(dir, c.name+".err"))
				outb.Write(o)
				errb.Write(e)
			}
			for stream, b := range map[string][]byte{"standard output": outb.Bytes(), "standard error": errb.Bytes()} {
				if m := progressBytes.Find(b); m != nil {
					t.Errorf("%s (files %v): %s has %q of the progress:\n%s", c.name, files, stream, m, b)
				}
			}
			if outb.Len() == 0 {
				t.Errorf("%s (files %v): no output at all", c.name, files)
			}
		}
	}
}

// --progress takes auto, on or off (and a boolean's other words); anything
// else is refused as a boolean option's bad value is: one line, exit 1.
func TestProgressOption(t *testing.T) {
	t.Parallel()
	stdout, stderr, code := runStreams(t, "cpu", "--progress=sometimes", "run")
	if code != 1 || !strings.Contains(stdout+stderr, "invalid option: --progress=sometimes\n") || strings.Contains(stdout+stderr, "Threads started") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
	for _, v := range []string{"--progress=off", "--progress=false", "--progress=auto", "--progress=AUTO"} {
		if stdout, stderr, code := runStreams(t, "cpu", "--events=10", "--time=0", v, "run"); code != 0 || progressBytes.MatchString(stdout+stderr) {
			t.Errorf("%s: exit %d\n%s%s", v, code, stdout, stderr)
		}
	}
}
