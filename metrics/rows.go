package metrics

import (
	"sync"
	"sync/atomic"
)

// Rows counts what a command such as prepare loads, for its progress:
// the rows each worker's bulk inserts sent, by table, the queries it ran,
// and the rows the script said it would load (Plan). Each worker adds to
// counters of its own (RowsHandle), with no lock on the way; a reader
// totals them now and then (Tally).
type Rows struct {
	mu      sync.Mutex
	handles []*RowsHandle
	planned map[string]int64
	order   []string // tables in the order first planned or loaded
}

// NewRows is an empty count.
func NewRows() *Rows { return &Rows{planned: map[string]int64{}} }

// RowsHandle is one worker's counts. Only its worker adds to them.
type RowsHandle struct {
	rows    *Rows
	queries atomic.Int64
	// mu guards tables: taken when the worker starts loading a table it
	// had not loaded before, and by Tally.
	mu     sync.Mutex
	tables []*TableRows
}

// TableRows is a worker's count of the rows it loaded into one table.
type TableRows struct {
	name string
	n    atomic.Int64
}

// Add counts n rows the server took.
func (t *TableRows) Add(n int) { t.n.Add(int64(n)) }

// Handle is a new worker's counts.
func (r *Rows) Handle() *RowsHandle {
	h := &RowsHandle{rows: r}
	r.mu.Lock()
	r.handles = append(r.handles, h)
	r.mu.Unlock()
	return h
}

// Plan says that the command loads rows rows into table in all (every
// worker together). Saying it again replaces the number: every worker may
// say the whole plan.
func (r *Rows) Plan(table string, rows int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.planned[table]; !ok {
		r.see(table)
	}
	r.planned[table] = max(rows, 0)
}

// see keeps the order tables appear in. Caller holds r.mu.
func (r *Rows) see(table string) {
	for _, t := range r.order {
		if t == table {
			return
		}
	}
	r.order = append(r.order, table)
}

// Table is the worker's counter of rows loaded into table, made the first
// time the worker loads into it.
func (h *RowsHandle) Table(name string) *TableRows {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, t := range h.tables {
		if t.name == name {
			return t
		}
	}
	t := &TableRows{name: name}
	h.tables = append(h.tables, t)
	h.rows.mu.Lock()
	h.rows.see(name)
	h.rows.mu.Unlock()
	return t
}

// Query counts a query the worker ran.
func (h *RowsHandle) Query() { h.queries.Add(1) }

// TableTally is one table's rows loaded so far and planned (0: not said).
type TableTally struct {
	Name    string
	Done    int64
	Planned int64
}

// RowsTally is the counts of every worker together.
type RowsTally struct {
	// Tables in the order they were first planned or loaded into.
	Tables  []TableTally
	Queries int64
}

// Done is the rows loaded into every table so far.
func (t RowsTally) Done() int64 {
	var n int64
	for _, tb := range t.Tables {
		n += tb.Done
	}
	return n
}

// Planned is the rows the plan says all tables get, 0 when a table
// was loaded with no plan for it, or there is no plan.
func (t RowsTally) Planned() int64 {
	var n int64
	for _, tb := range t.Tables {
		if tb.Planned == 0 && tb.Done > 0 {
			return 0
		}
		n += tb.Planned
	}
	return n
}

// Tally totals the workers' counts.
func (r *Rows) Tally() RowsTally {
	r.mu.Lock()
	handles := r.handles
	out := RowsTally{Tables: make([]TableTally, len(r.order))}
	index := make(map[string]int, len(r.order))
	for i, name := range r.order {
		out.Tables[i] = TableTally{Name: name, Planned: r.planned[name]}
		index[name] = i
	}
	r.mu.Unlock()
	for _, h := range handles {
		out.Queries += h.queries.Load()
		h.mu.Lock()
		for _, t := range h.tables {
			if i, ok := index[t.name]; ok {
				out.Tables[i].Done += t.n.Load()
			}
		}
		h.mu.Unlock()
	}
	return out
}
