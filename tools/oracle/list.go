package main

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// Difference is one deliberate difference from the reference: what the
// harness accepts in which cases, why, and the case that shows it.
type Difference struct {
	ID    string `toml:"id"`
	Title string `toml:"title"`
	// Reason says why a user would choose it (markdown).
	Reason string `toml:"reason"`
	// Known, when set, says the difference is not one we chose but one
	// being fixed, and where (an issue, a branch): it is listed apart.
	Known string `toml:"known"`
	// Show is the case that shows it: it must differ so, or the entry is
	// stale.
	Show string `toml:"show"`
	// Cases are the cases it may occur in (globs, * matching any text);
	// default: Show alone.
	Cases []string `toml:"cases"`
	// Where says what differs, stream by stream.
	Where []*Rule `toml:"where"`

	cases []*regexp.Regexp
}

// Rule is what a difference looks like in one stream.
type Rule struct {
	// Stream is "stdout", "stderr" or "exit".
	Stream string `toml:"stream"`
	// Ref and Ours match what only the reference and only we print
	// (regular expressions over a whole normalized line; for "exit",
	// over the status). Empty matches nothing on that side.
	Ref  string `toml:"ref"`
	Ours string `toml:"ours"`
	// Pair: a line only the reference prints and one only we print are
	// the same line said differently when both match and their
	// submatches are equal (a position named another way).
	Pair bool `toml:"pair"`

	ref, ours *regexp.Regexp
}

// list is the file of deliberate differences.
type list struct {
	Differences []*Difference `toml:"difference"`
}

// readList reads and checks the list.
func readList(path string) (*list, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var l list
	dec := toml.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	ids := map[string]bool{}
	for _, d := range l.Differences {
		if d.ID == "" || ids[d.ID] {
			return nil, fmt.Errorf("%s: an entry without an id, or id %q twice", path, d.ID)
		}
		ids[d.ID] = true
		if d.Title == "" || d.Reason == "" || d.Show == "" || len(d.Where) == 0 {
			return nil, fmt.Errorf("%s: %s: title, reason, show and where are required", path, d.ID)
		}
		globs := d.Cases
		if len(globs) == 0 {
			globs = []string{d.Show}
		}
		for _, g := range globs {
			d.cases = append(d.cases, regexp.MustCompile("^"+strings.ReplaceAll(regexp.QuoteMeta(g), `\*`, ".*")+"$"))
		}
		if !d.covers(d.Show) {
			return nil, fmt.Errorf("%s: %s: its cases do not include its show case %s", path, d.ID, d.Show)
		}
		for _, w := range d.Where {
			if !slices.Contains([]string{"stdout", "stderr", "exit"}, w.Stream) {
				return nil, fmt.Errorf("%s: %s: stream must be stdout, stderr or exit", path, d.ID)
			}
			if w.Ref == "" && w.Ours == "" || (w.Pair || w.Stream == "exit") && (w.Ref == "" || w.Ours == "") {
				return nil, fmt.Errorf("%s: %s: ref and ours must say what differs (both for a pair and an exit status)", path, d.ID)
			}
			for _, p := range []struct {
				src string
				re  **regexp.Regexp
			}{{w.Ref, &w.ref}, {w.Ours, &w.ours}} {
				if p.src == "" {
					continue
				}
				re, err := regexp.Compile("^(?:" + p.src + ")$")
				if err != nil {
					return nil, fmt.Errorf("%s: %s: %w", path, d.ID, err)
				}
				*p.re = re
			}
		}
	}
	return &l, nil
}

func (d *Difference) covers(name string) bool {
	for _, re := range d.cases {
		if re.MatchString(name) {
			return true
		}
	}
	return false
}

// account removes from onlyRef and onlyOurs the lines d accounts for in
// case name's stream and says whether it accounted for any.
func (d *Difference) account(name, stream string, onlyRef, onlyOurs *[]string) bool {
	if !d.covers(name) {
		return false
	}
	used := false
	for _, w := range d.Where {
		if w.Stream == stream && w.account(onlyRef, onlyOurs) {
			used = true
		}
	}
	return used
}

// accountExit says whether d accounts for the exit statuses ref and ours
// of case name.
func (d *Difference) accountExit(name, ref, ours string) bool {
	if !d.covers(name) {
		return false
	}
	for _, w := range d.Where {
		if w.Stream == "exit" && w.ref.MatchString(ref) && w.ours.MatchString(ours) {
			return true
		}
	}
	return false
}

func (w *Rule) account(onlyRef, onlyOurs *[]string) bool {
	used := false
	if w.Pair {
		for i := 0; i < len(*onlyRef); i++ {
			rm := w.ref.FindStringSubmatch((*onlyRef)[i])
			if rm == nil {
				continue
			}
			for j := 0; j < len(*onlyOurs); j++ {
				om := w.ours.FindStringSubmatch((*onlyOurs)[j])
				if om != nil && slices.Equal(rm[1:], om[1:]) {
					*onlyRef = slices.Delete(*onlyRef, i, i+1)
					*onlyOurs = slices.Delete(*onlyOurs, j, j+1)
					i--
					used = true
					break
				}
			}
		}
		return used
	}
	drop := func(lines *[]string, re *regexp.Regexp) {
		if re == nil {
			return
		}
		*lines = slices.DeleteFunc(*lines, func(l string) bool {
			if re.MatchString(l) {
				used = true
				return true
			}
			return false
		})
	}
	drop(onlyRef, w.ref)
	drop(onlyOurs, w.ours)
	return used
}

// The rendered list lives in docs/differences.md between these lines;
// the rest of the page is written by hand and kept as it is.
const (
	beginMark = "<!-- BEGIN differences.toml: rendered by `make differences`; edit docs/differences.toml, not this block -->"
	endMark   = "<!-- END differences.toml -->"
)

var streamWords = map[string]string{"stdout": "standard output", "stderr": "standard error", "exit": "exit status"}

// render returns page with the block between the marks made from l: the
// deliberate differences, then the known ones being fixed.
func render(l *list, page string) (string, error) {
	i, j := strings.Index(page, beginMark), strings.Index(page, endMark)
	if i < 0 || j < i {
		return "", fmt.Errorf("docs/differences.md has no block marked %q ... %q", beginMark, endMark)
	}
	var b strings.Builder
	b.WriteString(beginMark + "\n\n")
	var known []*Difference
	for _, d := range l.Differences {
		if d.Known != "" {
			known = append(known, d)
			continue
		}
		renderEntry(&b, d)
	}
	if len(known) > 0 {
		b.WriteString("\nNot chosen, and being fixed (the harness accepts them until then):\n\n")
		for _, d := range known {
			renderEntry(&b, d)
		}
	}
	b.WriteString("\n")
	return page[:i] + b.String() + page[j:], nil
}

func renderEntry(b *strings.Builder, d *Difference) {
	var streams []string
	for _, w := range d.Where {
		if s := streamWords[w.Stream]; !slices.Contains(streams, s) {
			streams = append(streams, s)
		}
	}
	fmt.Fprintf(b, "- **%s** (%s; case `%s`", d.Title, strings.Join(streams, ", "), d.Show)
	if d.Known != "" {
		fmt.Fprintf(b, "; %s", d.Known)
	}
	b.WriteString("):\n")
	for _, line := range strings.Split(strings.TrimSpace(d.Reason), "\n") {
		if line == "" {
			b.WriteString("\n")
			continue
		}
		b.WriteString("  " + line + "\n")
	}
}
