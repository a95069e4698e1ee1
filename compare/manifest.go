package compare

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/sysbench-go/sysbench-go/report"
)

// ManifestVersion is the version of manifest.json's format.
const ManifestVersion = 1

// ManifestFile is the manifest's name in a comparison's directory.
const ManifestFile = "manifest.json"

// Manifest is a comparison directory's index: the design (so that the
// report needs no matrix file), every cell's state and where its results
// file and log are.
type Manifest struct {
	SchemaVersion int            `json:"schema_version"`
	Tool          string         `json:"tool"`
	Matrix        string         `json:"matrix"`
	Created       time.Time      `json:"created"`
	Updated       time.Time      `json:"updated"`
	Design        Design         `json:"design"`
	Cells         []CellState    `json:"cells"`
	Prepares      []PrepareState `json:"prepares"`
	// Tables are the tables this comparison created (or was allowed to
	// replace), per target: its later cleanups may drop them again.
	Tables []OwnedTables `json:"tables,omitempty"`
}

// OwnedTables are the tables a comparison created on a target.
type OwnedTables struct {
	Target string   `json:"target"`
	Tables []string `json:"tables"`
}

// Design is what the report needs of the matrix.
type Design struct {
	Title     string         `json:"title"`
	Rate      string         `json:"rate"`
	Rounds    int            `json:"rounds"`
	Threads   []int          `json:"threads"`
	Workloads []string       `json:"workloads"`
	Targets   []DesignTarget `json:"targets"`
	TimeS     int            `json:"time_s"`
	WarmupS   int            `json:"warmup_s"`
	CooldownS int            `json:"cooldown_s"`
	Rotate    bool           `json:"rotate"`
	Prepare   string         `json:"prepare"`
	// Capacity is a capacity matrix's search (nil for cells at a fixed
	// load).
	Capacity *CapacityDesign `json:"capacity,omitempty"`
}

// CapacityDesign is what the report says of a capacity matrix's search.
type CapacityDesign struct {
	Objective []string `json:"objective"`
	TimeS     int      `json:"time_s"`
}

// DesignTarget is a target as the report names it.
type DesignTarget struct {
	Name   string `json:"name"`
	Driver string `json:"driver"`
	// ServerVersion is what the reachability check found.
	ServerVersion string `json:"server_version,omitempty"`
}

// CellState is one cell's record.
type CellState struct {
	ID       string `json:"id"`
	Target   string `json:"target"`
	Workload string `json:"workload"`
	Threads  int    `json:"threads"`
	Round    int    `json:"round"`
	// Fingerprint identifies the arguments the cell ran with.
	Fingerprint string    `json:"fingerprint"`
	Status      string    `json:"status"`
	Attempts    int       `json:"attempts"`
	Fatal       string    `json:"fatal,omitempty"`
	Results     string    `json:"results,omitempty"` // relative to the directory
	Log         string    `json:"log,omitempty"`
	Start       time.Time `json:"start,omitzero"`
	End         time.Time `json:"end,omitzero"`
	// WallS and ClientCPUS are the child's wall-clock and CPU (user +
	// system) seconds.
	WallS      float64 `json:"wall_s"`
	ClientCPUS float64 `json:"client_cpu_s"`
}

// PrepareState is one data set's cleanup and prepare on a target.
type PrepareState struct {
	Target  string    `json:"target"`
	Dataset string    `json:"dataset"`
	Round   int       `json:"round"`
	Status  string    `json:"status"`
	Fatal   string    `json:"fatal,omitempty"`
	Log     string    `json:"log"`
	At      time.Time `json:"at"`
	WallS   float64   `json:"wall_s"`
}

// designOf is the matrix's design for the manifest.
func designOf(m *Matrix) Design {
	d := Design{Title: m.Title, Rate: m.Rate, Rounds: m.Rounds, Threads: m.Threads, TimeS: m.Time,
		WarmupS: m.Warmup, CooldownS: m.Cooldown, Rotate: m.Rotate, Prepare: m.Prepare}
	if c := m.Capacity; c != nil {
		d.Capacity = &CapacityDesign{Objective: c.SLO, TimeS: c.Time}
	}
	for _, w := range m.Workloads {
		d.Workloads = append(d.Workloads, w.Name)
	}
	for _, t := range m.Targets {
		d.Targets = append(d.Targets, DesignTarget{Name: t.Name, Driver: t.Driver})
	}
	return d
}

// ReadManifest reads DIR/manifest.json; os.ErrNotExist when there is none.
func ReadManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, ManifestFile)
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("cannot read '%s': %v", path, report.PathCause(err))
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("'%s' is not a comparison manifest: %v", path, err)
	}
	if m.SchemaVersion != ManifestVersion {
		return nil, fmt.Errorf("'%s': manifest version %d is not read by this program (it reads %d)", path, m.SchemaVersion, ManifestVersion)
	}
	return &m, nil
}

// write replaces the manifest atomically.
func (m *Manifest) write(dir string) error {
	m.Updated = time.Now().UTC()
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(dir, ManifestFile)
	if err := report.WriteAtomic(path, append(b, '\n')); err != nil {
		return fmt.Errorf("cannot write '%s': %w", path, err)
	}
	return nil
}

// cell is the record of id, nil for none.
func (m *Manifest) cell(id string) *CellState {
	for i := range m.Cells {
		if m.Cells[i].ID == id {
			return &m.Cells[i]
		}
	}
	return nil
}

// Done says whether a cell finished.
func (m *Manifest) Done(id string) bool {
	c := m.cell(id)
	return c != nil && c.Status == StatusDone
}

// owns says whether this comparison created table on target (false for
// a nil manifest: a new comparison owns nothing).
func (m *Manifest) owns(target, table string) bool {
	if m == nil {
		return false
	}
	for _, o := range m.Tables {
		if o.Target == target && hasTable(o.Tables, table) {
			return true
		}
	}
	return false
}

// own records tables as created by this comparison on target.
func (m *Manifest) own(target string, tables []string) {
	i := slices.IndexFunc(m.Tables, func(o OwnedTables) bool { return o.Target == target })
	for _, t := range tables {
		if i < 0 {
			m.Tables = append(m.Tables, OwnedTables{Target: target})
			i = len(m.Tables) - 1
		}
		if !hasTable(m.Tables[i].Tables, t) {
			m.Tables[i].Tables = append(m.Tables[i].Tables, t)
		}
	}
}

// prepared says whether a data set was prepared on a target (in round, or
// in any round when round is 0).
func (m *Manifest) prepared(target, dataset string, round int) bool {
	for _, p := range m.Prepares {
		if p.Target == target && p.Dataset == dataset && p.Status == StatusDone && (round == 0 || p.Round == round) {
			return true
		}
	}
	return false
}
