package compare

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// table is one side-by-side table: rows of workloads (or settings),
// a column per target.
type table struct {
	title  string
	marked bool // whether it marks the best
	header []string
	rows   [][]string
	best   [][]bool // marked cells, by row and column
}

// figure is one of the figures the tables show, in text, Markdown and
// HTML alike.
type figure struct {
	caption string
	// always shows its table even when no group has the figure.
	always bool
	// agg reads it of a group: nil when the group lacks it.
	agg func(*Group) *Agg
	// text and html format a value for the text and the HTML tables.
	text, html func(float64) string
	// best is how the best is marked (nil: not marked).
	best func(*Group) bool
	// spread shows the spread across rounds in the text tables.
	spread bool
	// detail is more of it for the HTML tooltip (nil: none).
	detail func(*Group) string
	// note is said beside the median in every table (nil: nothing): a
	// capacity search's interval.
	note func(*Group) string
}

// Rate names: the throughput the tables show.
const (
	RateTPS = "tps"
	RateQPS = "qps"
)

// Bytes-per-transaction kinds beside the kinds --server-stats reads
// (wal_bytes, binlog_bytes, data_bytes): their sum.
const BytesTotal = "total"

func (s *Summary) figures() []figure {
	rate := strings.ToUpper(s.Rate)
	fixed := func(prec int) func(float64) string {
		return func(v float64) string { return strconv.FormatFloat(v, 'f', prec, 64) }
	}
	clientCPU := figure{caption: "client CPU (%, 100 = one core)",
		agg: func(g *Group) *Agg {
			if g.ClientCPUPct.N == 0 {
				return nil
			}
			return &g.ClientCPUPct
		}, text: fixed(0), html: htmlPercent}
	if c := s.Capacity; c != nil {
		return []figure{
			{caption: "capacity: TPS sustained within " + strings.Join(c.Objective, ", ") + ", median of the rounds (spread: (max - min) / median; one round: its 95% interval)",
				always: true, spread: true, agg: func(g *Group) *Agg { a := g.Rate(s.Rate); return &a },
				text: fixed(1), html: htmlNumber, best: func(g *Group) bool { return g.BestRate }, note: capacityInterval},
			{caption: "p95 latency (ms) at the capacity (its confirming rounds: each target at its own rate), median of the rounds", always: true, spread: true,
				agg: func(g *Group) *Agg { return &g.P95MS }, text: fixed(2), html: htmlNumber},
			{caption: "saturation: TPS offered at which the server fell behind (the closed-model probe's throughput when no step did)",
				agg: func(g *Group) *Agg {
					if g.Capacity == nil || g.Capacity.Saturation.N == 0 {
						return nil
					}
					return &g.Capacity.Saturation
				}, text: fixed(1), html: htmlNumber},
			clientCPU,
		}
	}
	return []figure{
		{caption: rate + ", median of the rounds (spread: (max - min) / median)", always: true, spread: true,
			agg:  func(g *Group) *Agg { a := g.Rate(s.Rate); return &a },
			text: fixed(1), html: htmlNumber, best: func(g *Group) bool { return g.BestRate }},
		{caption: "p95 latency (ms), median of the rounds", always: true, spread: true,
			agg:  func(g *Group) *Agg { return &g.P95MS },
			text: fixed(2), html: htmlNumber, best: func(g *Group) bool { return g.BestP95 }},
		{caption: "server CPU (%, average over the run; 100 = one core)",
			agg: func(g *Group) *Agg { return g.ServerCPUPct }, text: fixed(0), html: htmlPercent},
		{caption: "server memory (peak PSS)",
			agg: func(g *Group) *Agg { return g.PeakMemoryBytes }, text: mebibytes, html: htmlBytes},
		{caption: "bytes written per transaction (WAL/redo + binary log + data files)",
			agg: bytesTotal, text: fixed(0), html: htmlBytes, detail: htmlBytesDetail},
		clientCPU,
	}
}

// capacityInterval is a capacity search's 95% interval, for a group of
// one round ("" otherwise: the spread says how the rounds differ).
func capacityInterval(g *Group) string {
	if g.Capacity == nil || len(g.Capacity.Intervals) != 1 {
		return ""
	}
	iv := g.Capacity.Intervals[0]
	return fmt.Sprintf("95%% CI %.1f-%.1f", iv[0], iv[1])
}

func mebibytes(v float64) string { return fmt.Sprintf("%.0f MiB", v/(1<<20)) }

// bytesTotal is a group's bytes written per transaction in all.
func bytesTotal(g *Group) *Agg {
	if a, ok := g.BytesPerTrx[BytesTotal]; ok {
		return &a
	}
	return nil
}

// tables are the summary's tables: for each thread count, each figure
// that some group has; then the targets' settings side by side.
func (s *Summary) tables() []table {
	var out []table
	header := []string{"workload"}
	for _, t := range s.Targets {
		header = append(header, t.Name)
	}
	for _, th := range s.Threads {
		if vt := s.verdictTable(th); len(vt.rows) > 0 {
			out = append(out, vt)
		}
		for _, f := range s.figures() {
			tb := table{title: fmt.Sprintf("%s: %s", plural(th, "thread"), f.caption), header: header, marked: f.best != nil}
			present := false
			for _, w := range s.Workloads {
				row, marks := []string{w}, []bool{false}
				for _, t := range s.Targets {
					cell, mark := "-", false
					if g := s.group(w, th, t.Name); g != nil && g.Rounds > 0 {
						if a := f.agg(g); a != nil && a.N > 0 {
							cell, present = s.formatAgg(*a, f), true
							if f.note != nil {
								if n := f.note(g); n != "" {
									cell += " (" + n + ")"
								}
							}
							mark = f.best != nil && f.best(g)
						}
					}
					row, marks = append(row, cell), append(marks, mark)
				}
				tb.rows, tb.best = append(tb.rows, row), append(tb.best, marks)
			}
			if present || f.always {
				out = append(out, tb)
			}
		}
	}
	if st := s.settingsTable(); len(st.rows) > 0 {
		out = append(out, st)
	}
	return out
}

// verdictTable is, at threads, which target leads on each workload's
// rate and p95 and the verdict on its lead over the next.
func (s *Summary) verdictTable(threads int) table {
	rate := strings.ToUpper(s.Rate)
	if c := s.Capacity; c != nil {
		tb := table{title: fmt.Sprintf("%s: verdicts (%s): the target with the higher median capacity against the next, its change with a 95%% confidence interval over the rounds, or with one round the searches' own intervals", plural(threads, "thread"), verdictWords()),
			header: []string{"workload", "higher capacity within " + strings.Join(c.Objective, ", ")}}
		for _, w := range s.Workloads {
			if r := s.verdictOf(w, threads, s.Rate); r != nil {
				tb.rows = append(tb.rows, []string{w, r.Text()})
				tb.best = append(tb.best, make([]bool, 2))
			}
		}
		return tb
	}
	tb := table{title: fmt.Sprintf("%s: verdicts (%s): the leading target by median against the next, its change with a 95%% confidence interval", plural(threads, "thread"), verdictWords()),
		header: []string{"workload", "higher " + rate, "lower p95"}}
	for _, w := range s.Workloads {
		r, p := s.verdictOf(w, threads, s.Rate), s.verdictOf(w, threads, FigureP95)
		if r == nil || p == nil {
			continue
		}
		tb.rows = append(tb.rows, []string{w, r.Text(), p.Text()})
		tb.best = append(tb.best, make([]bool, 3))
	}
	return tb
}

// formatAgg is a median with its spread, and how many rounds it is of
// when fewer than the design's.
func (s *Summary) formatAgg(a Agg, f figure) string {
	out := f.text(a.Median)
	if a.N > 1 && f.spread {
		out += fmt.Sprintf(" (%.1f%%)", a.SpreadPct)
	}
	if a.N < s.Rounds {
		out += fmt.Sprintf(" [%d/%d rounds]", a.N, s.Rounds)
	}
	return out
}

// settingsTable lists every setting read on some target, one column per
// target, the server version first.
func (s *Summary) settingsTable() table {
	tb := table{title: "server settings", header: []string{"setting"}}
	for _, t := range s.Targets {
		tb.header = append(tb.header, t.Name)
	}
	names := s.settingNames()
	if len(names) == 0 {
		return tb
	}
	version := []string{"server version"}
	for _, t := range s.Targets {
		version = append(version, cmp.Or(t.ServerVersion, "-"))
	}
	tb.rows = append(tb.rows, version)
	for _, n := range names {
		row := []string{n}
		for _, t := range s.Targets {
			v, _ := setting(t, n)
			row = append(row, cmp.Or(settingText(n, v), "-"))
		}
		tb.rows = append(tb.rows, row)
	}
	tb.best = make([][]bool, len(tb.rows))
	for i := range tb.best {
		tb.best[i] = make([]bool, len(tb.header))
	}
	return tb
}

// sizeSettings are the settings whose values are sizes: MySQL's and
// MariaDB's in bytes, PostgreSQL's with its units (kB, MB, GB, TB: of
// 1024).
var sizeSettings = map[string]bool{"innodb_buffer_pool_size": true, "innodb_log_file_size": true,
	"innodb_redo_log_capacity": true, "shared_buffers": true, "max_wal_size": true, "min_wal_size": true,
	"wal_buffers": true, "work_mem": true, "effective_cache_size": true}

// settingText shows a setting's value as a person reads it: a size in
// binary units, whichever engine wrote it ("128 MiB" for 134217728 and
// for PostgreSQL's 128MB); others as the server said.
func settingText(name, value string) string {
	if !sizeSettings[name] {
		return value
	}
	num := strings.TrimRight(value, "kKMGTB")
	n, err := strconv.ParseFloat(num, 64)
	if err != nil || num == "" {
		return value
	}
	switch strings.TrimPrefix(value, num) {
	case "":
	case "B":
	case "kB":
		n *= 1 << 10
	case "MB":
		n *= 1 << 20
	case "GB":
		n *= 1 << 30
	case "TB":
		n *= 1 << 40
	default:
		return value
	}
	return sizeText(n)
}

// sizeText is a size in binary units, whole where it is: "1 GiB",
// "96 MiB", "1.50 KiB".
func sizeText(n float64) string {
	div, unit := binaryUnit(n)
	if n /= div; n == math.Trunc(n) {
		return strconv.FormatFloat(n, 'f', 0, 64) + " " + unit
	}
	return htmlNumber(n) + " " + unit
}

// settingNames are the settings read on any target, in the order first
// read, but the server's version (a row of its own).
func (s *Summary) settingNames() []string {
	var names []string
	for _, t := range s.Targets {
		for _, st := range t.Settings {
			if !slices.Contains(names, st.Name) && st.Name != "version" && st.Name != "server_version" {
				names = append(names, st.Name)
			}
		}
	}
	return names
}

// WriteText prints the summary as aligned text tables.
func (s *Summary) WriteText(w io.Writer) {
	s.writeHead(w, false)
	for _, tb := range s.tables() {
		title := tb.title
		if tb.marked {
			title += "; * best"
		}
		fmt.Fprintf(w, "\n%s\n", title)
		widths := make([]int, len(tb.header))
		for i, h := range tb.header {
			widths[i] = utf8.RuneCountInString(h)
		}
		cells := make([][]string, len(tb.rows))
		for r, row := range tb.rows {
			cells[r] = make([]string, len(row))
			for c, v := range row {
				if tb.best[r][c] {
					v += " *"
				}
				cells[r][c] = v
				widths[c] = max(widths[c], utf8.RuneCountInString(v))
			}
		}
		writeRow(w, tb.header, widths)
		for _, row := range cells {
			writeRow(w, row, widths)
		}
	}
	s.writeTail(w, false)
}

func writeRow(w io.Writer, cells []string, widths []int) {
	var b strings.Builder
	b.WriteString("  ")
	for i, c := range cells {
		b.WriteString(c)
		if i < len(cells)-1 {
			b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)+2))
		}
	}
	fmt.Fprintln(w, b.String())
}

// WriteMarkdown prints the summary as Markdown tables, the best in bold.
func (s *Summary) WriteMarkdown(w io.Writer) {
	s.writeHead(w, true)
	for _, tb := range s.tables() {
		title := mdEscape(tb.title)
		if tb.marked {
			title += "; best in bold"
		}
		fmt.Fprintf(w, "\n**%s**\n\n", title)
		fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(mdRow(tb.header), " | "), strings.Repeat("---|", len(tb.header)))
		for r, row := range tb.rows {
			cells := mdRow(row)
			for c := range cells {
				if tb.best[r][c] {
					cells[c] = "**" + cells[c] + "**"
				}
			}
			fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
		}
	}
	s.writeTail(w, true)
}

func mdRow(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = mdEscape(c)
	}
	return out
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "*", `\*`, "_", `\_`, "<", "&lt;").Replace(s)
}

func (s *Summary) writeHead(w io.Writer, md bool) {
	done, failed := s.counts()
	line := fmt.Sprintf("%s: %d targets, %d workloads, threads %s, %d rounds; %d of %d cells done",
		s.Title, len(s.Targets), len(s.Workloads), joinInts(s.Threads), s.Rounds, done, len(s.Cells))
	if failed > 0 {
		line += fmt.Sprintf(", %d failed", failed)
	}
	if md {
		fmt.Fprintf(w, "### %s\n", mdEscape(line))
		return
	}
	fmt.Fprintln(w, line)
}

func (s *Summary) writeTail(w io.Writer, md bool) {
	bullet := func(format string, a ...any) {
		line := fmt.Sprintf(format, a...)
		if md {
			line = mdEscape(line)
		}
		fmt.Fprintf(w, "  - %s\n", line)
	}
	if len(s.Warnings) > 0 {
		fmt.Fprintf(w, "\nWarnings:\n")
		for _, wn := range s.Warnings {
			bullet("%s", wn.Message)
		}
	}
	var failed []Cell
	for _, c := range s.Cells {
		if c.Status == StatusFailed || c.Status == StatusInterrupted {
			failed = append(failed, c)
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(w, "\nCells not done:\n")
		for _, c := range failed {
			bullet("%s: %s: %s", c.ID, c.Status, c.Fatal)
		}
	}
}

// counts are the cells done and failed.
func (s *Summary) counts() (done, failed int) {
	for _, c := range s.Cells {
		switch c.Status {
		case StatusDone:
			done++
		case StatusFailed:
			failed++
		}
	}
	return done, failed
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func joinInts(v []int) string {
	parts := make([]string, len(v))
	for i, n := range v {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, ", ")
}
