package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
)

// helps are the help texts cases are generated from: the reference's
// decide which options and tests there are; ours, which options are our
// extensions.
type helps struct {
	general string            // sysbench --help
	tests   map[string]string // sysbench TEST help, by test name
	scripts map[string]string // sysbench SCRIPT help, by bundled script name
	ours    string            // our --help
}

// Small runs of each built-in test: the option under test goes before.
var builtinBase = map[string][]string{
	"cpu":     {"cpu", "--cpu-max-prime=10", "--events=3", "--time=0", "run"},
	"memory":  {"memory", "--memory-total-size=16K", "--time=0", "run"},
	"threads": {"threads", "--thread-yields=10", "--events=3", "--time=0", "run"},
	"mutex":   {"mutex", "--mutex-num=16", "--mutex-locks=10", "--mutex-loops=10", "--time=0", "run"},
	"fileio":  {"fileio", "--file-num=2", "--file-total-size=32K", "--file-test-mode=rndrw", "--events=5", "--time=0", "run"},
}

// cpuRun is the quickest complete run, the base for general options that
// do not need another.
var cpuRun = builtinBase["cpu"]

// dryRun is a bundled workload's run that needs no server.
func dryRun(script string) []string {
	return []string{script, "--mysql-dry-run", "--events=2", "--time=0", "run"}
}

// generate makes every case, in a stable order.
func generate(h helps, scripts map[string]string) []*Case {
	s := &caseSet{}
	genCommandLine(s, h, scripts)
	genGeneralOptions(s, h, scripts)
	genExtensions(s, h)
	genBuiltins(s, h)
	genScripts(s, h)
	genLua(s, scripts)
	genAPI(s, scripts)
	genConnections(s)
	genSignals(s, scripts)
	genRuns(s, scripts)
	return s.cases
}

// readScripts reads the fixed scripts of testdata/, by file name.
func readScripts(dir string) (map[string]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.lua"))
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		out[filepath.Base(f)] = string(b)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no scripts in %s", dir)
	}
	return out, nil
}

// withScript returns the files map holding the named testdata script.
func withScript(scripts map[string]string, names ...string) map[string]string {
	out := map[string]string{}
	for _, n := range names {
		src, ok := scripts[n]
		if !ok {
			panic("oracle: no testdata script " + n)
		}
		out[n] = src
	}
	return out
}

// genCommandLine: the shape of the command line itself.
func genCommandLine(s *caseSet, h helps, scripts map[string]string) {
	sleep := withScript(scripts, "sleep.lua")
	for _, c := range []*Case{
		{Name: "cli/no-arguments"},
		{Name: "cli/stdin-script", Stdin: "print('from stdin', sysbench.cmdline.command)\n"},
		{Name: "cli/stdin-dash", Args: []string{"-"}, Stdin: "print('from stdin')\n"},
		{Name: "cli/stdin-syntax-error", Stdin: "x = = 1\n"},
		{Name: "cli/stdin-runtime-error", Stdin: "error('from stdin')\n"},
		{Name: "cli/help", Args: []string{"--help"}, Core: true},
		{Name: "cli/help-with-test", Args: []string{"--help", "cpu"}},
		{Name: "cli/help-word", Args: []string{"help"}},
		{Name: "cli/version", Args: []string{"--version"}, Core: true},
		{Name: "cli/unknown-test", Args: []string{"nosuchtest", "run"}, Core: true},
		{Name: "cli/unknown-test-no-command", Args: []string{"nosuchtest"}},
		{Name: "cli/extra-argument", Args: []string{"cpu", "run", "extra"}},
		{Name: "cli/unknown-option", Args: []string{"--no-such-option=1", "cpu", "run"}, Core: true},
		{Name: "cli/unknown-option-bare", Args: []string{"--no-such-option", "cpu", "run"}},
		{Name: "cli/unknown-option-after", Args: args(cpuRun, "--no-such-option=1")},
		{Name: "cli/unknown-script-option", Args: args(dryRun("oltp_point_select"), "--no-such=1")},
		{Name: "cli/test-option", Args: args("--test=cpu", cpuRun[1:len(cpuRun)-1], "run")},
		{Name: "cli/test-option-command-first", Args: []string{"run", "--test=cpu", "--cpu-max-prime=10", "--events=3", "--time=0"}},
		{Name: "cli/single-dash-option", Args: args("-threads=2", cpuRun)},
		{Name: "cli/double-dash", Args: args("--", cpuRun)},
		{Name: "cli/empty-option-name", Args: args("--=1", cpuRun)},
		{Name: "cli/option-after-command", Args: args(cpuRun, "--threads=2")},
		{Name: "cli/bare-number-option", Args: args("--threads", cpuRun)},
		{Name: "cli/bare-word-option", Args: args("--rand-type", "./rand.lua", "--rand-seed=7", "--events=1", "--time=0", "run"), Files: withScript(scripts, "rand.lua")},
		{Name: "cli/options-repeated", Args: args("--threads=2", "--threads=3", cpuRun)},
		{Name: "cli/dash-underscore", Args: args("--cpu_max_prime=10", cpuRun)},
		{Name: "cli/script-not-found", Args: []string{"./nope.lua", "run"}, Core: true},
		{Name: "cli/script-not-found-no-command", Args: []string{"./nope.lua"}},
		{Name: "cli/script-is-directory", Args: []string{"./dir", "run"}, Files: map[string]string{"dir/x": ""}},
		{Name: "cli/script-by-name-without-lua", Args: []string{"sleep", "--events=1", "--time=0", "run"}, Files: sleep},
		{Name: "cli/empty-test-name", Args: []string{"", "run"}},
		{Name: "cli/db-driver-help", Args: []string{"--db-driver=help", "oltp_point_select", "run"}},
		{Name: "cli/config-file", Args: args("--config-file=run.cfg", cpuRun),
			Files: map[string]string{"run.cfg": "threads=2\n# a comment\n\ncpu-max-prime = 20\nevents=4\n"}},
		{Name: "cli/config-file-dashes", Args: args("--config-file=run.cfg", cpuRun),
			Files: map[string]string{"run.cfg": "--threads=2\n"}},
		{Name: "cli/config-file-bare-flag", Args: args("--config-file=run.cfg", cpuRun),
			Files: map[string]string{"run.cfg": "histogram\n"}},
		{Name: "cli/config-file-unknown-option", Args: args("--config-file=run.cfg", cpuRun),
			Files: map[string]string{"run.cfg": "no-such=1\n"}},
		{Name: "cli/config-file-bad-value", Args: args("--config-file=run.cfg", cpuRun),
			Files: map[string]string{"run.cfg": "threads=abc\n"}},
		{Name: "cli/config-file-missing", Args: args("--config-file=missing.cfg", cpuRun), Core: true},
		{Name: "cli/config-file-directory", Args: args("--config-file=dir", cpuRun), Files: map[string]string{"dir/x": ""}},
		{Name: "cli/config-file-script-option", Args: []string{"--config-file=run.cfg", "./opt.lua", "--events=1", "--time=0", "run"},
			Files: map[string]string{"run.cfg": "n=5\n", "opt.lua": "sysbench.cmdline.options = {n = {'a number', 1}}\nfunction thread_init() print('n=' .. sysbench.opt.n) end\nfunction event() end\n"}},
	} {
		s.add(c)
	}
}

// baseFor is the run a general option is tried on: the quickest run that
// uses the option.
func baseFor(name string) (base []string, files []string, slow bool) {
	switch name {
	case "events", "max-requests":
		return []string{"./sleep.lua", "--time=1", "run"}, []string{"sleep.lua"}, true
	case "time", "max-time":
		return []string{"./sleep.lua", "--events=3", "run"}, []string{"sleep.lua"}, false
	case "rate", "tx-rate":
		return []string{"./sleep.lua", "--events=3", "--time=1", "run"}, []string{"sleep.lua"}, true
	case "report-interval":
		// Not a multiple of the intervals tried: a report due as the run
		// ends races with its end in the reference.
		return []string{"./sleep.lua", "--time=3", "run"}, []string{"sleep.lua"}, true
	case "report-checkpoints":
		return []string{"./sleep.lua", "--time=2", "run"}, []string{"sleep.lua"}, true
	case "forced-shutdown":
		return []string{"./sleep.lua", "--events=3", "--time=1", "run"}, []string{"sleep.lua"}, false
	case "threads", "num-threads":
		return []string{"./sleep.lua", "--events=4", "--time=0", "run"}, []string{"sleep.lua"}, false
	}
	switch {
	case strings.HasPrefix(name, "rand-"):
		return []string{"./rand.lua", "--rand-seed=7", "--events=1", "--time=0", "run"}, []string{"rand.lua"}, false
	case strings.HasPrefix(name, "db-") || strings.HasPrefix(name, "mysql-"):
		return dryRun("oltp_point_select"), nil, false
	case strings.HasPrefix(name, "pgsql-"):
		return []string{"oltp_point_select", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port=1", "--events=2", "--time=0", "run"}, nil, false
	}
	return cpuRun, nil, false
}

// genGeneralOptions: every general and driver option of the reference's
// --help with every value of its kind.
func genGeneralOptions(s *caseSet, h helps, scripts map[string]string) {
	for _, sec := range parseHelp(h.general) {
		for _, o := range sec.opts {
			base, files, slow := baseFor(o.name)
			for _, v := range valuesOf(o) {
				if skipValue(o.name, v) {
					continue
				}
				c := &Case{Name: "opt/" + o.name + "=" + valueName(v), Args: args(optArg(o.name, v), base), Slow: slow}
				if len(files) > 0 {
					c.Files = withScript(scripts, files...)
				}
				s.add(c)
			}
		}
	}
}

// skipValue leaves out the values whose run is not a short one under the
// reference (it would run for hours or hold the machine).
func skipValue(name, v string) bool {
	switch name {
	case "help", "version":
		return v == "on" || v == "true" || v == "yes"
	case "rate", "tx-rate":
		return v == "2" // paced: covered by the runs' family
	case "thread-stack-size":
		// The reference gives each thread the stack asked for.
		return v == "18446744073709551616"
	case "rand-spec-iter":
		return v == "-1" // unsigned in the reference: it draws for ever
	}
	return false
}

// genExtensions: each of our options beyond the reference's, at its
// default: the reference refuses it; we run as without it.
func genExtensions(s *caseSet, h helps) {
	ref := map[string]bool{}
	for _, sec := range parseHelp(h.general) {
		for _, o := range sec.opts {
			ref[o.name] = true
		}
	}
	for _, sec := range parseHelp(h.ours) {
		if !strings.Contains(sec.title, "beyond sysbench") {
			continue
		}
		for _, o := range sec.opts {
			if ref[o.name] || o.def == "" {
				continue
			}
			base, _, _ := baseFor(o.name)
			if base[0] == "./sleep.lua" || base[0] == "./rand.lua" {
				base = cpuRun
			}
			s.add(&Case{Name: "ext/" + o.name, Args: args(optArg(o.name, o.def), base)})
		}
	}
}

// genBuiltins: each built-in test's options with every value of their
// kind, and each command.
func genBuiltins(s *caseSet, h helps) {
	names := sortedKeys(h.tests)
	for _, t := range names {
		base := builtinBase[t]
		if base == nil {
			panic("oracle: no base run for the built-in test " + t)
		}
		var before [][]string
		if t == "fileio" {
			before = [][]string{withCommand(base, "prepare")}
		}
		for _, sec := range parseHelp(h.tests[t]) {
			for _, o := range sec.opts {
				for _, v := range valuesOf(o) {
					if skipBuiltinValue(t, o.name, v) {
						continue
					}
					c := &Case{Name: "test/" + t + "/" + o.name + "=" + valueName(v), Args: args(optArg(o.name, v), base)}
					if before != nil {
						// fileio prepares with the option too: the files
						// must be what the run expects.
						c.Before = [][]string{args(optArg(o.name, v), before[0])}
					}
					s.add(c)
				}
			}
		}
		for _, cmd := range []string{"help", "prepare", "run", "cleanup", "prewarm", "bogus", ""} {
			c := &Case{Name: "cmd/" + t + "/" + valueName(cmd)}
			switch cmd {
			case "":
				c.Args = []string{t}
			case "run":
				c.Args = base
				c.Before = before
			default:
				c.Args = withCommand(base, cmd)
			}
			if t == "fileio" && cmd == "cleanup" {
				c.Before = before
			}
			s.add(c)
		}
	}
}

// skipBuiltinValue leaves out what would make the test's small run a long
// one under the reference.
func skipBuiltinValue(test, name, v string) bool {
	switch name {
	case "cpu-max-prime":
		return v == "-1" // an unsigned limit: hours of primes
	case "memory-total-size":
		return v == "0" || v == "-1" || v == "abc" || v == "1X" || v == "" // 0 and what reads as 0: no limit
	case "memory-block-size":
		return v == "18446744073709551616"
	case "thread-yields", "thread-locks", "mutex-locks", "mutex-loops", "mutex-num":
		return v == "-1" // unsigned: billions of iterations
	case "file-total-size":
		return v == "18446744073709551616"
	case "file-num":
		return v == "-1"
	}
	return false
}

// withCommand replaces base's command (its last word).
func withCommand(base []string, cmd string) []string {
	out := slices.Clone(base[:len(base)-1])
	if cmd != "" {
		out = append(out, cmd)
	}
	return out
}

// genScripts: the bundled scripts' commands and options.
func genScripts(s *caseSet, h helps) {
	names := sortedKeys(h.scripts)
	seen := map[string]bool{}
	for _, sc := range names {
		// Commands that need no server; prepare, run and cleanup on a
		// server come below for a few scripts.
		for _, cmd := range []string{"help", "run", "bogus", ""} {
			c := &Case{Name: "cmd/" + sc + "/" + valueName(cmd)}
			switch cmd {
			case "":
				c.Args = []string{sc}
			case "run":
				c.Args = dryRun(sc)
			default:
				c.Args = withCommand(dryRun(sc), cmd)
			}
			s.add(c)
		}
		// Every option of the first script that has it, every value.
		for _, sec := range parseHelp(h.scripts[sc]) {
			for _, o := range sec.opts {
				if seen[o.name] {
					continue
				}
				seen[o.name] = true
				for _, v := range valuesOf(o) {
					if v == "2147483648" && (o.name == "random_points" || o.name == "number_of_ranges") {
						continue // the reference allocates that many: gigabytes
					}
					s.add(&Case{Name: "script/" + sc + "/" + o.name + "=" + valueName(v), Args: args(optArg(o.name, v), dryRun(sc))})
				}
			}
		}
	}
	small := []string{"--tables=2", "--table-size=10"}
	for _, db := range []string{"mysql", "pgsql"} {
		conn := "{" + db + "}"
		for _, sc := range []string{"oltp_read_write", "oltp_insert", "bulk_insert", "select_random_ranges"} {
			if _, ok := h.scripts[sc]; !ok && sc != "bulk_insert" {
				continue
			}
			prep := args(sc, conn, small, "prepare")
			for _, cmd := range []string{"prepare", "prewarm", "run", "cleanup"} {
				c := &Case{Name: "cmd/" + sc + "/" + db + "/" + cmd, Args: args(sc, conn, small, "--events=5", "--time=0", cmd)}
				if cmd != "prepare" {
					c.Before = [][]string{prep}
				}
				s.add(c)
			}
			// What exists already, or does not yet.
			s.add(&Case{Name: "cmd/" + sc + "/" + db + "/prepare-twice", Args: prep, Before: [][]string{prep}})
			s.add(&Case{Name: "cmd/" + sc + "/" + db + "/run-without-tables", Args: args(sc, conn, small, "--events=5", "--time=0", "run")})
		}
	}
}

func sortedKeys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// genConnections: the ways a connection fails.
func genConnections(s *caseSet) {
	for _, cmd := range []string{"prepare", "run"} {
		s.add(&Case{Name: "conn/mysql/refused/" + cmd, Args: []string{"oltp_point_select", "--mysql-host=127.0.0.1", "--mysql-port=1", "--events=1", "--time=0", cmd}, Core: cmd == "run"})
		s.add(&Case{Name: "conn/pgsql/refused/" + cmd, Args: []string{"oltp_point_select", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port=1", "--events=1", "--time=0", cmd}, Core: cmd == "run"})
		s.add(&Case{Name: "conn/mysql/unknown-host/" + cmd, Args: []string{"oltp_point_select", "--mysql-host=no-such-host.invalid", "--events=1", "--time=0", cmd}})
		s.add(&Case{Name: "conn/pgsql/unknown-host/" + cmd, Args: []string{"oltp_point_select", "--db-driver=pgsql", "--pgsql-host=no-such-host.invalid", "--events=1", "--time=0", cmd}})
		s.add(&Case{Name: "conn/mysql/bad-password/" + cmd, Args: []string{"oltp_point_select", "{mysql}", "--mysql-password=wrong-password", "--events=1", "--time=0", cmd}})
		s.add(&Case{Name: "conn/pgsql/bad-password/" + cmd, Args: []string{"oltp_point_select", "{pgsql}", "--pgsql-password=wrong-password", "--events=1", "--time=0", cmd}})
		s.add(&Case{Name: "conn/mysql/unknown-database/" + cmd, Args: []string{"oltp_point_select", "{mysql}", "--mysql-db=no_such_database", "--events=1", "--time=0", cmd}})
		s.add(&Case{Name: "conn/pgsql/unknown-database/" + cmd, Args: []string{"oltp_point_select", "{pgsql}", "--pgsql-db=no_such_database", "--events=1", "--time=0", cmd}})
		s.add(&Case{Name: "conn/mysql/bad-user/" + cmd, Args: []string{"oltp_point_select", "{mysql}", "--mysql-user=no_such_user", "--events=1", "--time=0", cmd}})
	}
	s.add(&Case{Name: "conn/mysql/socket-missing", Args: []string{"oltp_point_select", "--mysql-socket=/nonexistent/mysql.sock", "--events=1", "--time=0", "run"}})
}

// genSignals: a signal during each phase that can take long.
func genSignals(s *caseSet, scripts map[string]string) {
	for _, sig := range []struct {
		name string
		sig  syscall.Signal
	}{{"SIGINT", syscall.SIGINT}, {"SIGTERM", syscall.SIGTERM}} {
		s.add(&Case{Name: "signal/" + sig.name + "/run", Args: []string{"./signals.lua", "--threads=2", "--time=0", "run"},
			Files: withScript(scripts, "signals.lua"), Signal: sig.sig, Marker: "Threads started!", Slow: true, Core: sig.name == "SIGINT"})
		s.add(&Case{Name: "signal/" + sig.name + "/run-intervals", Args: []string{"./signals.lua", "--threads=2", "--time=0", "--report-interval=1", "run"},
			Files: withScript(scripts, "signals.lua"), Signal: sig.sig, Marker: "[ 1s ]", Slow: true})
		s.add(&Case{Name: "signal/" + sig.name + "/command", Args: []string{"./signals.lua", "wait"},
			Files: withScript(scripts, "signals.lua"), Signal: sig.sig, Marker: "waiting", Slow: true})
		s.add(&Case{Name: "signal/" + sig.name + "/thread_init", Args: []string{"./signals.lua", "--wait-in=thread_init", "--time=0", "run"},
			Files: withScript(scripts, "signals.lua"), Signal: sig.sig, Marker: "waiting", Slow: true})
	}
	s.add(&Case{Name: "signal/SIGHUP/run", Args: []string{"./signals.lua", "--threads=2", "--time=0", "run"},
		Files: withScript(scripts, "signals.lua"), Signal: syscall.SIGHUP, Marker: "Threads started!", Slow: true})
}

// genRuns: complete runs whose report shape a parser reads: intervals,
// checkpoints, the rate's queue line, the histogram, a failing run.
func genRuns(s *caseSet, scripts map[string]string) {
	sleep := withScript(scripts, "sleep.lua")
	for _, threads := range []string{"1", "2", "4"} {
		s.add(&Case{Name: "run/intervals/threads=" + threads, Args: []string{"./sleep.lua", "--threads=" + threads, "--time=2", "--report-interval=1", "run"},
			Files: sleep, Slow: true, Core: threads == "2"})
	}
	s.add(&Case{Name: "run/intervals/events", Args: []string{"./sleep.lua", "--threads=2", "--events=300", "--time=0", "--report-interval=1", "run"}, Files: sleep, Slow: true})
	s.add(&Case{Name: "run/checkpoints", Args: []string{"./sleep.lua", "--threads=2", "--time=2", "--report-checkpoints=1", "run"}, Files: sleep, Slow: true})
	s.add(&Case{Name: "run/rate", Args: []string{"./sleep.lua", "--threads=2", "--time=2", "--rate=50", "--report-interval=1", "run"}, Files: sleep, Slow: true})
	s.add(&Case{Name: "run/histogram", Args: args("--histogram", cpuRun)})
	s.add(&Case{Name: "run/percentile-99", Args: args("--percentile=99", cpuRun)})
	s.add(&Case{Name: "run/dry-run-intervals", Args: []string{"oltp_point_select", "--mysql-dry-run", "--threads=2", "--time=2", "--report-interval=1", "run"}, Slow: true})
	for _, v := range []string{"0", "1", "2", "3", "4", "5"} {
		s.add(&Case{Name: "run/verbosity=" + v, Args: args("--verbosity="+v, cpuRun)})
		s.add(&Case{Name: "run/verbosity=" + v + "/failed", Args: []string{"--verbosity=" + v, "./fail.lua", "--where=event", "--after=3", "--threads=2", "--events=40", "--time=0", "run"},
			Files: withScript(scripts, "fail.lua")})
	}
	// A run that fails after some events: nothing on standard output
	// after the FATAL line (issue 47, item 2).
	for _, where := range []string{"event", "thread_done", "done"} {
		s.add(&Case{Name: "run/failed/" + where, Args: []string{"./fail.lua", "--where=" + where, "--after=3", "--threads=2", "--events=40", "--time=0", "run"},
			Files: withScript(scripts, "fail.lua"), Core: true})
		s.add(&Case{Name: "run/failed/" + where + "/intervals", Args: []string{"./fail.lua", "--where=" + where, "--after=150", "--threads=2", "--events=400", "--time=0", "--report-interval=1", "run"},
			Files: withScript(scripts, "fail.lua"), Slow: true})
	}
	s.add(&Case{Name: "run/failed/sql", Args: []string{"./fail.lua", "--where=sql", "{mysql}", "--threads=2", "--time=0", "run"},
		Files: withScript(scripts, "fail.lua"), Core: true})
	s.add(&Case{Name: "run/failed/sql-pgsql", Args: []string{"./fail.lua", "--where=sql", "{pgsql}", "--db-driver=pgsql", "--threads=2", "--time=0", "run"},
		Files: withScript(scripts, "fail.lua")})
	// The same message from every thread: "(last message repeated N
	// times)" as the reference's logger prints it (issue 47, item 4).
	for _, threads := range []string{"2", "4"} {
		s.add(&Case{Name: "run/repeated/threads=" + threads, Args: []string{"./fail.lua", "--where=thread_init", "--threads=" + threads, "--time=0", "run"},
			Files: withScript(scripts, "fail.lua"), Core: true})
		s.add(&Case{Name: "run/repeated/parallel/threads=" + threads, Args: []string{"./fail.lua", "--threads=" + threads, "parallel_fail"},
			Files: withScript(scripts, "fail.lua"), Core: threads == "2"})
	}
	// A table locked for 3 seconds mid-run: an outage we see; the plain
	// command line's output stays the reference's (issue 47, item 3).
	s.add(&Case{Name: "run/outage", Args: []string{"./outage.lua", "--events=10", "--time=0", "run"},
		Files: withScript(scripts, "outage.lua"), Slow: true, Core: true})
}
