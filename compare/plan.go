package compare

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"strconv"
	"strings"
	"time"
)

// Run is one cell of the matrix: a workload at a thread count on a target,
// in one round.
type Run struct {
	ID       string
	Target   string
	Workload string
	Dataset  string
	Threads  int
	Round    int // from 1
	// Args are the child's arguments but --results.
	Args []string
}

// Block is one target's turn in a round: its cells run back to back, and
// a cool-down separates it from the next block of another target (with
// rotation, a round can begin with the target the last one ended with:
// then there is no switch, no cool-down and no each-switch prepare).
type Block struct {
	Round  int
	Target string
	Runs   []Run
}

// Plan is the matrix's cells in run order.
type Plan struct {
	Blocks []Block
}

// CellID names a cell in the directory: target.workload.tN.rR.
func CellID(target, workload string, threads, round int) string {
	return fmt.Sprintf("%s.%s.t%d.r%d", target, workload, threads, round)
}

// NewPlan orders the cells: round by round; in each round the targets in
// the file's order, moved by one place per round when rotating; in each
// target's turn the workloads in order and, for each, the thread counts.
func NewPlan(m *Matrix) *Plan {
	p := &Plan{}
	n := len(m.Targets)
	for r := 1; r <= m.Rounds; r++ {
		for i := range n {
			k := i
			if m.Rotate {
				k = (i + r - 1) % n
			}
			t := &m.Targets[k]
			b := Block{Round: r, Target: t.Name}
			for _, w := range m.Workloads {
				for _, th := range m.Threads {
					b.Runs = append(b.Runs, Run{ID: CellID(t.Name, w.Name, th, r), Target: t.Name,
						Workload: w.Name, Dataset: m.datasetOf(&w).Name, Threads: th, Round: r,
						Args: m.runArgs(t, &w, th)})
				}
			}
			p.Blocks = append(p.Blocks, b)
		}
	}
	return p
}

// Cells counts the plan's cells.
func (p *Plan) Cells() int {
	n := 0
	for _, b := range p.Blocks {
		n += len(b.Runs)
	}
	return n
}

// datasetOf is the data set a workload runs on: its named one, else its
// own script and options.
func (m *Matrix) datasetOf(w *Workload) Dataset {
	if d := m.dataset(w.Dataset); d != nil {
		return *d
	}
	return Dataset{Name: w.Name, Script: w.Script, Options: w.Options}
}

// datasetNamed is the data set of that name: a [[dataset]], or the one of
// the workload of that name.
func (m *Matrix) datasetNamed(name string) Dataset {
	for _, w := range m.Workloads {
		if d := m.datasetOf(&w); d.Name == name {
			return d
		}
	}
	return Dataset{Name: name}
}

// script is how a child names a script: a bundled name as it is, a file
// by its path from the matrix file's directory.
func (m *Matrix) script(s string, bundled bool) string {
	if bundled {
		return s
	}
	return m.ScriptPath(s)
}

// runArgs are a cell's arguments but --results: the script, the target's
// driver options, then the matrix's, the data set's and the workload's
// options (a later one wins), then what the matrix sets itself; the last
// is the command, run (or capacity, for a capacity matrix's search).
func (m *Matrix) runArgs(t *TargetSpec, w *Workload, threads int) []string {
	opts := maps.Clone(m.Options)
	if opts == nil {
		opts = map[string]any{}
	}
	d := m.datasetOf(w)
	maps.Copy(opts, d.Options)
	maps.Copy(opts, w.Options)
	out := append([]string{m.script(w.Script, m.isBundled(w.Script))}, m.TargetArgs(t)...)
	out = append(out, args(opts)...)
	if c := m.Capacity; c != nil {
		out = append(out, fmt.Sprintf("--threads=%d", threads))
		for _, e := range c.SLO {
			out = append(out, "--slo="+e)
		}
		out = append(out, fmt.Sprintf("--capacity-time=%d", c.Time))
		if c.Rounds > 0 {
			out = append(out, fmt.Sprintf("--capacity-rounds=%d", c.Rounds))
		}
		if c.Precision > 0 {
			out = append(out, "--capacity-precision="+strconv.FormatFloat(c.Precision, 'f', -1, 64))
		}
		return append(out, "capacity")
	}
	out = append(out, fmt.Sprintf("--threads=%d", threads), fmt.Sprintf("--time=%d", m.Time),
		fmt.Sprintf("--warmup-time=%d", m.Warmup), "--report-interval=1")
	if m.ServerStats {
		out = append(out, "--server-stats=on")
	}
	return append(out, "run")
}

// prepareArgs are the arguments of a data set's cleanup or prepare on a
// target (command "cleanup" or "prepare").
func (m *Matrix) prepareArgs(t *TargetSpec, d Dataset, command string) []string {
	opts := maps.Clone(m.Options)
	if opts == nil {
		opts = map[string]any{}
	}
	maps.Copy(opts, d.Options)
	script := m.script(d.Script, m.isBundled(d.Script))
	out := append([]string{script}, m.TargetArgs(t)...)
	out = append(out, args(opts)...)
	if command == "cleanup" && m.ReplaceExisting && m.ForceCleanup != nil && m.ForceCleanup(script) {
		out = append(out, "--force-cleanup=on")
	}
	return append(out, fmt.Sprintf("--threads=%d", m.PrepareThreads), command)
}

func (m *Matrix) isBundled(script string) bool { return m.bundled != nil && m.bundled(script) }

// fingerprint identifies what a cell runs, so that a resumed comparison
// keeps a finished cell only when the matrix still runs it the same way.
func fingerprint(args []string) string {
	h := sha256.Sum256([]byte(strings.Join(args, "\x00")))
	return hex.EncodeToString(h[:8])
}

// Kept says which cells a resume keeps from the manifest of an earlier
// run: those done with the arguments the plan gives them.
func (p *Plan) Kept(man *Manifest) func(id string) bool {
	keep := map[string]bool{}
	for _, b := range p.Blocks {
		for _, r := range b.Runs {
			if c := man.cell(r.ID); c != nil && c.Status == StatusDone && c.Fingerprint == fingerprint(r.Args) {
				keep[r.ID] = true
			}
		}
	}
	return func(id string) bool { return keep[id] }
}

// cellSeconds is a cell's expected length: warm-up, run, and the start-up
// and results around them.
func (m *Matrix) cellSeconds() float64 {
	if m.Capacity != nil {
		return float64(m.Capacity.Time) + 1
	}
	return float64(m.Warmup+m.Time) + 1
}

// WritePlan prints the run order and how long it takes, marking the cells
// a resumed comparison keeps.
func (p *Plan) WritePlan(w io.Writer, m *Matrix, done func(id string) bool) {
	total, pending := p.Cells(), 0
	cell := fmt.Sprintf("%ds (warm-up %ds)", m.Time, m.Warmup)
	if c := m.Capacity; c != nil {
		cell = fmt.Sprintf("capacity searches of up to %ds (objective %s)", c.Time, strings.Join(c.SLO, ", "))
	}
	fmt.Fprintf(w, "Plan: %d targets × %d workloads × %d thread counts × %d rounds = %d cells of %s, prepare: %s\n",
		len(m.Targets), len(m.Workloads), len(m.Threads), m.Rounds, total, cell, m.Prepare)
	k := 0
	for i, b := range p.Blocks {
		if i > 0 && m.Cooldown > 0 && p.Blocks[i-1].Target != b.Target {
			fmt.Fprintf(w, "  cool-down %ds\n", m.Cooldown)
		}
		fmt.Fprintf(w, "  round %d, %s:\n", b.Round, b.Target)
		for _, r := range b.Runs {
			k++
			mark := ""
			if done(r.ID) {
				mark = "  (done, kept)"
			} else {
				pending++
			}
			fmt.Fprintf(w, "    %3d. %s%s\n", k, r.ID, mark)
		}
	}
	fmt.Fprintf(w, "%d cells to run: about %s (cool-downs included, prepares not).\n", pending,
		formatDuration(p.remaining(m, done, 0, m.cellSeconds())))
}

// remaining estimates the time the cells not done take from block index
// from, at cell seconds each: their runs and the cool-downs between the
// blocks that have some, where the target changes.
func (p *Plan) remaining(m *Matrix, done func(string) bool, from int, cell float64) time.Duration {
	sec, last := 0.0, ""
	for _, b := range p.Blocks[from:] {
		n := 0
		for _, r := range b.Runs {
			if !done(r.ID) {
				n++
			}
		}
		if n > 0 {
			sec += float64(n) * cell
			if last != "" && last != b.Target {
				sec += float64(m.Cooldown)
			}
			last = b.Target
		}
	}
	return time.Duration(sec * float64(time.Second))
}

func formatDuration(d time.Duration) string {
	d = d.Round(time.Second)
	h, mnt, s := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	switch {
	case h > 0:
		return fmt.Sprintf("%dh%02dm", h, mnt)
	case mnt > 0:
		return fmt.Sprintf("%dm%02ds", mnt, s)
	}
	return fmt.Sprintf("%ds", s)
}
