package compare

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"
)

// TableLister lists the tables of a target's database (the schema its
// runs use), for the check before any cleanup or prepare.
type TableLister func(ctx context.Context, t *TargetSpec) ([]string, error)

// TableUse is what one data set's cleanup and prepare do on a target's
// tables, found without acting: Drops are the tables its cleanup drops
// (if they exist) and its prepare creates again, from a dry run of the
// cleanup; Known is false when the script does not say which.
type TableUse struct {
	Target  string
	Dataset string
	Drops   []string
	Known   bool
	// Existing are the tables of the target's database now.
	Existing []string
	// Built says that the comparison built the data set on the target
	// already and, with prepare = "once", does not again.
	Built bool
	// Foreign are the tables at risk that this comparison did not create:
	// those of Drops that exist or, when the script does not say which it
	// drops, every table of the database.
	Foreign []string
	// Missing are, with prepare = "none", the tables of Drops that do not
	// exist.
	Missing []string
	// Unmade are the tables the data set's workloads use that neither its
	// prepare creates nor exist ("workload: table"): their cells would fail.
	Unmade []string
}

// droppingLine is how a script's cleanup says which table it drops (the
// bundled scripts' words, as sysbench's own).
var droppingLine = regexp.MustCompile(`^Dropping table '([^']+)'`)

// DatasetTables are the tables a data set's cleanup drops on a target,
// from the cleanup run with --db-dry-run (no statement reaches the
// server); known is false when the script does not say which (it printed
// none, or its cleanup cannot run without a server).
func (m *Matrix) DatasetTables(ctx context.Context, exe string, t *TargetSpec, d Dataset) (tables []string, known bool) {
	tables = dryRunDrops(ctx, exe, m.prepareArgs(t, d, "cleanup"))
	return tables, len(tables) > 0
}

// workloadTables are the tables a workload's runs use on a target: those
// its script's cleanup would drop with the run's options (at the largest
// thread count), from a dry run.
func (m *Matrix) workloadTables(ctx context.Context, exe string, t *TargetSpec, w *Workload) []string {
	a := m.runArgs(t, w, slices.Max(m.Threads))
	return dryRunDrops(ctx, exe, append(a[:len(a)-1:len(a)-1], "cleanup"))
}

// dryRunDrops runs a cleanup (args end with "cleanup") with --db-dry-run
// and returns the tables it says it drops, in the bundled scripts' words
// (sysbench's own): none when it says nothing or fails.
func dryRunDrops(ctx context.Context, exe string, args []string) []string {
	a := append(args[:len(args)-1:len(args)-1], "--db-dry-run=on", "cleanup")
	out, err := exec.CommandContext(ctx, exe, a...).Output()
	if err != nil {
		return nil
	}
	var tables []string
	for _, l := range strings.Split(string(out), "\n") {
		if s := droppingLine.FindStringSubmatch(l); s != nil && !slices.Contains(tables, s[1]) {
			tables = append(tables, s[1])
		}
	}
	return tables
}

// TableUses finds, per target and data set, what the comparison's
// cleanups and prepares would drop and create, and what of it exists and
// was not created by this comparison (the manifest man of its directory,
// nil for a new one, records what it created). exe is this binary.
func (m *Matrix) TableUses(ctx context.Context, exe string, list TableLister, man *Manifest) ([]TableUse, error) {
	return m.tableUsesOf(ctx, exe, list, man, m.usedDatasets()...)
}

func (m *Matrix) tableUsesOf(ctx context.Context, exe string, list TableLister, man *Manifest, datasets ...Dataset) ([]TableUse, error) {
	var out []TableUse
	for i := range m.Targets {
		t := &m.Targets[i]
		existing, err := list(ctx, t)
		if err != nil {
			return nil, m.at(fmt.Sprintf("target.%d", i), "target %q: cannot list its tables: %v", t.Name, err)
		}
		for _, d := range datasets {
			drops, known := m.DatasetTables(ctx, exe, t, d)
			u := TableUse{Target: t.Name, Dataset: d.Name, Drops: drops, Known: known, Existing: existing,
				Built: m.Prepare == PrepareOnce && man != nil && man.prepared(t.Name, d.Name, 0)}
			var atRisk []string
			switch {
			case u.Built: // not prepared again: nothing dropped
			case known:
				for _, name := range drops {
					if hasTable(existing, name) {
						atRisk = append(atRisk, name)
					} else {
						u.Missing = append(u.Missing, name)
					}
				}
			default:
				atRisk = existing
			}
			for _, name := range atRisk {
				if !man.owns(t.Name, name) {
					u.Foreign = append(u.Foreign, name)
				}
			}
			m.checkWorkloadTables(ctx, exe, t, &u)
			out = append(out, u)
		}
	}
	return out, nil
}

// checkWorkloadTables finds the tables the workloads on u's data set use
// that will not be there: a cell that would fail on "no such table" is
// seen before anything runs.
func (m *Matrix) checkWorkloadTables(ctx context.Context, exe string, t *TargetSpec, u *TableUse) {
	built := u.Known && m.Prepare != PrepareNone && !u.Built
	for i := range m.Workloads {
		w := &m.Workloads[i]
		if m.datasetOf(w).Name != u.Dataset {
			continue
		}
		for _, name := range m.workloadTables(ctx, exe, t, w) {
			if !(built && hasTable(u.Drops, name)) && !hasTable(u.Existing, name) {
				u.Unmade = append(u.Unmade, w.Name+": "+name)
			}
		}
	}
}

// hasTable compares names as the servers fold unquoted ones: PostgreSQL
// lists them in lower case, MariaDB as created.
func hasTable(tables []string, name string) bool {
	return slices.ContainsFunc(tables, func(s string) bool { return strings.EqualFold(s, name) })
}

// usedDatasets are the data sets the workloads run on, each once, in the
// workloads' order.
func (m *Matrix) usedDatasets() []Dataset {
	var out []Dataset
	for _, w := range m.Workloads {
		d := m.datasetOf(&w)
		if !slices.ContainsFunc(out, func(x Dataset) bool { return x.Name == d.Name }) {
			out = append(out, d)
		}
	}
	return out
}

// Refusal is the one line that refuses a comparison which would drop
// tables it did not create, naming them per target; nil when there are
// none, or the matrix allows it (replace_existing). With prepare = "none"
// nothing is dropped: then it names the tables the data sets need and
// that are missing.
func (m *Matrix) Refusal(uses []TableUse) error {
	var unmade []string
	for _, u := range uses {
		if len(u.Unmade) > 0 {
			unmade = append(unmade, fmt.Sprintf("%s: %s", u.Target, strings.Join(u.Unmade, ", ")))
		}
	}
	if len(unmade) > 0 {
		return fmt.Errorf("compare: workloads use tables that their data set does not create and that do not exist (%s): give the data set the workloads' table options",
			strings.Join(unmade, "; "))
	}
	if m.Prepare == PrepareNone {
		var missing []string
		for _, u := range uses {
			if len(u.Missing) > 0 {
				missing = append(missing, fmt.Sprintf("%s: %s", u.Target, strings.Join(u.Missing, ", ")))
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("compare: prepare = \"none\" but tables the data sets use are missing on %s (prepare = \"once\" builds them)",
				strings.Join(missing, "; "))
		}
		return nil
	}
	if m.ReplaceExisting {
		return nil
	}
	var parts []string
	for _, t := range m.Targets {
		var names []string
		for _, u := range uses {
			if u.Target == t.Name {
				for _, n := range u.Foreign {
					if !slices.Contains(names, n) {
						names = append(names, n)
					}
				}
			}
		}
		if len(names) > 0 {
			parts = append(parts, fmt.Sprintf("%s: %s", t.Name, strings.Join(names, ", ")))
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return fmt.Errorf("compare: refusing to drop tables this comparison did not create (%s): replace_existing = true in the matrix or --replace-existing allows it, prepare = \"none\" uses them as they are",
		strings.Join(parts, "; "))
}

// WriteTables prints, per target, the tables each data set's cleanup
// drops and its prepare creates, and which exist already.
func WriteTables(w interface{ Write([]byte) (int, error) }, m *Matrix, uses []TableUse) {
	fmt.Fprintf(w, "Tables (prepare: %s):\n", m.Prepare)
	for _, u := range uses {
		switch {
		case m.Prepare == PrepareNone && u.Known:
			fmt.Fprintf(w, "  %s, data set %s: uses %s as they are (drops and creates none)", u.Target, u.Dataset, strings.Join(u.Drops, ", "))
			if len(u.Missing) > 0 {
				fmt.Fprintf(w, "; missing: %s", strings.Join(u.Missing, ", "))
			}
		case m.Prepare == PrepareNone:
			fmt.Fprintf(w, "  %s, data set %s: uses its tables as they are (drops and creates none; its script does not say which)", u.Target, u.Dataset)
		case u.Built:
			fmt.Fprintf(w, "  %s, data set %s: built by this comparison already (drops and creates none)", u.Target, u.Dataset)
		case u.Known:
			fmt.Fprintf(w, "  %s, data set %s: drops (where they exist) and creates %s", u.Target, u.Dataset, strings.Join(u.Drops, ", "))
		default:
			fmt.Fprintf(w, "  %s, data set %s: its script does not say which tables it drops and creates: any table of the database is at risk", u.Target, u.Dataset)
		}
		if m.Prepare != PrepareNone && len(u.Foreign) > 0 {
			what := "refused"
			if m.ReplaceExisting {
				what = "replaced (replace_existing)"
			}
			fmt.Fprintf(w, "; not created by this comparison: %s (%s)", strings.Join(u.Foreign, ", "), what)
		}
		if len(u.Unmade) > 0 {
			fmt.Fprintf(w, "; workloads' tables neither created nor existing: %s", strings.Join(u.Unmade, ", "))
		}
		fmt.Fprintln(w)
	}
}
