// Command luasuite runs LuaJIT's test suite, block by block, and the Lua
// 5.1 test suite, file by file, through the reference implementations
// (luajit, lua5.1, sysbench 1.0.20) and through sysbench-go, and prints
// what passes under each: the yardstick of our Lua (docs/compatibility.md).
//
// The suites are read from their checkouts and never enter the repository.
//
//	go run ./tools/luasuite -luajit-tests LuaJIT-test-cleanup/test -lua51-tests gopher-lua/_lua5.1-tests
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

const usage = "usage: luasuite -luajit-tests DIR -lua51-tests DIR [flags]\n" +
	"  -luajit-tests: LuaJIT-test-cleanup's test/ directory (the one with the top index; the repository root works too)\n" +
	"  -lua51-tests:  the Lua 5.1 test files (gopher-lua's _lua5.1-tests; the gopher-lua root works too)\n" +
	"  one of the two is enough"

// config is the command line, resolved.
type config struct {
	luajitTests, lua51Tests string
	out                     string
	parallel                int
	timeout                 time.Duration
	tags                    Tags
	run                     *regexp.Regexp
	list, check             bool
	impls                   map[string]Impl
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run is the whole command: its exit status is 2 for a usage error, 1
// when the suites cannot be read or -check finds a block the reference
// passes and we fail, 0 otherwise.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseArgs(args, stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "luasuite:", err)
		}
		fmt.Fprintln(stderr, usage)
		return 2
	}
	if cfg.list {
		return listPlan(cfg, stdout, stderr)
	}
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		fmt.Fprintln(stderr, "luasuite:", err)
		return 1
	}
	suites := []struct {
		dir   string
		run   func(context.Context, config, io.Writer) ([]Result, error)
		print func(io.Writer, config, []Result)
	}{
		{cfg.luajitTests, runLuaJITSuite, printLuaJITTable},
		{cfg.lua51Tests, runLua51Suite, printLua51Table},
	}
	var results []Result
	for _, s := range suites {
		if s.dir == "" {
			continue
		}
		rs, err := s.run(ctx, cfg, stderr)
		if err != nil {
			fmt.Fprintln(stderr, "luasuite:", err)
			return 1
		}
		s.print(stdout, cfg, rs)
		results = append(results, rs...)
	}
	if err := writeResults(cfg, results); err != nil {
		fmt.Fprintln(stderr, "luasuite:", err)
		return 1
	}
	fmt.Fprintf(stdout, "\nper-block results: %s\n", cfg.out)
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "luasuite: interrupted; the results are incomplete")
		return 1
	}
	if cfg.check {
		if n := len(regressions(results, cfg.impls)); n > 0 {
			fmt.Fprintf(stderr, "luasuite: sysbench-go fails %d promised test(s) the reference passes (%s)\n",
				n, filepath.Join(cfg.out, "failures.txt"))
			return 1
		}
	}
	return 0
}

func parseArgs(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("luasuite", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	var runExpr, tags, ours, luajit, sysbench, lua51 string
	fs.StringVar(&cfg.luajitTests, "luajit-tests", "", "LuaJIT-test-cleanup's test/ directory")
	fs.StringVar(&cfg.lua51Tests, "lua51-tests", "", "the directory of the Lua 5.1 test files")
	fs.StringVar(&cfg.out, "out", "", "directory for the per-block results (default: a new temporary directory)")
	fs.IntVar(&cfg.parallel, "jobs", 2, "chunks run at the same time")
	fs.DurationVar(&cfg.timeout, "timeout", time.Minute, "time limit of one chunk (it fails when it runs longer)")
	fs.StringVar(&tags, "tags", "", "tags turned on or off for LuaJIT's metadata, as the runner's arguments: +slow,-ffi")
	fs.StringVar(&runExpr, "run", "", "run only the tests whose name (file --- block) matches this regular expression")
	fs.BoolVar(&cfg.list, "list", false, "print the plan (blocks, metadata, what is not promised) and run nothing")
	fs.BoolVar(&cfg.check, "check", false, "exit 1 when sysbench-go fails a promised test the reference passes")
	fs.StringVar(&ours, "ours", "", "sysbench-go (default: $SYSBENCH_GO_BIN, else bin/sysbench-go)")
	fs.StringVar(&luajit, "luajit", "luajit", `the luajit program ("none": leave it out)`)
	fs.StringVar(&sysbench, "sysbench", "sysbench", `the reference sysbench 1.0.20 ("none": leave it out)`)
	fs.StringVar(&lua51, "lua5.1", "lua5.1", `the lua5.1 program ("none": leave it out)`)
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if cfg.luajitTests == "" && cfg.lua51Tests == "" {
		return cfg, errors.New("no suite given")
	}
	var err error
	if cfg.luajitTests, err = suiteDir(cfg.luajitTests, "index", "test"); err != nil {
		return cfg, err
	}
	if cfg.lua51Tests, err = suiteDir(cfg.lua51Tests, "all.lua", "_lua5.1-tests"); err != nil {
		return cfg, err
	}
	if runExpr != "" {
		if cfg.run, err = regexp.Compile(runExpr); err != nil {
			return cfg, fmt.Errorf("-run: %w", err)
		}
	}
	if cfg.parallel < 1 || cfg.timeout <= 0 {
		return cfg, errors.New("-jobs and -timeout must be positive")
	}
	cfg.tags = luajit21Tags()
	if err := cfg.tags.Apply(tags); err != nil {
		return cfg, fmt.Errorf("-tags: %w", err)
	}
	if cfg.list {
		return cfg, nil
	}
	if ours == "" {
		ours = os.Getenv("SYSBENCH_GO_BIN")
	}
	if ours == "" {
		ours = "bin/sysbench-go"
	}
	if cfg.impls, err = findImpls(ours, luajit, sysbench, lua51, stderr); err != nil {
		return cfg, err
	}
	if cfg.out == "" {
		if cfg.out, err = os.MkdirTemp("", "luasuite-"); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// suiteDir accepts a suite's own directory (holding marker) or the
// checkout that has it in sub.
func suiteDir(dir, marker, sub string) (string, error) {
	if dir == "" {
		return "", nil
	}
	for _, d := range []string{dir, filepath.Join(dir, sub)} {
		if _, err := os.Stat(filepath.Join(d, marker)); err == nil {
			return filepath.Abs(d)
		}
	}
	return "", fmt.Errorf("%s: neither it nor %s holds %s", dir, sub, marker)
}

// findImpls resolves the implementations; a reference that is missing is
// left out with a note, ours must be there.
func findImpls(ours, luajit, sysbench, lua51 string, stderr io.Writer) (map[string]Impl, error) {
	p, err := exec.LookPath(ours)
	if err != nil {
		return nil, fmt.Errorf("sysbench-go: %w (make build, or -ours)", err)
	}
	if p, err = filepath.Abs(p); err != nil {
		return nil, err
	}
	impls := map[string]Impl{
		"ours":     {Name: "ours", Path: p, Banner: true},
		"sysbench": {Name: "sysbench", Banner: true},
		"luajit":   {Name: "luajit", Args: []string{"-"}},
		"lua5.1":   {Name: "lua5.1", Args: []string{"-"}},
	}
	for name, prog := range map[string]string{"luajit": luajit, "sysbench": sysbench, "lua5.1": lua51} {
		if prog == "none" {
			continue
		}
		p, err := exec.LookPath(prog)
		if err == nil {
			p, err = filepath.Abs(p)
		}
		if err != nil {
			fmt.Fprintf(stderr, "luasuite: %s is not available (%v): its column is left out\n", name, err)
			continue
		}
		if name == "sysbench" && !isReferenceSysbench(p) {
			fmt.Fprintf(stderr, "luasuite: %s is not sysbench 1.0.20 on LuaJIT: its column is left out\n", p)
			continue
		}
		im := impls[name]
		im.Path = p
		if !im.Banner {
			im.ErrPrefix = p + ": " // a standalone interpreter names itself as it was called
		}
		impls[name] = im
	}
	return impls, nil
}

// isReferenceSysbench tells the reference from another version or a
// sysbench-go installed under the name sysbench.
func isReferenceSysbench(path string) bool {
	out, err := exec.Command(path, "--version").Output()
	v := strings.TrimSpace(string(out))
	return err == nil && strings.HasPrefix(v, "sysbench 1.0.20") && !strings.Contains(v, "sysbench-go")
}

// listPlan prints the LuaJIT suite's blocks as the plan selects them.
func listPlan(cfg config, stdout, stderr io.Writer) int {
	if cfg.luajitTests == "" {
		fmt.Fprintln(stderr, "luasuite: -list needs -luajit-tests")
		return 2
	}
	rs, err := luajitResults(cfg)
	if err != nil {
		fmt.Fprintln(stderr, "luasuite:", err)
		return 1
	}
	for _, r := range rs {
		state := "run"
		switch {
		case !r.Selected:
			state = "not selected (" + r.Deselect + ")"
		case r.Category != "":
			state = "not promised (" + r.Category + ")"
		}
		fmt.Fprintf(stdout, "%s:%d\t%s\t%s\t%s\n", r.File, r.Line, r.Name, r.Meta, state)
	}
	return 0
}
