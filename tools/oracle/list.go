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
	// Show is the case that shows it: it must differ so, or the entry is
	// stale.
	Show string `toml:"show"`
	// Cases are the cases it may occur in (globs, * matching any text);
	// default: Show alone.
	Cases []string `toml:"cases"`
	// Stream is where: "stdout", "stderr" or "exit".
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

	cases     []*regexp.Regexp
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
		if d.Title == "" || d.Reason == "" || d.Show == "" {
			return nil, fmt.Errorf("%s: %s: title, reason and show are required", path, d.ID)
		}
		if !slices.Contains([]string{"stdout", "stderr", "exit"}, d.Stream) {
			return nil, fmt.Errorf("%s: %s: stream must be stdout, stderr or exit", path, d.ID)
		}
		if d.Ref == "" && d.Ours == "" {
			return nil, fmt.Errorf("%s: %s: ref or ours must say what differs", path, d.ID)
		}
		if d.Pair && (d.Ref == "" || d.Ours == "") {
			return nil, fmt.Errorf("%s: %s: a pair needs ref and ours", path, d.ID)
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
		for _, p := range []struct {
			src string
			re  **regexp.Regexp
		}{{d.Ref, &d.ref}, {d.Ours, &d.ours}} {
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
	if d.Stream != stream || !d.covers(name) {
		return false
	}
	used := false
	if d.Pair {
		for i := 0; i < len(*onlyRef); i++ {
			rm := d.ref.FindStringSubmatch((*onlyRef)[i])
			if rm == nil {
				continue
			}
			for j := 0; j < len(*onlyOurs); j++ {
				om := d.ours.FindStringSubmatch((*onlyOurs)[j])
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
	drop(onlyRef, d.ref)
	drop(onlyOurs, d.ours)
	return used
}

// The rendered list lives in docs/differences.md between these lines;
// the rest of the page is written by hand and kept as it is.
const (
	beginMark = "<!-- BEGIN differences.toml: rendered by `make differences`; edit docs/differences.toml, not this block -->"
	endMark   = "<!-- END differences.toml -->"
)

var streamWords = map[string]string{"stdout": "standard output", "stderr": "standard error", "exit": "exit status"}

// render returns page with the block between the marks made from l.
func render(l *list, page string) (string, error) {
	i, j := strings.Index(page, beginMark), strings.Index(page, endMark)
	if i < 0 || j < i {
		return "", fmt.Errorf("docs/differences.md has no block marked %q ... %q", beginMark, endMark)
	}
	var b strings.Builder
	b.WriteString(beginMark + "\n\n")
	for _, d := range l.Differences {
		fmt.Fprintf(&b, "- **%s** (%s; case `%s`)", d.Title, streamWords[d.Stream], d.Show)
		for n, line := range strings.Split(strings.TrimSpace(d.Reason), "\n") {
			if n == 0 {
				b.WriteString(": " + line + "\n")
			} else if line == "" {
				b.WriteString("\n")
			} else {
				b.WriteString("  " + line + "\n")
			}
		}
	}
	b.WriteString("\n")
	return page[:i] + b.String() + page[j:], nil
}
