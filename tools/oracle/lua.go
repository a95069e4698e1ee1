package main

import (
	"fmt"
	"strings"
)

// hook is a place a script's code runs, with how to make it run.
type hook struct {
	name string
	// wrap puts the code into a script that runs it at that place.
	wrap func(code string) string
	// args run the script (after "./s.lua").
	args []string
	slow bool
}

const luaSleep = "ffi.cdef('int usleep(unsigned int);')\n"

// hooks are every place sysbench calls a script's code.
var hooks = []hook{
	{"main", func(c string) string { return c + "\nfunction event() end\n" }, []string{"--events=1", "--time=0", "run"}, false},
	{"init", func(c string) string { return "function init()\n" + c + "\nend\nfunction event() end\n" }, []string{"--events=1", "--time=0", "run"}, false},
	{"done", func(c string) string { return "function done()\n" + c + "\nend\nfunction event() end\n" }, []string{"--events=1", "--time=0", "run"}, false},
	{"thread_init", func(c string) string { return "function thread_init()\n" + c + "\nend\nfunction event() end\n" }, []string{"--threads=2", "--events=1", "--time=0", "run"}, false},
	{"thread_done", func(c string) string { return "function thread_done()\n" + c + "\nend\nfunction event() end\n" }, []string{"--events=1", "--time=0", "run"}, false},
	{"event", func(c string) string { return "function event()\n" + c + "\nend\n" }, []string{"--events=1", "--time=0", "run"}, false},
	{"thread_run", func(c string) string { return "function event() end\nfunction thread_run()\n" + c + "\nend\n" }, []string{"--events=1", "--time=0", "run"}, false},
	{"prepare", func(c string) string { return "function prepare()\n" + c + "\nend\nfunction event() end\n" }, []string{"prepare"}, false},
	{"cleanup", func(c string) string { return "function cleanup()\n" + c + "\nend\nfunction event() end\n" }, []string{"cleanup"}, false},
	{"help", func(c string) string { return "function help()\n" + c + "\nend\nfunction event() end\n" }, []string{"help"}, false},
	{"command", func(c string) string {
		return "sysbench.cmdline.commands = {mycmd = {function()\n" + c + "\nend}}\nfunction event() end\n"
	}, []string{"mycmd"}, false},
	{"parallel_command", func(c string) string {
		return "sysbench.cmdline.commands = {mycmd = {function()\n" + c + "\nend, sysbench.cmdline.PARALLEL_COMMAND}}\nfunction event() end\n"
	}, []string{"--threads=2", "mycmd"}, false},
	// The intermediate hook fails once: how many intervals a run has is
	// timing, and each would say it again.
	{"report_intermediate", func(c string) string {
		return luaSleep + "local failed\nsysbench.hooks.report_intermediate = function(stat)\nif failed then return end\nfailed = true\n" + c +
			"\nend\nfunction event() ffi.C.usleep(10000) end\n"
	}, []string{"--report-interval=1", "--events=150", "--time=0", "run"}, true},
	{"report_cumulative", func(c string) string {
		return "sysbench.hooks.report_cumulative = function(stat)\n" + c + "\nend\nfunction event() end\n"
	}, []string{"--events=1", "--time=0", "run"}, false},
	{"before_restart_event", func(c string) string {
		return "local n = 0\nsysbench.hooks.before_restart_event = function(err)\n" + c +
			"\nend\nfunction event()\n  n = n + 1\n  if n == 1 then error({errcode = sysbench.error.RESTART_EVENT}) end\nend\n"
	}, []string{"--events=1", "--time=0", "run"}, false},
}

// luaErrors are the ways code fails.
var luaErrors = []struct{ name, code string }{
	{"error-string", `error("boom")`},
	{"error-level0", `error("boom", 0)`},
	{"error-level2", `error("boom", 2)`},
	{"error-table", `error({code = 7})`},
	{"error-nil", `error(nil)`},
	{"error-number", `error(42)`},
	{"index-nil", `local t = nil; local x = t.field`},
	{"call-nil", `no_such_function()`},
	{"arith-table", `local x = {} + 1`},
	{"assert-message", `assert(false, "asserted")`},
	{"assert-plain", `assert(nil)`},
	{"require-missing", `require("no_such_module")`},
	{"exit-3", `os.exit(3)`},
	{"return-false", `do return false end`},
}

// syntaxErrors are scripts that do not parse.
var syntaxErrors = []struct{ name, src string }{
	{"assignment", "x = = 1\n"},
	{"unfinished-function", "function event()\n  local x = 1\n"},
	{"extra-end", "function event()\nend end\n"},
	{"unfinished-string", "x = \"abc\n"},
	{"bad-number", "x = 0x\n"},
	{"undefined-label", "function event()\n  goto done\nend\n"},
	{"unexpected-symbol", "local 1 = 2\n"},
}

// genLua: the Lua error paths: every way to fail in every hook, syntax
// errors, malformed declarations.
func genLua(s *caseSet, scripts map[string]string) {
	for _, h := range hooks {
		for _, e := range luaErrors {
			if e.name == "return-false" && h.name == "main" {
				continue
			}
			s.add(&Case{Name: "lua/" + h.name + "/" + e.name, Args: args("./s.lua", h.args),
				Files: map[string]string{"s.lua": h.wrap(e.code)}, Slow: h.slow,
				Core: (h.name == "main" && e.name == "require-missing") || (h.name == "report_intermediate" && e.name == "error-string")})
		}
	}
	for _, e := range syntaxErrors {
		s.add(&Case{Name: "lua/syntax/" + e.name, Args: []string{"./s.lua", "run"}, Files: map[string]string{"s.lua": e.src}})
	}
	// A module found next to the script, and one that fails as it loads.
	s.add(&Case{Name: "lua/require/found", Args: []string{"./s.lua", "--events=1", "--time=0", "run"},
		Files: map[string]string{"s.lua": "local m = require('mod')\nprint(m.x)\nfunction event() end\n", "mod.lua": "return {x = 'module loaded'}\n"}})
	s.add(&Case{Name: "lua/require/module-error", Args: []string{"./s.lua", "--events=1", "--time=0", "run"},
		Files: map[string]string{"s.lua": "require('mod')\nfunction event() end\n", "mod.lua": "error('in the module')\n"}})
	s.add(&Case{Name: "lua/require/module-syntax", Args: []string{"./s.lua", "--events=1", "--time=0", "run"},
		Files: map[string]string{"s.lua": "require('mod')\nfunction event() end\n", "mod.lua": "x = = 1\n"}})
	s.add(&Case{Name: "lua/require/in-event", Args: []string{"./s.lua", "--events=1", "--time=0", "run"},
		Files: map[string]string{"s.lua": "function event() require('no_such_module') end\n"}})
	// What a script must define, declared wrong.
	for _, d := range []struct{ name, src string }{
		{"no-event", "x = 1\n"},
		{"event-not-function", "event = 5\n"},
		{"options-not-table", "sysbench.cmdline.options = 5\nfunction event() end\n"},
		{"option-not-table", "sysbench.cmdline.options = {x = 5}\nfunction event() end\n"},
		{"option-no-description", "sysbench.cmdline.options = {x = {}}\nfunction event() end\n"},
		{"option-list-bad-type", "sysbench.cmdline.options = {x = {'d', {1, 2}, sysbench.cmdline.ARG_INT}}\nfunction event() end\n"},
		{"option-kinds", "sysbench.cmdline.options = {b = {'a flag', true}, n = {'a number', 5}, s = {'a word', 'w'}, l = {'a list', {'a', 'b'}}, i = {'an int', 3, sysbench.cmdline.ARG_INT}, z = {'a size', '1K', sysbench.cmdline.ARG_SIZE}}\n" +
			"function event() for _, k in ipairs({'b', 'n', 's', 'l', 'i', 'z'}) do local v = sysbench.opt[k]; print(k, type(v), type(v) == 'table' and table.concat(v, '+') or tostring(v)) end end\n"},
		{"commands-not-table", "sysbench.cmdline.commands = 5\nfunction event() end\n"},
		{"command-not-function", "sysbench.cmdline.commands = {mycmd = {5}}\nfunction event() end\n"},
		{"command-returns-false", "sysbench.cmdline.commands = {mycmd = {function() return false end}}\nfunction event() end\n"},
	} {
		cmd := []string{"--events=1", "--time=0", "run"}
		if strings.HasPrefix(d.name, "command") {
			cmd = []string{"mycmd"}
		}
		s.add(&Case{Name: "lua/declare/" + d.name, Args: args("./s.lua", cmd), Files: map[string]string{"s.lua": d.src}})
	}
	// Script options given values of every kind.
	kinds := "sysbench.cmdline.options = {b = {'a flag', true}, n = {'a number', 5}, s = {'a word', 'w'}, l = {'a list', {'a', 'b'}}, i = {'an int', 3, sysbench.cmdline.ARG_INT}, z = {'a size', '1K', sysbench.cmdline.ARG_SIZE}}\n" +
		"function event() for _, k in ipairs({'b', 'n', 's', 'l', 'i', 'z'}) do local v = sysbench.opt[k]; print(k, type(v), type(v) == 'table' and table.concat(v, '+') or tostring(v)) end end\n"
	for _, o := range []struct{ name, kind string }{{"b", "bool"}, {"n", "double"}, {"s", "string"}, {"l", "list"}, {"i", "int"}, {"z", "size"}} {
		for _, v := range valueClasses[o.kind] {
			s.add(&Case{Name: "lua/option/" + o.kind + "=" + valueName(v), Args: args("./s.lua", optArg(o.name, v), "--events=1", "--time=0", "run"),
				Files: map[string]string{"s.lua": kinds}})
		}
	}
	// 0.5-era scripts: options as globals.
	s.add(&Case{Name: "lua/legacy/options-as-globals", Args: []string{"./s.lua", "--my-opt=5", "--events=1", "--time=0", "run"},
		Files: map[string]string{"s.lua": "function event() print(my_opt, type(my_opt)) end\n"}})
	_ = scripts
}

// apiCall is a function of sysbench's API and the objects it needs.
type apiCall struct {
	name  string // as a script writes it
	setup string // Lua that makes the objects the call needs
	call  string // a function calling it with the pattern's arguments
}

const sqlSetup = "local drv = sysbench.sql.driver()\nlocal con = drv:connect()\n"

var apiCalls = []apiCall{
	{"sysbench.rand.default", "", "sysbench.rand.default"},
	{"sysbench.rand.uniform", "", "sysbench.rand.uniform"},
	{"sysbench.rand.gaussian", "", "sysbench.rand.gaussian"},
	{"sysbench.rand.special", "", "sysbench.rand.special"},
	{"sysbench.rand.pareto", "", "sysbench.rand.pareto"},
	{"sysbench.rand.unique", "", "sysbench.rand.unique"},
	{"sysbench.rand.string", "", "sysbench.rand.string"},
	{"sysbench.rand.uniform_uint64", "", "sysbench.rand.uniform_uint64"},
	{"sysbench.rand.uniform_double", "", "sysbench.rand.uniform_double"},
	{"sysbench.histogram.new", "", "sysbench.histogram.new"},
	{"histogram:update", "local h = sysbench.histogram.new(10, 1, 100)\n", "function(...) return h:update(...) end"},
	{"sysbench.sql.driver", "", "sysbench.sql.driver"},
	{"driver:connect", "local drv = sysbench.sql.driver()\n", "function(...) return drv:connect(...) end"},
	{"connection:query", sqlSetup, "function(...) return con:query(...) end"},
	{"connection:query_row", sqlSetup, "function(...) return con:query_row(...) end"},
	{"connection:prepare", sqlSetup, "function(...) return con:prepare(...) end"},
	{"connection:bulk_insert_init", sqlSetup, "function(...) return con:bulk_insert_init(...) end"},
	{"connection:bulk_insert_next", sqlSetup + "con:bulk_insert_init('INSERT INTO t VALUES')\n", "function(...) return con:bulk_insert_next(...) end"},
	{"statement:bind_create", sqlSetup + "local st = con:prepare('SELECT ?')\n", "function(...) return st:bind_create(...) end"},
	{"statement:bind_param", sqlSetup + "local st = con:prepare('SELECT ?')\n", "function(...) return st:bind_param(...) end"},
	{"statement:execute", sqlSetup + "local st = con:prepare('SELECT 1')\n", "function(...) return st:execute(...) end"},
	{"param:set", sqlSetup + "local st = con:prepare('SELECT ?')\nlocal p = st:bind_create(sysbench.sql.type.INT)\n", "function(...) return p:set(...) end"},
	{"param:set_rand_str", sqlSetup + "local st = con:prepare('SELECT ?')\nlocal p = st:bind_create(sysbench.sql.type.CHAR, 10)\n", "function(...) return p:set_rand_str(...) end"},
	{"sysbench.report_default", "", "sysbench.report_default"},
	{"sysbench.report_csv", "", "sysbench.report_csv"},
	{"sysbench.report_json", "", "sysbench.report_json"},
	{"sb_rand", "", "sb_rand"},
	{"sb_rand_uniform", "", "sb_rand_uniform"},
	{"sb_rand_str", "", "sb_rand_str"},
	{"sb_rand_uniq", "", "sb_rand_uniq"},
	{"db_query", "", "db_query"},
}

// apiArgs are the argument patterns each call is tried with.
var apiArgs = []struct{ name, lua string }{
	{"none", ""},
	{"nil", "nil"},
	{"word", "'x'"},
	{"table", "{}"},
	{"one", "1"},
	{"one-word", "1, 'x'"},
	{"reversed", "10, 1"},
	{"negative", "-5, -1"},
	{"fractions", "1.5, 2.5"},
	{"three", "1, 2, 3"},
}

// genAPI: every sysbench.* function with wrong arguments, in an event,
// each pattern in a pcall (its answer printed), then one uncaught (the
// FATAL line).
func genAPI(s *caseSet, scripts map[string]string) {
	for _, a := range apiCalls {
		var b strings.Builder
		fmt.Fprintf(&b, "function event()\n%slocal f = %s\n", a.setup, a.call)
		for _, p := range apiArgs {
			call := "pcall(f)"
			if p.lua != "" {
				call = "pcall(f, " + p.lua + ")"
			}
			fmt.Fprintf(&b, "do local ok, r = %s; print(%q, ok, ok and type(r) or tostring(r)) end\n", call, p.name)
		}
		b.WriteString("end\n")
		s.add(&Case{Name: "api/" + a.name + "/caught", Args: []string{"./s.lua", "--mysql-dry-run", "--events=1", "--time=0", "run"},
			Files: map[string]string{"s.lua": b.String()}})
		raw := fmt.Sprintf("function event()\n%slocal f = %s\nf({})\nend\n", a.setup, a.call)
		s.add(&Case{Name: "api/" + a.name + "/uncaught", Args: []string{"./s.lua", "--mysql-dry-run", "--events=1", "--time=0", "run"},
			Files: map[string]string{"s.lua": raw}})
	}
	_ = scripts
}
