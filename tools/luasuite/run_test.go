package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

// A shell reading its script from standard input stands in for a Lua
// implementation here: the chunk is a shell script.
func shellImpl(t *testing.T, banner bool) Impl {
	sh := testenv.Tool(t, "sh", "a POSIX shell")
	return Impl{Name: "sh", Path: sh, Args: []string{"-s"}, Banner: banner, ErrPrefix: "sh: "}
}

func TestJobRun(t *testing.T) {
	tests := []struct {
		name    string
		banner  bool
		chunk   string
		status  Status
		errLine string
		line    int
		source  string
	}{
		{"pass line", false, "echo 'luasuite: pass'\n", Pass, "", 0, ""},
		{"pass line then more output", false, "echo 'luasuite: pass'\necho '>>> closing state <<<'\n", Pass, "", 0, ""},
		{"no pass line", false, "echo done\n", Fail, "ended without printing the pass line", 0, ""},
		{"pass line but an exit status", false, "echo 'luasuite: pass'\nexit 3\n", Fail, "exit status 3 and no error line", 0, ""},
		{"error on stderr", false, "echo x\necho 'sh: stdin:2: boom' >&2\nexit 1\n", Fail, "stdin:2: boom", 2, "echo 'sh: stdin:2: boom' >&2"},
		{"FATAL after the banner", true, "echo banner; echo\necho 'FATAL: stdin:2: boom'\nexit 1\n", Fail, "stdin:2: boom", 2, "echo 'FATAL: stdin:2: boom'"},
		{"FATAL after output without a newline", true, "echo banner; echo\nprintf 'partial'\necho 'FATAL: stdin:3: late'; exit 1\n", Fail, "stdin:3: late", 3, "echo 'FATAL: stdin:3: late'; exit 1"},
		// The first two lines are the banner's, never the chunk's output.
		{"the pass line in the banner's place", true, "echo 'luasuite: pass'\necho\n", Fail, "ended without printing the pass line", 0, ""},
		{"killed by a signal", false, "kill -SEGV $$\n", Fail, "killed: signal: segmentation fault", 0, ""},
		{"timeout", false, "exec sleep 30\n", Timeout, "timeout after 300ms", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job := Job{Impl: shellImpl(t, tt.banner), Chunk: tt.chunk, Dir: t.TempDir()}
			o := job.Run(context.Background(), 300*time.Millisecond)
			if o.Status != tt.status || o.Error != tt.errLine || o.Line != tt.line || o.Source != tt.source {
				t.Errorf("status %s, error %q, line %d %q; want %s, %q, %d %q (stdout %q, stderr %q)",
					o.Status, o.Error, o.Line, o.Source, tt.status, tt.errLine, tt.line, tt.source, o.Stdout, o.Stderr)
			}
		})
	}
	if o := (Job{Impl: Impl{Name: "missing"}}).Run(context.Background(), time.Second); o.Status != NotRun {
		t.Errorf("an implementation without a path: %s, want %s", o.Status, NotRun)
	}
}

func TestJobRunEnvironment(t *testing.T) {
	t.Setenv("LUA_INIT", "os.exit(1)")
	dir := t.TempDir()
	job := Job{Impl: shellImpl(t, false), Dir: dir, Env: []string{"LUA_PATH=/x/?.lua"},
		Chunk: `[ "$(pwd -P)" = "$(cd ` + dir + ` && pwd -P)" ] && [ "$LUA_PATH" = /x/?.lua ] && [ -z "$LUA_INIT" ] && echo 'luasuite: pass'` + "\n"}
	if o := job.Run(context.Background(), 10*time.Second); o.Status != Pass {
		t.Errorf("the chunk did not run in its directory with its environment only: %s %q", o.Status, o.Error)
	}
}

func TestRunAll(t *testing.T) {
	im := shellImpl(t, false)
	var jobs []Job
	for i := range 7 {
		chunk := "echo 'luasuite: pass'\n"
		if i%2 == 1 {
			chunk = "exit 1\n"
		}
		jobs = append(jobs, Job{Impl: im, Chunk: chunk, Dir: t.TempDir()})
	}
	calls := 0
	outs := RunAll(context.Background(), jobs, 3, 10*time.Second, func(done int) {
		calls++
		if done != calls {
			t.Errorf("progress %d at call %d", done, calls)
		}
	})
	for i, o := range outs {
		if want := map[bool]Status{true: Pass, false: Fail}[i%2 == 0]; o.Status != want {
			t.Errorf("job %d: %s, want %s", i, o.Status, want)
		}
	}
	if calls != len(jobs) {
		t.Errorf("progress called %d times, want %d", calls, len(jobs))
	}
}

func TestStripBanner(t *testing.T) {
	for in, want := range map[string]string{
		"sysbench 1.0.20 (x)\n\nout\n": "out\n",
		"sysbench 1.0.20 (x)\n\n":      "",
		"sysbench 1.0.20 (x)\n":        "",
		"":                             "",
	} {
		if got := stripBanner(in); got != want {
			t.Errorf("stripBanner(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestErrorLine(t *testing.T) {
	dir := t.TempDir()
	chunk := "local a\nassert(false)\n"
	tests := []struct {
		msg    string
		line   int
		source string
	}{
		{"stdin:2: assertion failed!", 2, "assert(false)"},
		{"stdin:9: out of the chunk", 9, ""},
		{"missing.lua:1: no such file", 1, ""},
		{"attempt to call a nil value", 0, ""},
	}
	for _, tt := range tests {
		line, source := errorLine(tt.msg, chunk, dir)
		if line != tt.line || source != tt.source {
			t.Errorf("errorLine(%q) = %d, %q; want %d, %q", tt.msg, line, source, tt.line, tt.source)
		}
	}
	if line, source := errorLine("helper.lua:1: x", chunk, "testdata/luajit/common"); line != 1 || !strings.HasPrefix(source, "-- A module") {
		t.Errorf("an error in a file the chunk loaded: %d %q", line, source)
	}
}
