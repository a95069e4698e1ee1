package compare

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/sysbench-go/sysbench-go/report"
)

// Runner runs a matrix's cells as child processes of Exe, recording them
// in Dir.
type Runner struct {
	Matrix *Matrix
	Dir    string
	// Exe is the program each cell runs (this binary).
	Exe string
	// Progress receives the progress lines and what the runner says.
	Progress io.Writer
	// Versions are the targets' server versions, from the reachability
	// check.
	Versions map[string]string
	// Tables lists a target's tables, so that a cleanup drops only what
	// this comparison created unless the matrix allows more
	// (replace_existing); nil skips the check.
	Tables TableLister
	// Now interrupts the running child (a second SIGINT, a SIGTERM);
	// cancelling Run's context only stops after the current cell.
	Now <-chan struct{}

	plan     *Plan
	manifest *Manifest
	// ran and ranSeconds are the cells this invocation ran and their wall
	// time, for the time left.
	ran        int
	ranSeconds float64
}

// ErrStopped is Run's error when it stopped before the end on a signal.
var ErrStopped = errors.New("stopped")

// Open prepares the directory: creates it and its manifest, or reads the
// manifest of an earlier run to resume it.
func (r *Runner) Open() error {
	for _, sub := range []string{"", "results", "logs"} {
		if err := os.MkdirAll(filepath.Join(r.Dir, sub), 0o755); err != nil {
			return fmt.Errorf("cannot create the directory '%s': %v", filepath.Join(r.Dir, sub), report.PathCause(err))
		}
	}
	r.plan = NewPlan(r.Matrix)
	old, err := ReadManifest(r.Dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		old = &Manifest{SchemaVersion: ManifestVersion, Created: time.Now().UTC()}
	case err != nil:
		return err
	}
	r.manifest = r.merge(old)
	return r.manifest.write(r.Dir)
}

// merge makes the manifest of this matrix from an earlier one: its
// finished cells are kept where the matrix runs them the same way.
func (r *Runner) merge(old *Manifest) *Manifest {
	m := &Manifest{SchemaVersion: ManifestVersion, Tool: "sysbench-go", Matrix: r.Matrix.Path,
		Created: old.Created, Design: designOf(r.Matrix), Prepares: old.Prepares, Tables: old.Tables}
	for i := range m.Design.Targets {
		m.Design.Targets[i].ServerVersion = r.Versions[m.Design.Targets[i].Name]
	}
	for _, b := range r.plan.Blocks {
		for _, run := range b.Runs {
			c := CellState{ID: run.ID, Target: run.Target, Workload: run.Workload, Threads: run.Threads,
				Round: run.Round, Fingerprint: fingerprint(run.Args), Status: StatusPending}
			if o := old.cell(run.ID); o != nil && o.Fingerprint == c.Fingerprint {
				c = *o
			}
			m.Cells = append(m.Cells, c)
		}
	}
	return m
}

// Manifest is the directory's manifest (after Open).
func (r *Runner) Manifest() *Manifest { return r.manifest }

// Plan is the run order (after Open).
func (r *Runner) Plan() *Plan { return r.plan }

// Done says whether a cell finished.
func (r *Runner) Done(id string) bool { return r.manifest.Done(id) }

// Pending counts the cells not done; Failed those that failed.
func (r *Runner) Pending() int {
	return r.count(func(c *CellState) bool { return c.Status != StatusDone })
}

// Failed counts the cells that failed.
func (r *Runner) Failed() int {
	return r.count(func(c *CellState) bool { return c.Status == StatusFailed })
}

func (r *Runner) count(f func(*CellState) bool) int {
	n := 0
	for i := range r.manifest.Cells {
		if f(&r.manifest.Cells[i]) {
			n++
		}
	}
	return n
}

// Run runs the cells not done yet, in the plan's order. Cancelling ctx
// stops it after the current cell (ErrStopped); a failed cell is tried
// once more, then recorded as failed, and the rest goes on.
func (r *Runner) Run(ctx context.Context) error {
	m := r.Matrix
	previous := "" // the target of the last block that ran cells
	var prepared map[string]error
	for bi, b := range r.plan.Blocks {
		pending := r.pendingRuns(b)
		if len(pending) == 0 {
			continue
		}
		if ctx.Err() != nil {
			return ErrStopped
		}
		// Only a switch to another target cools down and (each-switch)
		// prepares afresh: a block of the target that just ran goes on.
		if previous != b.Target {
			if previous != "" && m.Cooldown > 0 {
				r.say("cool-down %ds before %s", m.Cooldown, b.Target)
				if !sleep(ctx, time.Duration(m.Cooldown)*time.Second) {
					return ErrStopped
				}
			}
			prepared = map[string]error{}
		}
		previous = b.Target
		for _, run := range pending {
			if ctx.Err() != nil {
				return ErrStopped
			}
			perr, ok := prepared[run.Dataset]
			if !ok {
				perr = r.prepare(ctx, b, run.Dataset)
				prepared[run.Dataset] = perr
			}
			if errors.Is(perr, ErrStopped) {
				return ErrStopped
			}
			if perr != nil {
				r.record(run, StatusFailed, perr.Error())
				continue
			}
			r.progress(run, bi)
			if err := r.runCell(ctx, run); errors.Is(err, ErrStopped) {
				return ErrStopped
			}
		}
	}
	return nil
}

func (r *Runner) pendingRuns(b Block) []Run {
	var out []Run
	for _, run := range b.Runs {
		if !r.Done(run.ID) {
			out = append(out, run)
		}
	}
	return out
}

// prepare builds a data set on the block's target when the policy asks
// for it: its cleanup, then its prepare, each tried twice.
func (r *Runner) prepare(ctx context.Context, b Block, dataset string) error {
	m := r.Matrix
	if m.Prepare == PrepareNone || (m.Prepare == PrepareOnce && r.manifest.prepared(b.Target, dataset, 0)) {
		return nil
	}
	t, d := m.target(b.Target), m.datasetNamed(dataset)
	logName := fmt.Sprintf("prepare.%s.%s.r%d.log", b.Target, dataset, b.Round)
	st := PrepareState{Target: b.Target, Dataset: dataset, Round: b.Round, Log: filepath.Join("logs", logName), At: time.Now().UTC()}
	before, err := r.claim(ctx, t, d)
	if err != nil {
		r.say("%v", err)
		return err
	}
	r.say("round %d, %s: preparing data set %s", b.Round, b.Target, dataset)
	var fatal string
	for attempt := 0; attempt < 2; attempt++ {
		fatal = ""
		for _, command := range []string{"cleanup", "prepare"} {
			res := r.child(ctx, m.prepareArgs(t, d, command), logName, attempt > 0 || command == "prepare")
			if res.stopped {
				return ErrStopped
			}
			st.WallS += res.wall.Seconds()
			if res.err != nil {
				fatal = fmt.Sprintf("%s of data set %s failed: %s", command, dataset, res.fatal)
				break
			}
		}
		if fatal == "" {
			break
		}
	}
	if fatal == "" && r.Tables != nil {
		// A script that does not say what it drops owns what it created.
		if after, err := r.Tables(ctx, t); err == nil {
			var created []string
			for _, name := range after {
				if !hasTable(before, name) {
					created = append(created, name)
				}
			}
			r.manifest.own(t.Name, created)
		}
	}
	st.Status, st.Fatal = StatusDone, fatal
	if fatal != "" {
		st.Status = StatusFailed
		r.say("%s", fatal)
	}
	r.manifest.Prepares = append(r.manifest.Prepares, st)
	if err := r.manifest.write(r.Dir); err != nil {
		return err
	}
	if fatal != "" {
		return errors.New(fatal)
	}
	return nil
}

// claim checks, right before a data set's cleanup on a target, that it
// drops no table this comparison did not create (unless the matrix allows
// it), and records the tables it drops and creates as the comparison's,
// before acting, so that a prepare that fails half-way is retried. It
// returns the tables that existed before.
func (r *Runner) claim(ctx context.Context, t *TargetSpec, d Dataset) (before []string, err error) {
	if r.Tables == nil {
		return nil, nil
	}
	one := *r.Matrix
	one.Targets = []TargetSpec{*t}
	uses, err := one.tableUsesOf(ctx, r.Exe, r.Tables, r.manifest, d)
	if err != nil {
		return nil, err
	}
	if err := one.Refusal(uses); err != nil {
		return nil, err
	}
	u := uses[0]
	claimed := u.Drops
	if !u.Known || r.Matrix.ReplaceExisting {
		claimed = append(slices.Clone(u.Drops), u.Foreign...)
	}
	r.manifest.own(t.Name, claimed)
	return u.Existing, r.manifest.write(r.Dir)
}

// runCell runs a cell, and once more when it fails.
func (r *Runner) runCell(ctx context.Context, run Run) error {
	results := filepath.Join("results", run.ID+".json")
	logName := run.ID + ".log"
	command := run.Args[len(run.Args)-1] // run, or capacity
	args := append(append([]string{}, run.Args[:len(run.Args)-1]...), "--results="+filepath.Join(r.Dir, results), command)
	c := r.manifest.cell(run.ID)
	for attempt := 0; attempt < 2; attempt++ {
		c.Attempts++
		c.Start = time.Now().UTC()
		os.Remove(filepath.Join(r.Dir, results)) // an earlier attempt's says nothing of this one
		res := r.child(context.WithoutCancel(ctx), args, logName, attempt > 0)
		c.End, c.WallS, c.ClientCPUS = time.Now().UTC(), res.wall.Seconds(), res.cpu.Seconds()
		c.Log, c.Results = filepath.Join("logs", logName), results
		r.ran, r.ranSeconds = r.ran+1, r.ranSeconds+c.WallS
		if res.stopped {
			c.Status, c.Fatal = StatusInterrupted, "interrupted"
			r.manifest.write(r.Dir)
			return ErrStopped
		}
		err := res.err
		if err == nil {
			err = checkResults(filepath.Join(r.Dir, results))
		}
		if err == nil {
			c.Status, c.Fatal = StatusDone, ""
			return r.manifest.write(r.Dir)
		}
		c.Status, c.Fatal = StatusFailed, res.fatalOr(err)
		if searchFound(filepath.Join(r.Dir, results)) {
			// No rate held the objective, or the search's time was too
			// short to say: a second search would say it again.
			r.say("%s failed: %s", run.ID, c.Fatal)
			return r.manifest.write(r.Dir)
		}
		if attempt == 0 && ctx.Err() == nil {
			r.say("%s failed (%s): trying once more", run.ID, c.Fatal)
		} else {
			r.say("%s failed again: %s", run.ID, c.Fatal)
		}
		if werr := r.manifest.write(r.Dir); werr != nil || ctx.Err() != nil {
			return werr
		}
	}
	return nil
}

// record sets a cell's outcome without running it.
func (r *Runner) record(run Run, status, fatal string) {
	c := r.manifest.cell(run.ID)
	c.Status, c.Fatal = status, fatal
	r.manifest.write(r.Dir)
}

// checkResults accepts a results file of a completed run, or of a
// capacity search that found its answer.
func checkResults(path string) error {
	res, err := report.ReadFile(path)
	if err != nil {
		return err
	}
	if c := res.Capacity; c != nil {
		if res.Exit.Reason != "completed" || c.Answer == nil {
			return fmt.Errorf("the capacity search ended %s: %s", res.Exit.Reason, c.Line)
		}
		return nil
	}
	if res.Exit.Reason != "completed" || res.Total == nil {
		return fmt.Errorf("the run ended %s", res.Exit.Reason)
	}
	return nil
}

// searchFound says whether a failed cell's results file is a capacity
// search's that ended on a finding of its own: no rate holds the
// objective, or its time is too small to say.
func searchFound(path string) bool {
	res, err := report.ReadFile(path)
	if err != nil || res.Capacity == nil {
		return false
	}
	o := res.Capacity.Outcome
	return o == "no_rate_holds" || o == "budget_too_small"
}

// childResult is how a child process ended.
type childResult struct {
	err       error
	fatal     string // the FATAL lines that say why it failed
	stopped   bool   // interrupted by Now
	wall, cpu time.Duration
}

func (c childResult) fatalOr(err error) string {
	if c.fatal != "" {
		return c.fatal
	}
	return err.Error()
}

// child runs this binary with args, its output to logs/logName (appended
// when again), in a process group of its own so that a terminal's SIGINT
// reaches the comparison, which decides, and not the cell.
func (r *Runner) child(ctx context.Context, args []string, logName string, again bool) childResult {
	path := filepath.Join(r.Dir, "logs", logName)
	flags := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if again {
		flags = os.O_CREATE | os.O_WRONLY | os.O_APPEND
	}
	log, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return childResult{err: fmt.Errorf("cannot write '%s': %v", path, report.PathCause(err))}
	}
	defer log.Close()
	fmt.Fprintf(log, "# %s %s\n", filepath.Base(r.Exe), strings.Join(report.RedactArgs(args), " "))
	cmd := exec.Command(r.Exe, args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return childResult{err: fmt.Errorf("cannot start %s: %v", r.Exe, report.PathCause(err))}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var res childResult
	select {
	case err = <-done:
	case <-r.Now:
		res.stopped = true
		syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
		err = <-done
	case <-ctx.Done():
		res.stopped = true
		syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
		err = <-done
	}
	res.wall = time.Since(start)
	if ps := cmd.ProcessState; ps != nil {
		res.cpu = ps.UserTime() + ps.SystemTime()
	}
	if err != nil {
		res.err = err
		res.fatal = failureCause(path)
	}
	return res
}

// failureCause is what a child's log says about why it failed: its first
// FATAL line that explains (with the failed query the drivers print after
// it), not the generic lines that follow it ("Thread initialization
// failed!"); the last FATAL line when all are generic, "" for none.
func failureCause(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var cause []string
	last := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "FATAL: ")
		if !ok {
			continue
		}
		last = line
		switch {
		case len(cause) == 0 && !genericFatal(line):
			cause = append(cause, line)
		case len(cause) == 1 && strings.HasPrefix(line, "failed query was:"):
			cause = append(cause, line)
		}
	}
	if len(cause) == 0 {
		cause = []string{last}
	}
	if cause[0] == "" {
		return ""
	}
	return "FATAL: " + strings.Join(cause, "; ")
}

// genericFatal is a FATAL line that says that something failed, not why:
// those a run prints after the line with the cause (a script function
// that failed on an SQL error the driver has printed above it).
func genericFatal(line string) bool {
	return line == "Thread initialization failed!" || strings.HasSuffix(line, ": SQL API error")
}

// progress prints which cell starts, its number and the time left.
func (r *Runner) progress(run Run, block int) {
	total, k := r.plan.Cells(), 0
	for _, b := range r.plan.Blocks {
		for _, x := range b.Runs {
			k++
			if x.ID == run.ID {
				cell := r.Matrix.cellSeconds()
				if r.ran > 0 {
					cell = r.ranSeconds / float64(r.ran)
				}
				left := r.plan.remaining(r.Matrix, r.Done, block, cell)
				r.say("cell %d of %d: round %d/%d, %s, %s, %s; about %s left", k, total, run.Round,
					r.Matrix.Rounds, run.Target, run.Workload, plural(run.Threads, "thread"), formatDuration(left))
				return
			}
		}
	}
}

func (r *Runner) say(format string, a ...any) {
	if r.Progress != nil {
		fmt.Fprintf(r.Progress, "compare: "+format+"\n", a...)
	}
}

// sleep waits d, false when ctx ends first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
