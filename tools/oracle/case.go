package main

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Case is one command line run under both programs. Its name says what it
// tries (family/subject/value) and is what the list of differences names.
type Case struct {
	Name string
	// Args follow the program's name. "{mysql}" and "{pgsql}" stand for
	// the options that point a run at the test server, in a database of
	// the run's own.
	Args  []string
	Stdin string
	// Files are written into the run's working directory first (scripts,
	// config files), by name relative to it.
	Files map[string]string
	// Before are command lines each program runs first in the same
	// directory and database (fileio's prepare, a workload's tables);
	// their output is not compared.
	Before [][]string
	// Signal is sent to the program once Marker has appeared on its
	// standard output.
	Signal syscall.Signal
	Marker string
	// Timeout bounds one run (default defaultTimeout).
	Timeout time.Duration
	// Core cases are always in the quick subset (the items and
	// the paths they stand for); the others by a stable sample.
	Core bool
	// Slow cases wait on the clock (--time, a signal): they stay out of
	// the quick subset unless Core.
	Slow bool
}

const defaultTimeout = 30 * time.Second

// server is the test server a case needs, "" for none.
func (c *Case) server() string {
	for _, a := range c.allArgs() {
		switch a {
		case "{mysql}":
			return "mysql"
		case "{pgsql}":
			return "pgsql"
		}
	}
	return ""
}

func (c *Case) allArgs() []string {
	all := slices.Clone(c.Args)
	for _, b := range c.Before {
		all = append(all, b...)
	}
	return all
}

// quick says whether the case belongs to the subset make test runs: the
// core cases, and of the others that do not wait on the clock, one in
// sampleEvery by a hash of the name (the same cases every time).
func (c *Case) quick(sampleEvery uint32) bool {
	if c.Core {
		return true
	}
	if c.Slow {
		return false
	}
	h := fnv.New32a()
	h.Write([]byte(c.Name))
	return h.Sum32()%sampleEvery == 0
}

// caseSet collects cases, refusing a name given twice (the list of
// differences names cases, so a name must say one thing).
type caseSet struct {
	cases []*Case
	names map[string]bool
}

func (s *caseSet) add(c *Case) *Case {
	if s.names == nil {
		s.names = map[string]bool{}
	}
	if s.names[c.Name] {
		panic(fmt.Sprintf("oracle: case %q generated twice", c.Name))
	}
	s.names[c.Name] = true
	s.cases = append(s.cases, c)
	return c
}

// args builds an argument list from words and lists of words.
func args(parts ...any) []string {
	var out []string
	for _, p := range parts {
		switch v := p.(type) {
		case string:
			out = append(out, v)
		case []string:
			out = append(out, v...)
		default:
			panic(fmt.Sprintf("args: %T", p))
		}
	}
	return out
}

// optArg is --name=value, or --name alone for the bare value.
func optArg(name, value string) string {
	if value == bare {
		return "--" + name
	}
	return "--" + name + "=" + value
}

// bare stands for an option given without '=' in a value list.
const bare = "\x00bare"

// valueName is a value as a case name shows it.
func valueName(v string) string {
	switch v {
	case bare:
		return "(bare)"
	case "":
		return "(empty)"
	}
	return strings.ReplaceAll(v, " ", "_")
}
