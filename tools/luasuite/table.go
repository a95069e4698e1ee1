package main

import (
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
)

// The tables are Markdown, so that docs/compatibility.md can take them as
// printed.

// tally counts one row of the LuaJIT suite's table.
type tally struct {
	blocks, luajit, sysbench int
	ref, ours                int // the reference's passes, and ours among them
	notPromised              int // among the reference's passes
	oursPromised             int // ours among the reference's promised passes
}

func (t *tally) add(r Result, impls map[string]Impl) {
	t.blocks++
	if r.passes("luajit") {
		t.luajit++
	}
	if r.passes("sysbench") {
		t.sysbench++
	}
	if !r.referencePasses(impls) {
		return
	}
	t.ref++
	ours := r.passes("ours")
	if ours {
		t.ours++
	}
	if r.Category != "" {
		t.notPromised++
	} else if ours {
		t.oursPromised++
	}
}

// referenceName is the column ours is measured against.
func referenceName(impls map[string]Impl) string {
	if impls["sysbench"].Path == "" {
		return "luajit"
	}
	return "sysbench"
}

// column prints an implementation's count, or "-" when it did not run.
func column(impls map[string]Impl, name string, n int) string {
	if impls[name].Path == "" {
		return "-"
	}
	return fmt.Sprint(n)
}

// printLuaJITRows prints the LuaJIT suite's table with one row per key
// (a directory or a file) and a total.
func printLuaJITRows(w io.Writer, cfg config, rs []Result, key func(Result) string) {
	rows := map[string]*tally{}
	var keys []string
	var total tally
	for _, r := range rs {
		if r.Suite != "luajit" || !r.Ran() {
			continue
		}
		k := key(r)
		if rows[k] == nil {
			rows[k] = &tally{}
			keys = append(keys, k)
		}
		rows[k].add(r, cfg.impls)
		total.add(r, cfg.impls)
	}
	sort.Strings(keys)
	ref := referenceName(cfg.impls)
	t := table{header: []string{"tests", "blocks", "luajit", "sysbench",
		"ours of " + ref + "'s", "not promised", "ours of the promised"}}
	line := func(name string, c *tally) {
		t.rows = append(t.rows, []string{name, fmt.Sprint(c.blocks),
			column(cfg.impls, "luajit", c.luajit), column(cfg.impls, "sysbench", c.sysbench),
			fmt.Sprintf("%d/%d", c.ours, c.ref), fmt.Sprint(c.notPromised),
			fmt.Sprintf("%d/%d", c.oursPromised, c.ref-c.notPromised)})
	}
	for _, k := range keys {
		line(k, rows[k])
	}
	line("**total**", &total)
	t.print(w)
}

// printLuaJITTable prints the LuaJIT suite's table by directory, what the
// plan left out, and what is not promised, with the reasons.
func printLuaJITTable(w io.Writer, cfg config, rs []Result) {
	ran, deselected := 0, map[string]int{}
	for _, r := range rs {
		if r.Ran() {
			ran++
		} else {
			deselected[r.Deselect]++
		}
	}
	fmt.Fprintf(w, "### LuaJIT test suite: %d blocks run", ran)
	if len(deselected) > 0 {
		fmt.Fprintf(w, " (not selected by their metadata: %s)", countList(deselected))
	}
	fmt.Fprint(w, "\n\n")
	printLuaJITRows(w, cfg, rs, func(r Result) string {
		if d := path.Dir(r.File); d != "." {
			return d
		}
		return r.File // the files at the top are rows of their own
	})
	printNotPromised(w, cfg, rs)
}

// printNotPromised lists the blocks the reference passes that are not
// promised, by reason, with how many of them each file holds.
func printNotPromised(w io.Writer, cfg config, rs []Result) {
	type group struct {
		category, reason string
		n                int
		files            map[string]int
	}
	var groups []*group
	byReason := map[string]*group{}
	for _, r := range rs {
		if !r.Ran() || r.Category == "" || !r.referencePasses(cfg.impls) {
			continue
		}
		g := byReason[r.Reason]
		if g == nil {
			g = &group{category: r.Category, reason: r.Reason, files: map[string]int{}}
			byReason[r.Reason] = g
			groups = append(groups, g)
		}
		g.n++
		g.files[r.File]++
	}
	if len(groups) == 0 {
		return
	}
	fmt.Fprintf(w, "\nNot promised, among the blocks %s passes (tools/luasuite/notpromised.go):\n\n", referenceName(cfg.impls))
	for _, g := range groups {
		fmt.Fprintf(w, "- %s: %s: %d (%s)\n", g.category, g.reason, g.n, countList(g.files))
	}
}

// printLua51Table prints the Lua 5.1 suite's table, one row per file, and
// the first error line of each failure.
func printLua51Table(w io.Writer, cfg config, rs []Result) {
	impls := []string{"lua5.1", "luajit", "sysbench", "ours"}
	t := table{header: append([]string{"file"}, impls...)}
	var failures, skipped []string
	counts := map[string]int{}
	ran, refPass, oursOfRef := 0, 0, 0
	for _, r := range rs {
		if r.Suite != "lua5.1" || !r.Selected {
			continue
		}
		if r.Skip != "" {
			t.rows = append(t.rows, []string{r.File, "not run"})
			skipped = append(skipped, fmt.Sprintf("- %s: %s", r.File, r.Skip))
			continue
		}
		ran++
		row := []string{r.File}
		for _, im := range impls {
			o := r.Outcomes[im]
			row = append(row, string(o.Status))
			if o.Status == Pass {
				counts[im]++
			} else if o.Status != NotRun {
				failures = append(failures, fmt.Sprintf("- %s, %s: %s", r.File, im, o.Error))
			}
		}
		if r.referencePasses(cfg.impls) {
			refPass++
			if r.passes("ours") {
				oursOfRef++
			}
		}
		t.rows = append(t.rows, row)
	}
	total := []string{"**total**"}
	for _, im := range impls {
		total = append(total, column(cfg.impls, im, counts[im])+fmt.Sprintf("/%d", ran))
	}
	t.rows = append(t.rows, total)
	fmt.Fprintf(w, "\n### Lua 5.1 test suite: %d files run; sysbench-go passes %d of the %d that lua5.1 and %s pass\n\n",
		ran, oursOfRef, refPass, referenceName(cfg.impls))
	t.print(w)
	if len(skipped) > 0 {
		fmt.Fprint(w, "\nNot run:\n\n", strings.Join(skipped, "\n"), "\n")
	}
	if len(failures) > 0 {
		fmt.Fprint(w, "\nFirst error lines:\n\n", strings.Join(failures, "\n"), "\n")
	}
}

// countList prints counts by name: "+slow 1, -run 12".
func countList(m map[string]int) string {
	var names []string
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// table is a Markdown table with padded columns; a row with fewer cells
// than the header has its last cell spread over the rest.
type table struct {
	header []string
	rows   [][]string
}

func (t table) print(w io.Writer) {
	width := make([]int, len(t.header))
	for _, row := range append([][]string{t.header}, t.rows...) {
		for i, c := range row {
			width[i] = max(width[i], len(c))
		}
	}
	cells := func(row []string) {
		var b strings.Builder
		for i, c := range row {
			if len(row) < len(t.header) && i == len(row)-1 {
				fmt.Fprintf(&b, "| %s ", c)
				b.WriteString(strings.Repeat("| ", len(t.header)-len(row)))
				break
			}
			fmt.Fprintf(&b, "| %-*s ", width[i], c)
		}
		fmt.Fprintln(w, b.String()+"|")
	}
	cells(t.header)
	sep := make([]string, len(t.header))
	for i := range sep {
		sep[i] = strings.Repeat("-", width[i])
	}
	cells(sep)
	for _, row := range t.rows {
		cells(row)
	}
}
