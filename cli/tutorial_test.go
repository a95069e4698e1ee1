package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestTutorial runs docs/writing-workloads.md: every "$ sysbench-go ..."
// line of its console blocks, in order, in a directory of the test's own,
// each expected to print the lines shown under it (in that order, other
// lines between them allowed; numbers and the spaces that align them
// masked; "..." stands for lines left out) and to exit with status 0, or
// the "[exit status N]" shown. A Lua block after "<!-- file: NAME -->"
// is written to NAME, and a diff block after "<!-- edit: NAME -->" is
// applied to it (each run of - lines replaced by the + lines after it),
// so that the commands run on the code the page shows.
func TestTutorial(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../docs/writing-workloads.md")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	steps := tutorialSteps(t, string(doc))
	commands := 0
	for _, st := range steps {
		switch {
		case st.file != "":
			if err := os.WriteFile(filepath.Join(dir, st.file), []byte(st.body), 0o644); err != nil {
				t.Fatal(err)
			}
		case st.edit != "":
			applyDiff(t, filepath.Join(dir, st.edit), st.body)
		default:
			commands++
			runTutorialCommand(t, dir, st)
		}
	}
	if commands < 10 {
		t.Errorf("only %d commands found in the tutorial", commands)
	}
}

// tutorialStep is a file to write, a file to edit, or a command to run.
type tutorialStep struct {
	file, edit, body string
	command          string
	want             []string
	status           int
}

func tutorialSteps(t *testing.T, doc string) []tutorialStep {
	t.Helper()
	var steps []tutorialStep
	lines := strings.Split(doc, "\n")
	directive := regexp.MustCompile(`^<!-- (file|edit): (\S+) -->$`)
	for i := 0; i < len(lines); i++ {
		if m := directive.FindStringSubmatch(lines[i]); m != nil {
			i++
			if i >= len(lines) || !strings.HasPrefix(lines[i], "```") {
				t.Fatalf("line %d: a code block must follow %q", i, m[0])
			}
			var body []string
			for i++; i < len(lines) && lines[i] != "```"; i++ {
				body = append(body, lines[i])
			}
			st := tutorialStep{body: strings.Join(body, "\n") + "\n"}
			if m[1] == "file" {
				st.file = m[2]
			} else {
				st.edit = m[2]
			}
			steps = append(steps, st)
			continue
		}
		if lines[i] != "```console" {
			continue
		}
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			l := lines[i]
			switch {
			case strings.HasPrefix(l, "$ "):
				if !strings.HasPrefix(l, "$ sysbench-go ") {
					t.Fatalf("line %d: a command the test cannot run: %s", i+1, l)
				}
				steps = append(steps, tutorialStep{command: strings.TrimPrefix(l, "$ sysbench-go ")})
			case len(steps) == 0 || steps[len(steps)-1].command == "":
				t.Fatalf("line %d: output before a command: %s", i+1, l)
			case strings.HasPrefix(l, "[exit status "):
				n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(l, "[exit status "), "]"))
				if err != nil {
					t.Fatalf("line %d: %s", i+1, l)
				}
				steps[len(steps)-1].status = n
			case l != "...":
				steps[len(steps)-1].want = append(steps[len(steps)-1].want, l)
			}
		}
	}
	return steps
}

// runTutorialCommand runs one command in dir: its .lua and --sqlite-db
// arguments name files there; a final ">/dev/null" keeps standard error
// only, as a shell would.
func runTutorialCommand(t *testing.T, dir string, st tutorialStep) {
	t.Helper()
	args := strings.Fields(st.command)
	stderrOnly := false
	if n := len(args); n > 0 && args[n-1] == ">/dev/null" {
		args, stderrOnly = args[:n-1], true
	}
	for i, a := range args {
		switch {
		case strings.HasPrefix(a, "--sqlite-db="):
			args[i] = "--sqlite-db=" + filepath.Join(dir, strings.TrimPrefix(a, "--sqlite-db="))
		case strings.HasSuffix(a, ".lua") && !strings.HasPrefix(a, "-"):
			args[i] = filepath.Join(dir, a)
		}
	}
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errb)
	got := errb.String()
	if !stderrOnly {
		got = out.String() + got
	}
	got = strings.ReplaceAll(got, dir+string(filepath.Separator), "")
	if code != st.status {
		t.Fatalf("$ sysbench-go %s: status %d, want %d\n%s", st.command, code, st.status, got)
	}
	gotLines := strings.Split(got, "\n")
	j := 0
	for _, w := range st.want {
		mw := digits.ReplaceAllString(w, "0")
		for j < len(gotLines) && digits.ReplaceAllString(gotLines[j], "0") != mw {
			j++
		}
		if j == len(gotLines) {
			t.Errorf("$ sysbench-go %s: the page shows %q, the command did not print it (in that order):\n%s", st.command, w, got)
			return
		}
		j++
	}
}

// applyDiff applies a diff block: each run of "-" lines, found in the
// file as consecutive lines, is replaced by the "+" lines that follow it.
func applyDiff(t *testing.T, file, diff string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	var minus, plus []string
	flush := func() {
		if len(minus) == 0 {
			return
		}
		old := strings.Join(minus, "\n") + "\n"
		if strings.Count(src, old) != 1 {
			t.Fatalf("%s: the diff's lines are not in the file once:\n%s", file, old)
		}
		src = strings.Replace(src, old, strings.Join(plus, "\n")+"\n", 1)
		minus, plus = nil, nil
	}
	for _, l := range strings.Split(strings.TrimSuffix(diff, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "-"):
			if len(plus) > 0 {
				flush()
			}
			minus = append(minus, l[1:])
		case strings.HasPrefix(l, "+"):
			plus = append(plus, l[1:])
		default:
			t.Fatalf("%s: a diff line neither - nor +: %q", file, l)
		}
	}
	flush()
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}
