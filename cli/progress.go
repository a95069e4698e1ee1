package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/sysbench-go/sysbench-go/engine"
	"github.com/sysbench-go/sysbench-go/metrics"
	"github.com/sysbench-go/sysbench-go/options"
)

// Progress of long work on a terminal (--progress): prepare's rows (per
// table and in all, their rate, the time left) and run's time, events and
// rate, drawn on standard error as a few lines redrawn in place, and only
// when standard error is a terminal unless --progress=on. Nothing of it
// ever goes to standard output, so the reference's output is unchanged;
// what the program writes while it is drawn (its own lines on either
// stream) erases it first and has it drawn again below.

// progressMode is --progress.
type progressMode int

const (
	progressAuto progressMode = iota // when standard error is a terminal
	progressOn
	progressOff
)

// parseProgress reads --progress: auto, on or off (or a boolean's other
// words, which setValue made on and off).
func parseProgress(v *options.Values) (progressMode, error) {
	switch s := v.String("progress"); strings.ToLower(strings.TrimSpace(s)) {
	case "auto":
		return progressAuto, nil
	case "on":
		return progressOn, nil
	case "off":
		return progressOff, nil
	default:
		return 0, fmt.Errorf("Invalid value for --progress: '%s' (auto, on or off)", s)
	}
}

// progressTick is how often the progress is drawn again.
const progressTick = 250 * time.Millisecond

// progressMaxTables is how many tables prepare's progress shows a line
// for; the others loading are counted on one more line.
const progressMaxTables = 4

// progressBoard is the lines of progress at the bottom of the terminal:
// drawn again every tick, erased before any other write to the terminal
// and drawn again after it, erased for good by close.
type progressBoard struct {
	mu   sync.Mutex
	term io.Writer // standard error
	// width is the terminal's columns (0: unknown): a line is cut to fit,
	// as a wrapped one could not be erased.
	width func() int
	shown []string // the lines on the terminal now
	// lines is what to draw; midLine says that the last write of the
	// program's own left the cursor inside a line: nothing is drawn until
	// that line ends.
	lines   []string
	midLine bool
	// quietUntil: after a write to a pipe, the reader gets a tick's time
	// to show it before the progress is drawn again.
	quietUntil time.Time
	closed     bool
	stop       chan struct{}
	done       chan struct{}
}

// newProgressBoard starts drawing on term what lines returns, every tick
// (nil or no lines: nothing).
func newProgressBoard(term io.Writer, lines func(now time.Time) []string) *progressBoard {
	b := &progressBoard{term: term, width: func() int { return 0 }, stop: make(chan struct{}), done: make(chan struct{})}
	if f, ok := term.(*os.File); ok {
		b.width = func() int { return terminalWidth(f) }
	}
	go func() {
		defer close(b.done)
		t := time.NewTicker(progressTick)
		defer t.Stop()
		for {
			select {
			case <-b.stop:
				return
			case now := <-t.C:
				b.draw(now, lines(now))
			}
		}
	}()
	return b
}

// draw shows lines in place of what is shown.
func (b *progressBoard) draw(now time.Time, lines []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.lines = lines
	if b.midLine || now.Before(b.quietUntil) {
		return
	}
	var buf strings.Builder
	b.erase(&buf)
	b.put(&buf)
	io.WriteString(b.term, buf.String())
}

// erase writes what erases the lines shown, leaving the cursor where the
// first was. Caller holds mu.
func (b *progressBoard) erase(buf *strings.Builder) {
	if len(b.shown) == 0 {
		return
	}
	buf.WriteString("\r\x1b[K")
	for range len(b.shown) - 1 {
		buf.WriteString("\x1b[A\x1b[K")
	}
	b.shown = nil
}

// put writes the lines to draw, the cursor left at the end of the last.
// Caller holds mu.
func (b *progressBoard) put(buf *strings.Builder) {
	width := b.width()
	for i, l := range b.lines {
		if i > 0 {
			buf.WriteByte('\n')
		}
		if width > 1 && utf8.RuneCountInString(l) > width-1 {
			l = string([]rune(l)[:width-1])
		}
		buf.WriteString(l)
	}
	b.shown = b.lines
}

// guard is w, written through the board: the progress is erased before
// each write and drawn again after one that ends a line, at once when w
// is the board's terminal, at the next tick when later is set: w is a
// pipe whose reader may show what it gets on the same terminal (| tee),
// a moment after the write.
func (b *progressBoard) guard(w io.Writer, later bool) io.Writer { return boardWriter{b, w, later} }

type boardWriter struct {
	b     *progressBoard
	w     io.Writer
	later bool
}

func (g boardWriter) Write(p []byte) (int, error) {
	b := g.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return g.w.Write(p)
	}
	if len(b.shown) > 0 {
		var buf strings.Builder
		b.erase(&buf)
		io.WriteString(b.term, buf.String())
	}
	n, err := g.w.Write(p)
	if g.later {
		b.quietUntil = time.Now().Add(progressTick)
		return n, err
	}
	if len(p) > 0 {
		b.midLine = p[len(p)-1] != '\n'
	}
	if !b.midLine && len(b.lines) > 0 {
		var buf strings.Builder
		b.put(&buf)
		io.WriteString(b.term, buf.String())
	}
	return n, err
}

// close stops drawing and erases the progress, leaving last in its place
// when it is not "" (a line of its own).
func (b *progressBoard) close(last string) {
	close(b.stop)
	<-b.done
	b.mu.Lock()
	defer b.mu.Unlock()
	var buf strings.Builder
	b.erase(&buf)
	if last != "" {
		if b.midLine {
			buf.WriteByte('\n')
		}
		buf.WriteString(last + "\n")
	}
	io.WriteString(b.term, buf.String())
	b.closed = true
}

// progressShown says whether --progress draws on this standard error.
func (p *program) progressShown(spec *runSpec) bool {
	switch spec.progress {
	case progressOff:
		return false
	case progressAuto:
		f, ok := p.stderr.(*os.File)
		return ok && isTerminal(f)
	}
	return true
}

// startProgress starts drawing lines on standard error, with the
// program's output written through it until the returned function stops
// it. The caller asked progressShown.
func (p *program) startProgress(lines func(now time.Time) []string, last func(now time.Time) string) (stop func()) {
	b := newProgressBoard(p.stderr, lines)
	stderr, out := p.stderr, p.out.destination()
	p.stderr = b.guard(stderr, false)
	// What goes to standard output goes through the board too, untouched:
	// on the board's terminal the board is drawn again at once below it;
	// through a pipe that may end on that terminal (| tee) at the next
	// tick, after the reader showed it.
	f, ok := out.(*os.File)
	p.out.redirect(b.guard(out, out != stderr && !(ok && isTerminal(f))))
	return func() {
		final := ""
		if last != nil {
			final = last(time.Now())
		}
		b.close(final)
		p.stderr = stderr
		if p.out.destination() != out {
			p.out.redirect(out)
		}
	}
}

// rate is a count's rate over the last few seconds of samples.
type rate struct {
	window  time.Duration
	samples []rateSample
	// moving is when the count first went above 0 (zero before).
	moving time.Time
}

// settled says whether the rate has been measured long enough to predict
// from (the first rows of a table arrive in one batch, after a while).
func (r *rate) settled(now time.Time) bool {
	return !r.moving.IsZero() && now.Sub(r.moving) >= progressSettle
}

// progressSettle is how long a count moves before its rate gives a time
// left.
const progressSettle = 2 * time.Second

// newRate is the rate of a count that was 0 at start, over window.
func newRate(start time.Time, window time.Duration) *rate {
	return &rate{window: window, samples: []rateSample{{start, 0}}}
}

type rateSample struct {
	at time.Time
	n  int64
}

// add records the count n at now and returns its rate per second over the
// window (since the first sample, while it is shorter); 0 before two
// samples.
func (r *rate) add(now time.Time, n int64) float64 {
	if n > 0 && r.moving.IsZero() {
		r.moving = now
	}
	r.samples = append(r.samples, rateSample{now, n})
	cut := 0
	for cut < len(r.samples)-2 && now.Sub(r.samples[cut+1].at) >= r.window {
		cut++
	}
	r.samples = r.samples[cut:]
	first := r.samples[0]
	if d := now.Sub(first.at); d > 0 {
		return float64(n-first.n) / d.Seconds()
	}
	return 0
}

// prepareProgress is a command's progress (prepare's): its rows, from
// what the script's bulk inserts sent (luaapi.Env.Rows).
type prepareProgress struct {
	command string
	rows    *metrics.Rows
	start   time.Time
	rate    *rate
	queries *rate
	// perTable: each table's rate, for its time left.
	perTable map[string]*rate
}

func newPrepareProgress(command string, rows *metrics.Rows, start time.Time) *prepareProgress {
	return &prepareProgress{command: command, rows: rows, start: start, rate: newRate(start, 5*time.Second),
		queries: newRate(start, 5*time.Second), perTable: map[string]*rate{}}
}

// progressDelay is how long a command runs before its progress shows: a
// short one shows none.
const progressDelay = 500 * time.Millisecond

// lines are the progress at now: a line per table loading (at most
// progressMaxTables) when there are several, and one for the whole.
func (pp *prepareProgress) lines(now time.Time) []string {
	if now.Sub(pp.start) < progressDelay {
		return nil
	}
	t := pp.rows.Tally()
	done, planned := t.Done(), t.Planned()
	perSecond := pp.rate.add(now, done)
	if done == 0 && planned == 0 {
		if t.Queries == 0 {
			return nil
		}
		// A script that loads with plain queries: those, and their rate.
		return []string{fmt.Sprintf("%s: %d queries, %.0f queries/s, %s", pp.command, t.Queries, pp.queries.add(now, t.Queries), shortDuration(now.Sub(pp.start)))}
	}
	var out []string
	loading, finished := 0, 0
	for _, tb := range t.Tables {
		r := pp.perTable[tb.Name]
		if r == nil {
			r = newRate(pp.start, 5*time.Second)
			pp.perTable[tb.Name] = r
		}
		tr := r.add(now, tb.Done)
		switch {
		case tb.Planned > 0 && tb.Done >= tb.Planned:
			finished++
			continue
		case tb.Done == 0 || tb.Planned == 0 && tr == 0:
			continue // not started, or no more rows coming
		}
		loading++
		if loading > progressMaxTables || len(t.Tables) < 2 {
			continue
		}
		line := fmt.Sprintf("  %s: %d", tb.Name, tb.Done)
		if tb.Planned > 0 {
			line += fmt.Sprintf(" of %d rows (%.0f%%)", tb.Planned, percent(tb.Done, tb.Planned))
		} else {
			line += " rows"
		}
		line += fmt.Sprintf(", %.0f rows/s", tr)
		if left := timeLeft(tb.Planned-tb.Done, tr); tb.Planned > 0 && left != "" && r.settled(now) {
			line += ", " + left
		}
		out = append(out, line)
	}
	if more := loading - progressMaxTables; more > 0 && len(t.Tables) >= 2 {
		out = append(out, fmt.Sprintf("  and %d more tables loading", more))
	}
	total := fmt.Sprintf("%s: %d", pp.command, done)
	switch {
	case planned > 0 && done >= planned:
		total = fmt.Sprintf("%s: all %d rows loaded, %s", pp.command, planned, shortDuration(now.Sub(pp.start)))
	case planned > 0:
		total += fmt.Sprintf(" of %d rows (%.0f%%), %.0f rows/s", planned, percent(done, planned), perSecond)
		if left := timeLeft(planned-done, perSecond); left != "" && pp.rate.settled(now) {
			total += ", " + left
		}
	default:
		total += fmt.Sprintf(" rows, %.0f rows/s, %s", perSecond, shortDuration(now.Sub(pp.start)))
	}
	if tables := len(t.Tables); tables > 1 && planned > 0 {
		total += fmt.Sprintf("; %d of %d tables done", finished, tables)
	}
	return append(out, total)
}

// summary is what the command loaded, when it ends: "prepare: 20000 of
// 20000 rows loaded into 2 tables in 3s, 6667 rows/s" ("" for no rows).
func (pp *prepareProgress) summary(now time.Time) string {
	t := pp.rows.Tally()
	done, planned := t.Done(), t.Planned()
	if done == 0 {
		return ""
	}
	took := now.Sub(pp.start)
	line := fmt.Sprintf("%s: %d", pp.command, done)
	if planned > 0 {
		line += fmt.Sprintf(" of %d", planned)
	}
	line += " rows loaded into " + plural(int64(len(t.Tables)), "table") + " in " + shortDuration(took)
	if took > 0 {
		line += fmt.Sprintf(", %.0f rows/s", float64(done)/took.Seconds())
	}
	return line
}

// runProgress is a run's progress: its time, events and rate, from the
// engine's live view once the workers start.
type runProgress struct {
	mu      sync.Mutex
	view    engine.LiveView
	started time.Time
	rate    *rate
	// warming: the warm-up was on at the last tick; base is the events
	// counted before the measured window, which the report leaves out.
	warming bool
	base    int64
}

// attach is given the running benchmark (engine.Config.Live) as its
// workers start.
func (rp *runProgress) attach(v engine.LiveView) {
	rp.mu.Lock()
	rp.view, rp.started = v, time.Now()
	rp.mu.Unlock()
}

// lines is the run's line at now: "run: 12 of 60 s, 48213 events, 4021
// events/s"; none before the workers start.
func (rp *runProgress) lines(now time.Time) []string {
	rp.mu.Lock()
	v, started := rp.view, rp.started
	rp.mu.Unlock()
	if v == nil {
		return nil
	}
	c := v.Clock()
	events := int64(v.Totals().Counters[metrics.CntEvent])
	if rp.rate == nil {
		rp.rate = newRate(started, 2*time.Second)
	}
	perSecond := rp.rate.add(now, events)
	if rp.warming && !c.Warmup {
		// The measured window began since the last tick: its events
		// count from about here, as the report's do.
		rp.base = events
	}
	rp.warming = c.Warmup
	events -= rp.base
	line := "run: "
	if c.Warmup {
		line += "warm-up "
	}
	elapsed := int64(c.Elapsed / time.Second)
	if c.Length > 0 {
		// The events running when the time is up end after it.
		elapsed = min(elapsed, int64(c.Length/time.Second))
	}
	switch {
	case c.Length > 0 && c.WarmupAuto:
		line += fmt.Sprintf("%d s (at most %d, until steady)", elapsed, int64(c.Length/time.Second))
	case c.Length > 0:
		line += fmt.Sprintf("%d of %d s", elapsed, int64(c.Length/time.Second))
	default:
		line += fmt.Sprintf("%d s", elapsed)
	}
	if c.Events > 0 {
		line += fmt.Sprintf(", %d of %d events", events, c.Events)
	} else {
		line += fmt.Sprintf(", %d events", events)
	}
	line += fmt.Sprintf(", %.0f events/s", perSecond)
	return []string{line}
}

func percent(n, of int64) float64 {
	if of <= 0 {
		return 0
	}
	return min(100, 100*float64(n)/float64(of))
}

// timeLeft is "about 2m05s left" for left items at perSecond, "" when
// that says nothing yet.
func timeLeft(left int64, perSecond float64) string {
	if left <= 0 || perSecond <= 0 {
		return ""
	}
	return "about " + shortDuration(time.Duration(float64(left)/perSecond*float64(time.Second))) + " left"
}

// shortDuration is "8s", "2m05s", "1h02m".
func shortDuration(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm", s/3600, s%3600/60)
}
