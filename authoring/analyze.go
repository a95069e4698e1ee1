package authoring

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/yuin/gopher-lua/ast"

	"github.com/sysbench-go/sysbench-go/luaapi"
	"github.com/sysbench-go/sysbench-go/options"
)

// analysis is the facts of a program (a script and what it loads, or
// the programs that load a module) put together.
type analysis struct {
	c     *checker
	files []*file
	sigs  map[string]luaapi.Signature

	globalWrites map[string]bool
	globalReads  map[string]bool
	// tested are the globals the program tests (if x, type(x), x or
	// y): optional, their other reads are not findings either.
	tested     map[string]bool
	pathWrites map[string]bool
	openPaths  map[string]bool
	// open: the program defines names no walk sees (a load not found,
	// setfenv, _G written by computed names).
	open        bool
	optDeclared bool
	optDynamic  bool
	optReadAll  bool
	declared    map[string]bool // canonical option names
	known       map[string]bool // the options of every run, canonical
	optRead     map[string]bool // canonical
	assigns     map[varKey][]assignment
	types       map[varPath]string
	resolving   map[varPath]bool
	calling     map[callKey]bool
}

func newAnalysis(c *checker, files []*file) *analysis {
	a := &analysis{c: c, files: files, sigs: luaapi.Signatures(), globalWrites: map[string]bool{},
		globalReads: map[string]bool{}, tested: map[string]bool{}, pathWrites: map[string]bool{}, openPaths: map[string]bool{},
		declared: map[string]bool{}, known: map[string]bool{}, optRead: map[string]bool{},
		assigns: map[varKey][]assignment{}, types: map[varPath]string{}, resolving: map[varPath]bool{},
		calling: map[callKey]bool{}}
	for _, o := range c.cfg.Options {
		a.known[options.Canonical(o.Name)] = true
	}
	for _, f := range files {
		fx := f.facts
		for n := range fx.globalWrites {
			a.globalWrites[n] = true
		}
		for _, r := range fx.globalReads {
			a.globalReads[r.name] = true
			if r.guarded {
				a.tested[r.name] = true
			}
		}
		for p := range fx.pathWrites {
			a.pathWrites[p] = true
		}
		for p := range fx.openPaths {
			a.openPaths[p] = true
		}
		a.open = a.open || f.open || fx.openGlobals
		a.optDeclared = a.optDeclared || fx.optDeclared
		a.optDynamic = a.optDynamic || fx.optDynamic
		a.optReadAll = a.optReadAll || fx.optReadAll
		for _, d := range fx.optDecls {
			a.declared[options.Canonical(d.name)] = true
		}
		for n := range fx.optReads {
			a.optRead[options.Canonical(n)] = true
		}
		for _, as := range fx.assigns {
			a.assigns[as.to.v] = append(a.assigns[as.to.v], as)
		}
	}
	return a
}

// findings are the program's defects located in f; entry says f is the
// script run (not a module).
func (a *analysis) findings(f *file, entry bool) []Finding {
	var out []Finding
	add := func(r ref, kind Kind, format string, args ...any) {
		line, col := f.position(r)
		out = append(out, Finding{File: f.name, Line: line, Column: col, Kind: kind, Message: fmt.Sprintf(format, args...)})
	}
	fx := f.facts
	a.globals(fx, add)
	a.paths(fx, add)
	a.calls(fx, add)
	a.options(fx, add)
	a.hooks(fx, add)
	if entry {
		a.event(f, add)
	}
	a.parameters(fx, add)
	return out
}

type addFunc func(r ref, kind Kind, format string, args ...any)

// defined says a global exists when the script runs: sysbench gives it,
// or the program sets it.
func (a *analysis) defined(name string) bool {
	if _, ok := a.c.surface.Names[name]; ok || referenceOnly[name] {
		return true
	}
	return a.globalWrites[name]
}

// globals: a global read that nothing defines. A script that declares no
// options gets the command line's as globals (the 0.5-era API), and a
// program that defines names the walk cannot see may define any: there,
// only a name within a typo of a defined one is reported.
func (a *analysis) globals(fx *facts, add addFunc) {
	typosOnly := !a.optDeclared || a.open
	for _, r := range fx.globalReads {
		if a.tested[r.name] || a.defined(r.name) {
			continue
		}
		cands := slices.Clone(r.locals)
		for n := range a.c.surface.Names {
			if !strings.Contains(n, ".") {
				cands = append(cands, n)
			}
		}
		for n := range a.globalWrites {
			cands = append(cands, n)
		}
		s := suggest(r.name, cands)
		switch {
		case a.declared[options.Canonical(r.name)]:
			add(r.at, KindUndefined, "global '%s' is read but never defined: a declared option is read as sysbench.opt.%s",
				r.name, options.Canonical(r.name))
		case s != "":
			add(r.at, KindUndefined, "global '%s' is read but never defined (did you mean '%s'?)", r.name, s)
		case !typosOnly:
			add(r.at, KindUndefined, "global '%s' is read but never defined", r.name)
		}
	}
}

// closedTable says the program cannot have a field of table path that
// the API does not: a table of the API's or of the language's, which
// the program writes no computed field to.
func (a *analysis) closedTable(path string) bool {
	if a.c.surface.Names[path] != "table" || a.openPaths[path] {
		return false
	}
	switch {
	case path == "sysbench.opt", path == "sysbench.hooks", path == "_G", path == "ffi.C",
		path == "sysbench.cmdline.argv", strings.HasPrefix(path, "package."), path == "package":
		return false
	}
	return true
}

// paths: a field of the API's tables that does not exist, used.
func (a *analysis) paths(fx *facts, add addFunc) {
	if a.open {
		return
	}
	for _, r := range fx.pathReads {
		i := strings.LastIndexByte(r.path, '.')
		parent, name := r.path[:i], r.path[i+1:]
		if r.guarded || !a.closedTable(parent) {
			continue
		}
		if _, ok := a.c.surface.Names[r.path]; ok || a.pathWrites[r.path] || referenceOnly[r.path] {
			continue
		}
		what := "field"
		if r.called {
			what = "function"
		}
		msg := fmt.Sprintf("%s has no %s '%s'", parent, what, name)
		if s := suggest(name, a.fields(parent)); s != "" {
			msg += fmt.Sprintf(" (did you mean '%s'?)", s)
		}
		add(r.at, KindUnknownField, "%s", msg)
	}
}

// fields are the names under path the API has or the program sets.
func (a *analysis) fields(path string) []string {
	var out []string
	prefix := path + "."
	add := func(n string) {
		if rest, ok := strings.CutPrefix(n, prefix); ok && !strings.Contains(rest, ".") {
			out = append(out, rest)
		}
	}
	for n := range a.c.surface.Names {
		add(n)
	}
	for n := range a.pathWrites {
		add(n)
	}
	return out
}

// calls: calls of the API with arguments it does not take, and methods
// its objects do not have.
func (a *analysis) calls(fx *facts, add addFunc) {
	for _, c := range fx.calls {
		if c.path != "" {
			if a.pathWrites[c.path] || (!strings.Contains(c.path, ".") && a.globalWrites[c.path]) {
				continue // the program's own
			}
			canon := a.c.surface.Canonical[c.path]
			if sig, ok := a.sigs[canon]; ok {
				a.checkArgs(c, c.path, sig, add)
			}
			continue
		}
		typ := a.typeOfSource(*c.recv)
		if typ == "" {
			continue
		}
		methods := a.c.surface.Methods[typ]
		if !slices.Contains(methods, c.method) {
			msg := fmt.Sprintf("%s has no method '%s'", objectName(typ), c.method)
			if s := suggest(c.method, methods); s != "" {
				msg += fmt.Sprintf(" (did you mean '%s'?)", s)
			}
			add(c.at, KindUnknownField, "%s", msg)
			continue
		}
		if sig, ok := a.sigs[typ+":"+c.method]; ok {
			a.checkArgs(c, objectName(typ)+":"+c.method, sig, add)
		}
	}
}

// objectName is how the documentation calls an object of type typ.
func objectName(typ string) string {
	switch typ {
	case "sb_histogram":
		return "a histogram"
	case "sysbench_event_plan":
		return "an event plan"
	}
	return typ
}

func (a *analysis) checkArgs(c call, name string, sig luaapi.Signature, add addFunc) {
	n := c.nargs
	few, many := n < sig.Min, sig.Max >= 0 && n > sig.Max
	if a.multi(c) {
		// The last argument gives any number of values, none included.
		few, many = false, sig.Max >= 0 && n-1 > sig.Max
	}
	if few || many {
		add(c.at, KindArity, "%s takes %s, given %d", name, arguments(sig), n)
		return
	}
	for i, k := range sig.Args {
		if i >= len(c.e.Args) {
			break
		}
		arg := c.e.Args[i]
		if got, ok := literalMismatch(arg, k); ok {
			add(ref{f: c.at.f, node: arg, line: arg.Line()}, KindArgument, "argument #%d of %s must be %s, given %s",
				i+1, name, k, got)
		}
	}
}

// multi says the last argument of c may give any number of values: a
// call, but not one of the API's that gives one object, or "...".
func (a *analysis) multi(c call) bool {
	return c.multi && (c.last.kind == srcUnknown || a.typeOfSource(c.last) == "")
}

// arguments says how many arguments a signature takes.
func arguments(sig luaapi.Signature) string {
	plural := func(n int) string {
		if n == 1 {
			return "1 argument"
		}
		return strconv.Itoa(n) + " arguments"
	}
	switch {
	case sig.Max < 0:
		return "at least " + plural(sig.Min)
	case sig.Min == sig.Max && sig.Min == 0:
		return "no arguments"
	case sig.Min == sig.Max:
		return plural(sig.Min)
	case sig.Max == sig.Min+1:
		return fmt.Sprintf("%d or %s", sig.Min, plural(sig.Max))
	}
	return fmt.Sprintf("%d to %s", sig.Min, plural(sig.Max))
}

// literalMismatch says what a literal argument is when it cannot be what
// k asks for; expressions of unknown value never mismatch.
func literalMismatch(e ast.Expr, k luaapi.ArgKind) (string, bool) {
	var got string
	switch x := e.(type) {
	case *ast.NilExpr:
		got = "nil"
	case *ast.TrueExpr, *ast.FalseExpr:
		got = "a boolean"
	case *ast.NumberExpr:
		got = "a number"
	case *ast.StringExpr:
		if k == luaapi.ArgNumber {
			if _, err := strconv.ParseFloat(strings.TrimSpace(x.Value), 64); err == nil {
				return "", false
			}
		}
		got = "a string"
		if len(x.Value) <= 20 {
			got = fmt.Sprintf("a string (%q)", x.Value)
		}
	case *ast.TableExpr:
		got = "a table"
	case *ast.FunctionExpr:
		got = "a function"
	default:
		return "", false
	}
	switch k {
	case luaapi.ArgNumber:
		// A string that reads as a number returned above.
		return got, got != "a number"
	case luaapi.ArgString:
		return got, !strings.HasPrefix(got, "a string") && got != "a number"
	case luaapi.ArgTable:
		return got, got != "a table"
	case luaapi.ArgFunction:
		return got, got != "a function"
	}
	return "", false
}

// options: sysbench.opt.x for an option no one declares, and options
// declared and never read. Only where every declaration and read is by
// a constant name.
func (a *analysis) options(fx *facts, add addFunc) {
	if !a.optDeclared || a.optDynamic || a.open {
		return
	}
	var cands []string
	for n := range a.declared {
		cands = append(cands, n)
	}
	for name, refs := range fx.optReads {
		cn := options.Canonical(name)
		if cn != name && (a.declared[cn] || a.known[cn]) {
			for _, r := range refs {
				add(r, KindUndeclared, "sysbench.opt[%q] is nil: options are read by their '_' names (sysbench.opt.%s)",
					name, cn)
			}
			continue
		}
		if a.declared[cn] || a.known[cn] {
			continue
		}
		for _, r := range refs {
			msg := fmt.Sprintf("sysbench.opt.%s: no option --%s is declared in sysbench.cmdline.options", name,
				strings.ReplaceAll(name, "_", "-"))
			if s := suggest(cn, cands); s != "" {
				msg += fmt.Sprintf(" (did you mean '%s'?)", s)
			}
			add(r, KindUndeclared, "%s", msg)
		}
	}
	if a.optReadAll {
		return
	}
	for _, d := range fx.optDecls {
		cn := options.Canonical(d.name)
		if !a.optRead[cn] {
			add(d.at, KindUnusedOption, "option --%s is declared but never read (sysbench.opt.%s)",
				strings.ReplaceAll(d.name, "_", "-"), cn)
		}
	}
}

// hooks: a global function within a typo of a hook the program does not
// define, which nothing calls; a field of sysbench.hooks sysbench never
// calls; a field of sysbench.cmdline it never reads.
func (a *analysis) hooks(fx *facts, add addFunc) {
	globals, tableHooks := luaapi.Hooks()
	for _, d := range fx.funcDefs {
		if slices.Contains(globals, d.name) || a.globalReads[d.name] || a.open {
			continue
		}
		var missing []string
		for _, h := range globals {
			if !a.globalWrites[h] {
				missing = append(missing, h)
			}
		}
		if s := suggest(d.name, missing); s != "" {
			add(d.at, KindHook, "function '%s' is never called: sysbench calls '%s' (misspelt?)", d.name, s)
		}
	}
	for path, refs := range fx.pathWrites {
		parent, name, _ := cutLast(path)
		var known []string
		var what string
		switch parent {
		case "sysbench.hooks":
			known, what = tableHooks, "is not a hook sysbench calls"
		case "sysbench.cmdline":
			if _, ok := a.c.surface.Names[path]; ok {
				continue
			}
			known, what = []string{"options", "commands"}, "is not read by sysbench"
		default:
			continue
		}
		if slices.Contains(known, name) {
			continue
		}
		msg := fmt.Sprintf("%s %s", path, what)
		if s := suggest(name, known); s != "" {
			msg += fmt.Sprintf(" (did you mean '%s'?)", s)
		}
		for _, r := range refs {
			add(r, KindHook, "%s", msg)
		}
	}
}

func cutLast(path string) (parent, name string, ok bool) {
	i := strings.LastIndexByte(path, '.')
	if i < 0 {
		return "", path, false
	}
	return path[:i], path[i+1:], true
}

// runHooks are the functions that only a run calls: a script that
// defines one means to be run, and needs an event.
var runHooks = []string{"init", "done", "thread_init", "thread_done"}

// event: a script meant to be run that has no event function.
func (a *analysis) event(f *file, add addFunc) {
	if a.open || a.globalWrites["event"] || a.globalWrites["thread_run"] {
		return
	}
	var defines string
	for _, h := range runHooks {
		if a.globalWrites[h] {
			defines = h
			break
		}
	}
	if defines == "" {
		return
	}
	add(ref{f: f, node: nil, line: 1}, KindNoEvent,
		"no function 'event' (nor 'thread_run'), though the script defines '%s': 'run' fails with \"cannot find the event() function\"",
		defines)
}
