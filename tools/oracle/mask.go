package main

import (
	"regexp"
	"slices"
	"strings"
)

// What a run measured differs from run to run and between the programs:
// normalize masks it, and nothing else, so that every word, line and
// number that is not a measurement is compared.

var (
	// A report's labelled figures: the label stays, the figures (and the
	// padding that depends on their width) become N.
	measuredLabel = regexp.MustCompile(`^(\s+)(read|write|other|total|transactions|queries|ignored errors|reconnects|total time|total number of events|min|avg|max|\d+(?:\.\d+)?th percentile|sum|events \(avg/stddev\)|execution time \(avg/stddev\)|events per second|reads/s|writes/s|fsyncs/s|read, MiB/s|written, MiB/s):\s+(.*)$`)
	// Lines made of figures only.
	measuredLine = regexp.MustCompile(`^(Total operations: |[\d.]+ MiB transferred|\d+ bytes written in |\[ \d+s \] )`)
	// A figure with the padding before it, whose width depends on it.
	number = regexp.MustCompile(`[ \t]*-?\d+(\.\d+)?(e[-+]?\d+)?`)
	spaces = regexp.MustCompile(`\s+`)
	// An interval line's thread count is not measured: it is kept.
	threadsField   = regexp.MustCompile(`thds: (\d+)`)
	runningThreads = regexp.MustCompile(`thds: [1-9]\d*`)
	intervalLine   = regexp.MustCompile(`^\[ N(\.N)?s \] `)
	histogram      = regexp.MustCompile(`^\s+[\d.]+ \|\**\s+\d+$`)
)

// normalize returns text's lines with the measured figures masked, the
// histogram's bars as one line, and each run of interval lines as its
// distinct lines (how many intervals fit in a run is timing).
func normalize(text string) []string {
	if text == "" {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	var out []string
	for _, l := range lines {
		l = maskLine(l)
		if intervalLine.MatchString(l) {
			// How many threads run at the last interval, made as they
			// stop, is the reference's race; a run with none is not.
			l = runningThreads.ReplaceAllString(l, "thds: N")
		}
		if l == "HISTOGRAM" && len(out) > 0 && out[len(out)-1] == l {
			continue
		}
		if intervalLine.MatchString(l) {
			dup := false
			for j := len(out) - 1; j >= 0 && intervalLine.MatchString(out[j]); j-- {
				if out[j] == l {
					dup = true
					break
				}
			}
			if dup {
				continue
			}
		}
		out = append(out, l)
	}
	sortRuns(out, workerDebug)
	return out
}

// workerDebug are the lines each worker thread prints as it starts, in
// the order the threads happen to run.
var workerDebug = regexp.MustCompile(`^DEBUG: Worker thread \(#\d+\) (started|initialized)$`)

// sortRuns sorts each run of consecutive lines matching re.
func sortRuns(lines []string, re *regexp.Regexp) {
	for i := 0; i < len(lines); {
		j := i
		for j < len(lines) && re.MatchString(lines[j]) {
			j++
		}
		if j > i+1 {
			slices.Sort(lines[i:j])
		}
		i = max(j, i+1)
	}
}

// maskLine masks the figures of one line.
func maskLine(l string) string {
	if histogram.MatchString(l) {
		return "HISTOGRAM"
	}
	if m := measuredLabel.FindStringSubmatch(l); m != nil {
		return m[1] + m[2] + ": " + maskNumbers(m[3])
	}
	if measuredLine.MatchString(l) {
		threads := threadsField.FindStringSubmatch(l)
		l = maskNumbers(l)
		if threads != nil {
			l = strings.Replace(l, "thds: N", "thds: "+threads[1], 1)
		}
		return l
	}
	return l
}

func maskNumbers(s string) string {
	s = number.ReplaceAllString(s, " N")
	return strings.TrimPrefix(spaces.ReplaceAllString(s, " "), " ")
}
