package main

import (
	"fmt"
	"strconv"
	"strings"
)

// streamDiff is how one stream of a case differs: the lines only the
// reference printed and only we printed (after masking), before and after
// the list accounted for what it lists.
type streamDiff struct {
	stream             string
	onlyRef, onlyOurs  []string // all of it
	unlisted           bool
	restRef, restOurs  []string // what the list does not account for
	listedBy           []string // ids of the entries that accounted for some
	refStatus, ourStat string   // "exit" only
}

// outcome is a case's comparison.
type outcome struct {
	c        *Case
	ref      result
	ours     result
	diffs    []streamDiff // the streams that differ
	unlisted bool
	skipped  string // why the case did not run
	err      error
}

// compare compares the case's results stream by stream and accounts for
// the differences with the list; used records the entries that did.
func compare(c *Case, ref, ours result, l *list, used map[string][]string) outcome {
	o := outcome{c: c, ref: ref, ours: ours}
	if ref.err != nil || ours.err != nil {
		o.err = fmt.Errorf("ref: %v; ours: %v", ref.err, ours.err)
		o.unlisted = true
		return o
	}
	for _, s := range []struct {
		name      string
		ref, ours string
	}{{"stdout", ref.stdout, ours.stdout}, {"stderr", ref.stderr, ours.stderr}} {
		onlyRef, onlyOurs := diffLines(normalize(s.ref), normalize(s.ours))
		if len(onlyRef) == 0 && len(onlyOurs) == 0 {
			continue
		}
		d := streamDiff{stream: s.name, onlyRef: onlyRef, onlyOurs: onlyOurs}
		d.restRef, d.restOurs = append([]string(nil), onlyRef...), append([]string(nil), onlyOurs...)
		for _, e := range l.Differences {
			if e.account(c.Name, s.name, &d.restRef, &d.restOurs) {
				d.listedBy = append(d.listedBy, e.ID)
				used[e.ID] = append(used[e.ID], c.Name)
			}
		}
		d.unlisted = len(d.restRef) > 0 || len(d.restOurs) > 0
		o.unlisted = o.unlisted || d.unlisted
		o.diffs = append(o.diffs, d)
	}
	rs, os := statusText(ref), statusText(ours)
	if rs != os {
		d := streamDiff{stream: "exit", refStatus: rs, ourStat: os, unlisted: true}
		for _, e := range l.Differences {
			if e.accountExit(c.Name, rs, os) {
				d.unlisted = false
				d.listedBy = append(d.listedBy, e.ID)
				used[e.ID] = append(used[e.ID], c.Name)
				break
			}
		}
		o.unlisted = o.unlisted || d.unlisted
		o.diffs = append(o.diffs, d)
	}
	return o
}

// statusText is the exit status as compared: the number a shell sees, or
// "timeout" for a run that did not end.
func statusText(r result) string {
	if r.timedOut {
		return "timeout"
	}
	return strconv.Itoa(r.status)
}

// diffLines returns the lines of a not in a longest common subsequence
// with b, and those of b not in it, in order.
func diffLines(a, b []string) (onlyA, onlyB []string) {
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			i++
			j++
		case lcs[i+1][j] >= lcs[i][j+1]:
			onlyA = append(onlyA, a[i])
			i++
		default:
			onlyB = append(onlyB, b[j])
			j++
		}
	}
	onlyA = append(onlyA, a[i:]...)
	onlyB = append(onlyB, b[j:]...)
	return onlyA, onlyB
}

// describe writes what differs in o, the unlisted part only unless all.
func (o *outcome) describe(b *strings.Builder, all bool) {
	fmt.Fprintf(b, "  sysbench %s\n", shellWords(o.c.Args))
	if o.c.Stdin != "" {
		fmt.Fprintf(b, "  stdin: %q\n", o.c.Stdin)
	}
	if o.err != nil {
		fmt.Fprintf(b, "  could not run: %v\n", o.err)
		return
	}
	for _, d := range o.diffs {
		if !d.unlisted && !all {
			continue
		}
		listed := ""
		if len(d.listedBy) > 0 {
			listed = " (listed: " + strings.Join(d.listedBy, ", ") + ")"
		}
		if d.stream == "exit" {
			fmt.Fprintf(b, "  exit status: reference %s, ours %s%s\n", d.refStatus, d.ourStat, listed)
			continue
		}
		fmt.Fprintf(b, "  %s%s:\n", d.stream, listed)
		ref, ours := d.restRef, d.restOurs
		if all {
			ref, ours = d.onlyRef, d.onlyOurs
		}
		for _, l := range ref {
			fmt.Fprintf(b, "    - %s\n", l)
		}
		for _, l := range ours {
			fmt.Fprintf(b, "    + %s\n", l)
		}
	}
}

// shellWords prints argv as a shell would read it back.
func shellWords(argv []string) string {
	var out []string
	for _, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t'\"$\\*?;&|<>()") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out = append(out, a)
	}
	return strings.Join(out, " ")
}
