package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Impl is one Lua implementation a chunk runs through.
type Impl struct {
	Name string   // the column's name: "luajit", "sysbench", "ours", "lua5.1"
	Path string   // the program; empty when it is not available
	Args []string // what makes it read the chunk from standard input
	// Banner: sysbench prints its banner line and an empty line before
	// the script's output, and reports a script error on standard output
	// as `FATAL: ...`; a standalone interpreter names itself on stderr.
	Banner    bool
	ErrPrefix string
}

// Status is what a chunk's run came to.
type Status string

const (
	Pass    Status = "pass"
	Fail    Status = "fail"
	Timeout Status = "timeout"
	NotRun  Status = "not run" // the implementation is not available
)

// Outcome is one chunk's run through one implementation.
type Outcome struct {
	Status  Status
	Error   string // the first error line, the implementation's prefix removed
	Line    int    // the chunk line the error points at (stdin:N), 0 when none
	Source  string // that line's text
	Exit    int
	Stdout  string
	Stderr  string
	Elapsed time.Duration
}

// Job is one chunk to run through one implementation.
type Job struct {
	Impl  Impl
	Chunk string
	Dir   string   // working directory
	Env   []string // added to the environment
}

// outputCap bounds what is kept of a chunk's stdout and stderr: a runaway
// print loop must not fill memory; the first error line comes early.
const outputCap = 256 << 10

// capped keeps the first outputCap bytes written to it.
type capped struct{ bytes.Buffer }

func (c *capped) Write(p []byte) (int, error) {
	if room := outputCap - c.Len(); room > 0 {
		if len(p) > room {
			c.Buffer.Write(p[:room])
		} else {
			c.Buffer.Write(p)
		}
	}
	return len(p), nil
}

// Run runs the chunk through the implementation with a time limit.
func (j Job) Run(ctx context.Context, timeout time.Duration) Outcome {
	if j.Impl.Path == "" {
		return Outcome{Status: NotRun}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, j.Impl.Path, j.Impl.Args...)
	cmd.Dir = j.Dir
	cmd.Env = append(cleanEnv(), j.Env...)
	cmd.Stdin = strings.NewReader(j.Chunk)
	var stdout, stderr capped
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 2 * time.Second
	start := time.Now()
	err := cmd.Run()
	o := Outcome{Elapsed: time.Since(start), Stdout: stdout.String(), Stderr: stderr.String()}
	if j.Impl.Banner {
		o.Stdout = stripBanner(o.Stdout)
	}
	var exit *exec.ExitError
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		o.Status, o.Exit = Timeout, -1
		o.Error = fmt.Sprintf("timeout after %s", timeout)
		return o
	case errors.As(err, &exit):
		o.Exit = exit.ExitCode()
	case err != nil:
		o.Status, o.Exit, o.Error = Fail, -1, err.Error()
		return o
	}
	if o.Exit == 0 && hasLine(o.Stdout, passLine) {
		o.Status = Pass
		return o
	}
	o.Status = Fail
	o.Error = j.Impl.firstError(o, exit)
	o.Line, o.Source = errorLine(o.Error, j.Chunk, j.Dir)
	return o
}

// cleanEnv is the environment without the variables that would change
// how a Lua implementation starts (LUA_INIT runs code in lua5.1 and luajit).
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "LUA_INIT") || strings.HasPrefix(kv, "LUA_PATH") || strings.HasPrefix(kv, "LUA_CPATH") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// stripBanner removes sysbench's banner line and the empty line after it.
func stripBanner(s string) string {
	for range 2 {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		} else {
			return ""
		}
	}
	return s
}

// hasLine reports whether s has line as one of its lines. It need not be
// the last: a finalizer may print while the state closes (gc.lua).
func hasLine(s, line string) bool {
	for _, l := range strings.Split(s, "\n") {
		if l == line {
			return true
		}
	}
	return false
}

// firstError finds the line that says why a chunk failed.
func (im Impl) firstError(o Outcome, exit *exec.ExitError) string {
	if im.Banner {
		// Not only at a line's start: the script's own output may lack
		// its last newline.
		for _, l := range strings.Split(o.Stdout, "\n") {
			if _, rest, ok := strings.Cut(l, "FATAL: "); ok {
				return rest
			}
		}
	}
	for _, l := range strings.Split(o.Stderr, "\n") {
		if strings.TrimSpace(l) != "" {
			return strings.TrimPrefix(l, im.ErrPrefix)
		}
	}
	if exit != nil && !exit.Exited() {
		return "killed: " + exit.String()
	}
	if o.Exit == 0 {
		return "ended without printing the pass line"
	}
	return fmt.Sprintf("exit status %d and no error line", o.Exit)
}

// location is where an error message points: the chunk read from
// standard input ("stdin:12:") or a file it loaded ("db.lua:185:").
var location = regexp.MustCompile(`^([^:\s]+):(\d+):`)

// errorLine returns the line an error message points at, and its text
// when it is in the chunk or in a file under dir.
func errorLine(msg, chunk, dir string) (int, string) {
	m := location.FindStringSubmatch(msg)
	if m == nil {
		return 0, ""
	}
	n, _ := strconv.Atoi(m[2])
	text := chunk
	if m[1] != "stdin" {
		b, err := os.ReadFile(filepath.Join(dir, m[1]))
		if err != nil {
			return n, ""
		}
		text = string(b)
	}
	lines := strings.Split(text, "\n")
	if n < 1 || n > len(lines) {
		return n, ""
	}
	return n, strings.TrimSpace(lines[n-1])
}

// RunAll runs jobs with at most parallel at a time; out[i] is jobs[i]'s
// outcome. progress, when not nil, is called after each job.
func RunAll(ctx context.Context, jobs []Job, parallel int, timeout time.Duration, progress func(done int)) []Outcome {
	out := make([]Outcome, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range max(parallel, 1) {
		wg.Go(func() {
			for i := range next {
				out[i] = jobs[i].Run(ctx, timeout)
				if progress != nil {
					mu.Lock()
					done++
					progress(done)
					mu.Unlock()
				}
			}
		})
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}
