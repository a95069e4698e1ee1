package luaapi

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sysbench-go/sysbench-go/drivers"
)

// --trace=N: what the first N events of each thread send, statement by
// statement, as the server receives it (a prepared statement's text and
// the values bound to it; with --db-ps-mode=disable the text with the
// values in it), with the rows or the error it got and its latency, in
// order; then the mix of statements over the events traced. A worker's
// connections are wrapped only when the option is given, and a wrapper
// passes every call straight on once its thread has traced its events:
// a run without it has nothing more on its path.

// Trace is a run's --trace: where it writes, and the statements of the
// events traced, merged over the threads as they end.
type Trace struct {
	w      io.Writer
	events int
	mu     sync.Mutex // one thread's block at a time; the summary's merge
	// The summary: statements in the order first met, events traced and
	// the time they took.
	stmts      map[string]*tracedStatement
	order      []string
	traced     int
	eventNanos int64
	threads    int
}

// NewTrace traces the first events events of each thread to w.
func NewTrace(w io.Writer, events int) *Trace {
	return &Trace{w: w, events: events, stmts: map[string]*tracedStatement{}}
}

// tracedStatement is one statement's share of the events traced.
type tracedStatement struct {
	count, errors int
	nanos         int64
}

// threadTrace is one worker's trace.
type threadTrace struct {
	t       *Trace
	tid     int
	subst   bool // --db-ps-mode=disable: values go in the text
	dry     bool // a dry run: nothing is sent
	on      bool // tracing: thread_init, then the events up to t.events
	in      bool // in an event
	event   int  // 0 in thread_init
	start   time.Time
	block   []byte // the lines of the event (or thread_init) so far
	lines   int
	nanos   int64 // in statements, this event
	stmts   map[string]*tracedStatement
	order   []string
	traced  int
	evNanos int64
}

// newThreadTrace starts the trace of worker tid (its thread_init first).
func (t *Trace) newThreadTrace(tid int, cfg drivers.Config) *threadTrace {
	return &threadTrace{t: t, tid: tid, subst: cfg.PSMode == drivers.PSDisable, dry: cfg.DryRun, on: t.events > 0,
		stmts: map[string]*tracedStatement{}}
}

// traceConn wraps a connection of driver for the thread's trace.
func (tt *threadTrace) traceConn(conn drivers.Conn, driver string) drivers.Conn {
	d := drivers.DialectStandard
	if driver == "mysql" {
		d = drivers.DialectMySQL
	}
	return &tracedConn{Conn: conn, tt: tt, d: d}
}

// begin starts an event.
func (tt *threadTrace) begin() {
	if !tt.on {
		return
	}
	if tt.event == 0 {
		tt.flush(fmt.Sprintf("[trace] thread %d thread_init: %s, %s\n", tt.tid, plural(tt.lines, "statement"),
			millis(tt.nanos)))
	}
	tt.event++
	tt.in = true
	tt.start, tt.nanos, tt.lines = time.Now(), 0, 0
}

// end ends an event; err is how it ended, nil when it completed.
func (tt *threadTrace) end(err error) {
	if !tt.on || !tt.in {
		return
	}
	tt.in = false
	took := time.Since(tt.start).Nanoseconds()
	how := ""
	if err != nil {
		how = ", ended by " + err.Error()
	}
	tt.flush(fmt.Sprintf("[trace] thread %d event %d: %s, %s of %s%s\n", tt.tid, tt.event,
		plural(tt.lines, "statement"), millis(tt.nanos), millis(took), how))
	tt.traced++
	tt.evNanos += took
	if tt.event >= tt.t.events {
		tt.on = false
	}
}

// note adds a line of its own to the event's block.
func (tt *threadTrace) note(msg string) {
	if tt.on {
		tt.block = append(tt.block, "  ("+msg+")\n"...)
	}
}

// flush writes the block with its heading, as one write.
func (tt *threadTrace) flush(heading string) {
	if tt.lines == 0 && len(tt.block) == 0 && tt.event == 0 {
		return
	}
	out := make([]byte, 0, len(heading)+len(tt.block))
	out = append(append(out, heading...), tt.block...)
	tt.block = tt.block[:0]
	tt.t.mu.Lock()
	defer tt.t.mu.Unlock()
	_, _ = tt.t.w.Write(out)
}

// close merges the thread's statements into the run's summary.
func (tt *threadTrace) close() {
	switch {
	case tt.in:
		tt.end(errStoppedTracing)
	case tt.on && tt.event == 0:
		// A thread that ran no event: its thread_init still shows.
		tt.flush(fmt.Sprintf("[trace] thread %d thread_init: %s, %s (no event)\n", tt.tid,
			plural(tt.lines, "statement"), millis(tt.nanos)))
	}
	t := tt.t
	t.mu.Lock()
	defer t.mu.Unlock()
	if tt.traced == 0 {
		return
	}
	t.threads++
	t.traced += tt.traced
	t.eventNanos += tt.evNanos
	for _, k := range tt.order {
		s := tt.stmts[k]
		m, ok := t.stmts[k]
		if !ok {
			m = &tracedStatement{}
			t.stmts[k] = m
			t.order = append(t.order, k)
		}
		m.count += s.count
		m.errors += s.errors
		m.nanos += s.nanos
	}
}

// errStoppedTracing ends the block of an event the run stopped in.
var errStoppedTracing = fmt.Errorf("the end of the run")

// record adds a statement to the block: what ran, its text and values,
// what it gave, how long it took; key is the statement in the summary.
func (tt *threadTrace) record(d drivers.Dialect, what, key string, text []byte, res drivers.Result, rows [][]traceCell, err error, took time.Duration) {
	b := append(tt.block, "  "...)
	b = append(b, what...)
	b = append(b, ' ')
	b = append(b, text...)
	b = append(b, " -> "...)
	switch {
	case tt.dry:
		b = append(b, "not sent (dry run)"...)
	case err != nil:
		b = append(b, "error "...)
		if de := drivers.AsError(err); de != nil {
			b = append(b, de.Error()...)
		} else {
			b = append(b, err.Error()...)
		}
	case res == nil:
		b = append(b, "ok"...)
	case res.NFields() == 0:
		b = append(b, plural(int(res.NRows()), "row")...)
		b = append(b, " affected"...)
	default:
		b = append(b, plural(len(rows), "row")...)
		for i, r := range rows {
			if i == traceRows {
				b = append(b, ", ..."...)
				break
			}
			if i == 0 {
				b = append(b, ": "...)
			} else {
				b = append(b, ", "...)
			}
			b = append(b, '(')
			for j, c := range r {
				if j > 0 {
					b = append(b, ", "...)
				}
				if c.null {
					b = append(b, "NULL"...)
				} else {
					b = appendShort(b, c.b, d)
				}
			}
			b = append(b, ')')
		}
	}
	b = append(b, " ("...)
	b = append(b, millis(took.Nanoseconds())...)
	b = append(b, ")\n"...)
	tt.block = b
	tt.lines++
	if tt.event == 0 {
		tt.nanos += took.Nanoseconds()
		return // thread_init is not in the events' mix
	}
	tt.nanos += took.Nanoseconds()
	s, ok := tt.stmts[key]
	if !ok {
		s = &tracedStatement{}
		tt.stmts[key] = s
		tt.order = append(tt.order, key)
	}
	s.count++
	s.nanos += took.Nanoseconds()
	if err != nil {
		s.errors++
	}
}

// traceRows is how many rows of a result a line shows; traceValue, how
// many bytes of a value.
const (
	traceRows  = 3
	traceValue = 40
)

// appendShort appends a value as a literal, cut at traceValue bytes.
func appendShort(b, v []byte, d drivers.Dialect) []byte {
	if len(v) > traceValue {
		b = drivers.AppendQuoted(b, v[:traceValue], d)
		return append(b[:len(b)-1], "...'"...)
	}
	if _, err := strconv.ParseFloat(string(v), 64); err == nil {
		return append(b, v...)
	}
	return drivers.AppendQuoted(b, v, d)
}

func millis(ns int64) string { return fmt.Sprintf("%.3f ms", float64(ns)/1e6) }

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// traceCell is a value of a row a traced result gave.
type traceCell struct {
	b    []byte
	null bool
}

// WriteSummary writes the statement mix of the events traced: per
// statement, how many times an event ran it and its share of the
// events' time. Nothing when no event was traced.
func (t *Trace) WriteSummary() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.traced == 0 {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[trace] statement mix of %s (%s), %s in all:\n", plural(t.traced, "event"),
		plural(t.threads, "thread"), millis(t.eventNanos))
	fmt.Fprintf(&b, "  %9s %7s %7s  %s\n", "per event", "time", "errors", "statement")
	var in int64
	for _, k := range t.order { // in the order the events run them
		s := t.stmts[k]
		in += s.nanos
		fmt.Fprintf(&b, "  %9.2f %6.1f%% %7d  %s\n", float64(s.count)/float64(t.traced),
			share(s.nanos, t.eventNanos), s.errors, oneLine(k))
	}
	fmt.Fprintf(&b, "  %9s %6.1f%% %7s  (the script's own time: Lua, and the client between statements)\n", "",
		share(t.eventNanos-in, t.eventNanos), "")
	_, _ = io.WriteString(t.w, b.String())
}

func share(part, whole int64) float64 {
	if whole <= 0 {
		return 0
	}
	return 100 * float64(max(part, 0)) / float64(whole)
}

// oneLine is a statement's text on one line, its runs of white space one
// space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// tracedConn traces a worker's connection.
type tracedConn struct {
	drivers.Conn
	tt *threadTrace
	d  drivers.Dialect
}

var (
	_ drivers.BulkBatcher = (*tracedConn)(nil)
	_ drivers.BulkLoader  = (*tracedConn)(nil)
	_ drivers.Reopener    = (*tracedConn)(nil)
)

func (c *tracedConn) Query(ctx context.Context, q string) (drivers.Result, error) {
	if !c.tt.on {
		return c.Conn.Query(ctx, q)
	}
	t0 := time.Now()
	res, err := c.Conn.Query(ctx, q)
	took := time.Since(t0)
	res, rows := traceResult(res, err)
	c.tt.record(c.d, "query", drivers.Normalize(q, c.d), []byte(oneLine(q)), res, rows, err, took)
	return res, err
}

func (c *tracedConn) NextResult(ctx context.Context) (drivers.Result, error) {
	if !c.tt.on {
		return c.Conn.NextResult(ctx)
	}
	t0 := time.Now()
	res, err := c.Conn.NextResult(ctx)
	took := time.Since(t0)
	res, rows := traceResult(res, err)
	c.tt.record(c.d, "next_result", "(next result)", nil, res, rows, err, took)
	return res, err
}

func (c *tracedConn) Prepare(ctx context.Context, q string) (drivers.Stmt, error) {
	if !c.tt.on {
		st, err := c.Conn.Prepare(ctx, q)
		if err != nil {
			return nil, err
		}
		return &tracedStmt{Stmt: st, tt: c.tt, d: c.d, sql: q}, nil
	}
	t0 := time.Now()
	st, err := c.Conn.Prepare(ctx, q)
	c.tt.record(c.d, "prepare", q, []byte(oneLine(q)), nil, nil, err, time.Since(t0))
	if err != nil {
		return nil, err
	}
	return &tracedStmt{Stmt: st, tt: c.tt, d: c.d, sql: q}, nil
}

func (c *tracedConn) BulkBatchSize() int {
	if b, ok := c.Conn.(drivers.BulkBatcher); ok {
		return b.BulkBatchSize()
	}
	return bulkPacketSize
}

func (c *tracedConn) BulkInsert(ctx context.Context, q string) (drivers.Result, bool, error) {
	bl, ok := c.Conn.(drivers.BulkLoader)
	if !ok {
		return nil, false, nil
	}
	if !c.tt.on {
		return bl.BulkInsert(ctx, q)
	}
	t0 := time.Now()
	res, handled, err := bl.BulkInsert(ctx, q)
	if handled {
		text := oneLine(q)
		if len(text) > 200 {
			text = text[:200] + "..."
		}
		c.tt.record(c.d, "bulk insert", drivers.Normalize(q, c.d), []byte(text), res, nil, err, time.Since(t0))
	}
	return res, handled, err
}

func (c *tracedConn) Reopen(ctx context.Context) error { return drivers.Reopen(ctx, c.Conn) }

type tracedStmt struct {
	drivers.Stmt
	tt  *threadTrace
	d   drivers.Dialect
	sql string
}

func (s *tracedStmt) Execute(ctx context.Context, args []drivers.Value) (drivers.Result, error) {
	if !s.tt.on {
		return s.Stmt.Execute(ctx, args)
	}
	var text []byte
	if s.tt.subst {
		text, _ = drivers.Interpolate(nil, s.sql, args, s.d)
	}
	if text == nil {
		text = append(text, oneLine(s.sql)...)
		text = append(text, " -- ("...)
		for i := range args {
			if i > 0 {
				text = append(text, ", "...)
			}
			lit, err := drivers.AppendLiteral(nil, &args[i], s.d)
			if err != nil {
				lit = []byte(strconv.FormatFloat(args[i].Float, 'g', -1, 64))
			}
			if len(lit) > traceValue+2 {
				lit = append(lit[:traceValue+1], "...'"...)
			}
			text = append(text, lit...)
		}
		text = append(text, ')')
	}
	t0 := time.Now()
	res, err := s.Stmt.Execute(ctx, args)
	took := time.Since(t0)
	res, rows := traceResult(res, err)
	s.tt.record(s.d, "execute", s.sql, text, res, rows, err, took)
	return res, err
}

// traceResult reads a result set's rows for the trace and gives a result
// that replays them to the script.
func traceResult(res drivers.Result, err error) (drivers.Result, [][]traceCell) {
	if err != nil || res == nil || res.NFields() == 0 {
		return res, nil
	}
	var rows [][]traceCell
	n := res.NFields()
	for res.Next() {
		row := make([]traceCell, n)
		for i := range row {
			v, ok := res.Value(i)
			row[i] = traceCell{b: slices.Clone(v), null: !ok}
		}
		rows = append(rows, row)
	}
	return &replayedResult{Result: res, rows: rows}, rows
}

// replayedResult is a result whose rows the trace read.
type replayedResult struct {
	drivers.Result
	rows [][]traceCell
	i    int
}

func (r *replayedResult) Next() bool {
	if r.i >= len(r.rows) {
		return false
	}
	r.i++
	return true
}

func (r *replayedResult) Value(i int) ([]byte, bool) {
	c := r.rows[r.i-1][i]
	return c.b, !c.null
}
