package main

import (
	"bufio"
	"regexp"
	"slices"
	"strings"
)

// option is an option as a --help text lists it.
type option struct {
	name string
	kind string // "bool", "int", "double", "size", "string", "list", "file"
	def  string // the default shown in brackets, "" when none
}

// helpSection is one block of options in a help text: its heading ("" for
// the reference's untitled statistics block) and options.
type helpSection struct {
	title string
	opts  []option
}

var optionLine = regexp.MustCompile(`^  --([A-Za-z0-9_-]+)(\[=[^ \]]*\][^ ]*|=N|=SIZE|=STRING|=\[LIST,\.\.\.\]|=FILENAME|=[^ ]+)? +(.*)$`)

// parseHelp reads the option blocks of a --help or TEST help text: a
// block is a run of option lines, headed by the non-option line before it.
func parseHelp(text string) []helpSection {
	var out []helpSection
	var title string
	inBlock := false
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		l := sc.Text()
		m := optionLine.FindStringSubmatch(l)
		if m == nil {
			inBlock = false
			if strings.TrimSpace(l) != "" {
				title = strings.TrimSuffix(strings.TrimSpace(l), ":")
			} else if len(out) > 0 && out[len(out)-1].title == title {
				// A blank line ends the heading's reach: the reference's
				// statistics block follows one with no heading.
				title = ""
			}
			continue
		}
		if !inBlock {
			out = append(out, helpSection{title: title})
			inBlock = true
		}
		o := option{name: m[1], kind: kindOf(m[2], m[3])}
		if i := strings.LastIndex(m[3], " ["); i >= 0 && strings.HasSuffix(m[3], "]") {
			o.def = m[3][i+2 : len(m[3])-1]
		} else if strings.HasPrefix(m[3], "[") && strings.HasSuffix(m[3], "]") {
			o.def = m[3][1 : len(m[3])-1]
		}
		out[len(out)-1].opts = append(out[len(out)-1].opts, o)
	}
	return out
}

// kindOf reads an option's kind from its placeholder; "=N" is a double
// when its default has a fraction (the reference prints both as N).
func kindOf(placeholder, desc string) string {
	switch {
	case strings.HasPrefix(placeholder, "[=") && strings.Contains(placeholder, "on|off"):
		return "bool" // [=on|off], [=auto|on|off], [=on|off|MODE]
	case placeholder == "=N":
		if i := strings.LastIndex(desc, " ["); i >= 0 && strings.Contains(desc[i:], ".") {
			return "double"
		}
		return "int"
	case placeholder == "=SIZE":
		return "size"
	case placeholder == "=[LIST,...]":
		return "list"
	case placeholder == "=FILENAME":
		return "file"
	}
	return "string"
}

// valueClasses are the values every option of a kind is tried with: a
// valid one, the boundaries and what a parser must refuse or reads as 0
// (words, trailing junk, fractions, overflow, unknown suffixes, empty).
var valueClasses = map[string][]string{
	"int":    {"2", "0", "-1", "2147483648", "abc", "2x", "1.5", ""},
	"double": {"0.5", "0", "-1", "abc", "1e3", ""},
	"size":   {"2K", "0", "1X", "abc", "-1", "1KB", "18446744073709551616", ""},
	"bool":   {"on", "off", "true", "0", "yes", "bogus", "", bare},
	"string": {"bogus", ""},
	"list":   {"", ",", "bogus"},
	"file":   {"missing.cfg", ""},
}

// choices are the valid words of the string and list options that take
// words: each is tried too.
var choices = map[string][]string{
	"rand-type":            {"uniform", "gaussian", "special", "pareto"},
	"db-ps-mode":           {"auto", "disable"},
	"db-driver":            {"mysql", "pgsql", "help"},
	"forced-shutdown":      {"off", "1", "10%", "1x"},
	"memory-scope":         {"global", "local"},
	"memory-oper":          {"read", "write", "none"},
	"memory-access-mode":   {"seq", "rnd"},
	"file-test-mode":       {"seqwr", "seqrewr", "seqrd", "rndrd", "rndwr", "rndrw"},
	"file-io-mode":         {"sync", "async", "mmap"},
	"file-extra-flags":     {"sync", "dsync", "sync,dsync"},
	"file-fsync-mode":      {"fsync", "fdatasync"},
	"report-checkpoints":   {"1", "1,1", "-1", "abc"},
	"mysql-ignore-errors":  {"all", "1062", "none"},
	"mysql-host":           {"127.0.0.1"},
	"mysql-port":           {"abc", "1"},
	"mysql_storage_engine": {"myisam"},
	"pgsql_variant":        {"redshift"},
}

// valuesOf are the values an option is tried with.
func valuesOf(o option) []string {
	vals := append([]string(nil), choices[o.name]...)
	for _, v := range valueClasses[o.kind] {
		if !slices.Contains(vals, v) {
			vals = append(vals, v)
		}
	}
	return vals
}
