// Command oracle runs sysbench-go and the reference sysbench 1.0.20 side by
// side on cases it generates — every option of the general, driver,
// built-in test and bundled script sets with valid, boundary and invalid
// values, every command of every test, the Lua error paths, the SQL and
// random API with wrong arguments, failed connections, signals — and
// compares standard output, standard error and the exit status apart,
// measured figures masked. A difference is either on the list of
// deliberate ones (docs/differences.toml, each with its reason and the
// case that shows it) or a failure; so is a listed one that no longer
// occurs.
//
//	go run ./tools/oracle [-quick] [-run REGEXP] [-v] [-list] [-render]
//
// make oracle builds the binary, starts test servers and runs it; the
// quick subset runs inside make test (tools/oracle's test).
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
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// config is the command line, resolved.
type config struct {
	root      string // the repository
	ref, ours string // the programs
	run       *regexp.Regexp
	quick     bool
	sample    uint32
	parallel  int
	verbose   bool
	keep      bool
	requireDB bool // a case that needs a missing server fails (CI)
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(command(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func command(ctx context.Context, argv []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("oracle", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := config{}
	fs.StringVar(&cfg.root, "root", ".", "the repository's root")
	fs.StringVar(&cfg.ref, "ref", "/usr/bin/sysbench", "the reference sysbench 1.0.20")
	fs.StringVar(&cfg.ours, "ours", "bin/sysbench-go", "our binary (make build)")
	runRE := fs.String("run", "", "run only the cases whose name matches this regular expression")
	fs.BoolVar(&cfg.quick, "quick", false, "run the subset make test runs")
	sample := fs.Uint("sample", defaultSample, "with -quick, one in this many of the cases that are neither core nor slow")
	fs.IntVar(&cfg.parallel, "parallel", 2*runtime.NumCPU(), "programs run at a time")
	fs.BoolVar(&cfg.verbose, "v", false, "print every difference, listed ones too")
	fs.BoolVar(&cfg.keep, "keep", false, "keep the runs' directories")
	list := fs.Bool("list", false, "print the cases and exit")
	doRender := fs.Bool("render", false, "write docs/differences.md from docs/differences.toml and exit")
	if err := fs.Parse(argv); err != nil {
		return 2
	}
	cfg.sample = uint32(max(*sample, 1))
	cfg.requireDB = os.Getenv("CI") == "true"
	if *runRE != "" {
		re, err := regexp.Compile(*runRE)
		if err != nil {
			fmt.Fprintln(stderr, "oracle:", err)
			return 2
		}
		cfg.run = re
	}
	if *doRender {
		if err := renderDocs(cfg.root); err != nil {
			fmt.Fprintln(stderr, "oracle:", err)
			return 1
		}
		return 0
	}
	cases, l, err := prepareCases(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "oracle:", err)
		return 1
	}
	if *list {
		for _, c := range cases {
			fmt.Fprintf(stdout, "%s\tsysbench %s\n", c.Name, shellWords(c.Args))
		}
		return 0
	}
	rep, err := runCases(ctx, cfg, cases, l)
	if err != nil {
		fmt.Fprintln(stderr, "oracle:", err)
		return 1
	}
	fmt.Fprint(stdout, rep.text)
	if rep.failed {
		return 1
	}
	return 0
}

// defaultSample: the quick subset takes one in this many of the cases
// that are neither core nor slow.
const defaultSample = 12

// listPath and docsPath are the list of differences and its page.
func listPath(root string) string { return filepath.Join(root, "docs", "differences.toml") }
func docsPath(root string) string { return filepath.Join(root, "docs", "differences.md") }

// renderDocs writes the list into docs/differences.md.
func renderDocs(root string) error {
	l, err := readList(listPath(root))
	if err != nil {
		return err
	}
	page, err := os.ReadFile(docsPath(root))
	if err != nil {
		return err
	}
	out, err := render(l, string(page))
	if err != nil {
		return err
	}
	return os.WriteFile(docsPath(root), []byte(out), 0o644)
}

// prepareCases reads the help texts and the list and generates the cases
// the configuration selects.
func prepareCases(ctx context.Context, cfg config) ([]*Case, *list, error) {
	l, err := readList(listPath(cfg.root))
	if err != nil {
		return nil, nil, err
	}
	scripts, err := readScripts(filepath.Join(cfg.root, "tools", "oracle", "testdata"))
	if err != nil {
		return nil, nil, err
	}
	h, err := readHelps(ctx, cfg.ref, cfg.ours)
	if err != nil {
		return nil, nil, err
	}
	all := generate(h, scripts)
	names := map[string]bool{}
	for _, c := range all {
		names[c.Name] = true
	}
	shown := map[string]bool{}
	for _, d := range l.Differences {
		if !names[d.Show] {
			return nil, nil, fmt.Errorf("%s: %s shows it, and there is no such case", d.ID, d.Show)
		}
		shown[d.Show] = true
	}
	var out []*Case
	for _, c := range all {
		if cfg.run != nil && !cfg.run.MatchString(c.Name) {
			continue
		}
		// The quick subset holds every listed difference's case, so
		// that it finds a stale entry too.
		if cfg.quick && !c.quick(cfg.sample) && !shown[c.Name] {
			continue
		}
		out = append(out, c)
	}
	return out, l, nil
}

// readHelps runs the help commands cases are generated from.
func readHelps(ctx context.Context, ref, ours string) (helps, error) {
	out := func(path string, argv ...string) (string, error) {
		cmd := exec.CommandContext(ctx, path, argv...)
		cmd.Args[0] = "sysbench"
		cmd.Env = []string{"PATH=/usr/bin:/bin", "LANG=C"}
		b, err := cmd.Output()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			return "", fmt.Errorf("%s %s: %w", path, strings.Join(argv, " "), err)
		}
		return string(b), nil
	}
	h := helps{tests: map[string]string{}, scripts: map[string]string{}}
	var err error
	if h.general, err = out(ref, "--help"); err != nil {
		return h, err
	}
	if h.ours, err = out(ours, "--help"); err != nil {
		return h, err
	}
	inTests := false
	for _, l := range strings.Split(h.general, "\n") {
		switch {
		case l == "Compiled-in tests:":
			inTests = true
		case inTests && strings.HasPrefix(l, "  "):
			name, _, _ := strings.Cut(strings.TrimSpace(l), " ")
			if h.tests[name], err = out(ref, name, "help"); err != nil {
				return h, err
			}
		case inTests:
			inTests = false
		}
	}
	// The reference's bundled scripts, where its package installs them.
	dir := filepath.Join(filepath.Dir(filepath.Dir(ref)), "share", "sysbench")
	files, _ := filepath.Glob(filepath.Join(dir, "*.lua"))
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".lua")
		if name == "oltp_common" {
			continue
		}
		if h.scripts[name], err = out(ref, name, "help"); err != nil {
			return h, err
		}
	}
	if len(h.tests) == 0 || len(h.scripts) == 0 {
		return h, fmt.Errorf("the reference (%s) listed no built-in test or no bundled script (%s)", ref, dir)
	}
	return h, nil
}

// report is a run's verdict.
type report struct {
	text     string
	failed   bool
	ran      int
	unlisted int
	stale    []string
	outcomes []outcome
}

// runCases runs every case under both programs and compares them.
func runCases(ctx context.Context, cfg config, cases []*Case, l *list) (*report, error) {
	ours, err := filepath.Abs(cfg.ours)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(ours); err != nil {
		return nil, fmt.Errorf("our binary: %w (make build)", err)
	}
	srv := serversFromEnv()
	r, err := newRunner(ctx, program{"ref", cfg.ref}, program{"ours", ours}, srv, cfg.parallel)
	if err != nil {
		return nil, err
	}
	r.keep = cfg.keep
	defer r.close()
	start := time.Now()
	outcomes := make([]outcome, len(cases))
	used := map[string][]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i, c := range cases {
		if kind := c.server(); kind != "" && srv[kind].Host == "" {
			outcomes[i] = outcome{c: c, skipped: "no " + kind + " server (SBTEST_" + strings.ToUpper(kind) + "_HOST)"}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var ref, ours result
			var inner sync.WaitGroup
			inner.Add(2)
			go func() { defer inner.Done(); ref = r.run(ctx, c, r.ref) }()
			go func() { defer inner.Done(); ours = r.run(ctx, c, r.ours) }()
			inner.Wait()
			mu.Lock()
			defer mu.Unlock()
			outcomes[i] = compare(c, ref, ours, l, used)
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return summarize(cfg, outcomes, l, used, time.Since(start)), nil
}

// summarize writes the report: the unlisted differences, the listed ones
// that did not occur, and the counts.
func summarize(cfg config, outcomes []outcome, l *list, used map[string][]string, took time.Duration) *report {
	rep := &report{outcomes: outcomes}
	var b strings.Builder
	ran, identical, listed, skipped := 0, 0, 0, 0
	ranNames := map[string]bool{}
	for i := range outcomes {
		o := &outcomes[i]
		switch {
		case o.skipped != "":
			skipped++
			if cfg.requireDB {
				rep.failed = true
				fmt.Fprintf(&b, "NOT RUN %s: %s\n", o.c.Name, o.skipped)
			}
			continue
		case o.unlisted:
			rep.unlisted++
			fmt.Fprintf(&b, "DIFFERS %s\n", o.c.Name)
			o.describe(&b, cfg.verbose)
		case len(o.diffs) > 0:
			listed++
			if cfg.verbose {
				fmt.Fprintf(&b, "LISTED  %s\n", o.c.Name)
				o.describe(&b, true)
			}
		default:
			identical++
		}
		ran++
		ranNames[o.c.Name] = true
	}
	// A listed difference whose case ran and did not show it is stale:
	// the list must stay true.
	for _, d := range l.Differences {
		if !ranNames[d.Show] {
			continue
		}
		if !slices.Contains(used[d.ID], d.Show) {
			rep.stale = append(rep.stale, d.ID)
			fmt.Fprintf(&b, "STALE   %s: listed (%s), and its case %s no longer shows it\n", d.ID, d.Title, d.Show)
		}
	}
	sort.Strings(rep.stale)
	rep.ran = ran
	rep.failed = rep.failed || rep.unlisted > 0 || len(rep.stale) > 0
	subset := "all cases"
	if cfg.quick {
		subset = fmt.Sprintf("the quick subset (core cases, every listed difference's case, 1 in %d of the others that do not wait on the clock)", cfg.sample)
	}
	fmt.Fprintf(&b, "\nsysbench-go against sysbench 1.0.20, %s: %d cases run", subset, ran)
	if skipped > 0 {
		fmt.Fprintf(&b, " (%d more need a server: not run)", skipped)
	}
	fmt.Fprintf(&b, " in %s; %d identical, %d differ only as listed, %d differ otherwise; %d listed differences, %d of them seen, %d stale.\n",
		took.Round(time.Second), identical, listed, rep.unlisted, len(l.Differences), len(used), len(rep.stale))
	if cfg.verbose {
		b.WriteString("Cases each listed difference was seen in:\n")
		for _, d := range l.Differences {
			seen := map[string]bool{}
			for _, c := range used[d.ID] {
				seen[c] = true
			}
			fmt.Fprintf(&b, "  %-28s %d\n", d.ID, len(seen))
		}
	}
	rep.text = b.String()
	return rep
}
