package authoring

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/yuin/gopher-lua/ast"

	"github.com/sysbench-go/sysbench-go/luaapi"
	"github.com/sysbench-go/sysbench-go/luajit"
	"github.com/sysbench-go/sysbench-go/luajit/parse"
	"github.com/sysbench-go/sysbench-go/options"
)

// Config is what check knows beyond the scripts.
type Config struct {
	// Options are the options every run has (general and drivers'):
	// sysbench.opt reads them whatever a script declares.
	Options []options.Option
	// Bundled holds the bundled scripts and modules: a name that is no
	// file names one, and require finds them.
	Bundled fs.FS
	// Getenv reads LUA_PATH and HOME for require's path (nil: none).
	Getenv func(string) string
}

// Finding is one defect, where it is.
type Finding struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Kind    Kind   `json:"kind"`
	Message string `json:"message"`
}

// Kind names what a finding is about; the names are part of the JSON
// output (docs/writing-workloads.md lists them).
type Kind string

// The kinds of finding.
const (
	KindSyntax         Kind = "syntax"
	KindUndefined      Kind = "undefined-global"
	KindUnknownField   Kind = "unknown-field"
	KindArity          Kind = "arity"
	KindArgument       Kind = "argument"
	KindUndeclared     Kind = "undeclared-option"
	KindUnusedOption   Kind = "unused-option"
	KindHook           Kind = "misspelt-hook"
	KindNoEvent        Kind = "no-event"
	KindParameterCount Kind = "parameter-count"
)

// Kinds are every kind of finding, in the order the documentation
// gives them.
var Kinds = []Kind{KindSyntax, KindUndefined, KindUnknownField, KindArity, KindArgument, KindUndeclared,
	KindUnusedOption, KindHook, KindNoEvent, KindParameterCount}

// Report is what a check found.
type Report struct {
	Scripts  int       `json:"scripts"` // the scripts named
	Lines    int       `json:"lines"`   // their lines
	Findings []Finding `json:"findings"`
	// Errors are the scripts that could not be checked (not found,
	// unreadable), each with its reason.
	Errors []error `json:"-"`
}

// file is one Lua file of a check: a script named, or a module one
// loads.
type file struct {
	name    string // as findings name it
	path    string // on disk; "" for a bundled one
	bundled bool
	src     []byte
	chunk   []ast.Stmt
	pos     *parse.Positions
	extra   map[any]int // offsets of nodes the walk makes
	syntax  *Finding    // its syntax (or compile) error
	facts   *facts
	// loads are the files it loads, resolved; open says a load could
	// not be: what it defines is unknown.
	loads []*file
	open  bool
}

// checker is one run of check.
type checker struct {
	cfg     Config
	surface *luaapi.Surface
	files   map[string]*file // by absolute path, or "bundled:" + name
	// units are the analyses made, by the file they judge.
	units map[*file]bool
	found map[Finding]bool
	rep   *Report
}

// Check checks the scripts names name: files, or bundled workloads by
// name (oltp_read_write).
func Check(cfg Config, names []string) (*Report, error) {
	sf, err := luaapi.APISurface()
	if err != nil {
		return nil, fmt.Errorf("sysbench's API: %w", err)
	}
	if cfg.Getenv == nil {
		cfg.Getenv = func(string) string { return "" }
	}
	c := &checker{cfg: cfg, surface: sf, files: map[string]*file{}, units: map[*file]bool{},
		found: map[Finding]bool{}, rep: &Report{Findings: []Finding{}}}
	for _, name := range names {
		f, err := c.named(name)
		if err != nil {
			c.rep.Errors = append(c.rep.Errors, err)
			continue
		}
		c.rep.Scripts++
		c.rep.Lines += lineCount(f.src)
		c.judge(f)
	}
	// Files in the order they were first met, then by position.
	order := map[string]int{}
	for _, f := range c.rep.Findings {
		if _, ok := order[f.File]; !ok {
			order[f.File] = len(order)
		}
	}
	slices.SortStableFunc(c.rep.Findings, func(a, b Finding) int {
		if a.File != b.File {
			return order[a.File] - order[b.File]
		}
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	})
	return c.rep, nil
}

func lineCount(src []byte) int {
	n := bytes.Count(src, []byte{'\n'})
	if len(src) > 0 && src[len(src)-1] != '\n' {
		n++
	}
	return n
}

// named loads a script named on the command line.
func (c *checker) named(name string) (*file, error) {
	if st, err := os.Stat(name); err == nil {
		if st.IsDir() {
			return nil, fmt.Errorf("%s: is a directory", name)
		}
		return c.load(name, name)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", name, unwrapPath(err))
	}
	mod := strings.TrimSuffix(name, ".lua")
	if !strings.ContainsAny(mod, "/.") && c.cfg.Bundled != nil {
		if f, ok := c.bundled(mod); ok {
			return f, nil
		}
	}
	return nil, fmt.Errorf("%s: no such file or bundled workload", name)
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// load reads and parses the file at path (name: as findings name it),
// once per check.
func (c *checker) load(path, name string) (*file, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if f, ok := c.files[abs]; ok {
		return f, nil
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, unwrapPath(err))
	}
	f := c.parse(&file{name: name, path: path, src: src})
	c.files[abs] = f
	c.resolveLoads(f)
	return f, nil
}

// bundled is the bundled script or module mod, if there is one.
func (c *checker) bundled(mod string) (*file, bool) {
	key := "bundled:" + mod
	if f, ok := c.files[key]; ok {
		return f, true
	}
	src, err := fs.ReadFile(c.cfg.Bundled, mod+".lua")
	if err != nil {
		return nil, false
	}
	f := c.parse(&file{name: mod + ".lua (bundled)", bundled: true, src: src})
	c.files[key] = f
	c.resolveLoads(f)
	return f, true
}

// compileLine finds the line in a compiler's "chunk:line: message".
var compileLine = regexp.MustCompile(`^[^\n]*?:(\d+): (.*)$`)

// parse parses f and walks it; a syntax error is its finding.
func (c *checker) parse(f *file) *file {
	f.extra = map[any]int{}
	chunk, pos, err := parse.ParseWithPositions(bytes.NewReader(f.src), "="+f.name)
	var se *parse.SyntaxError
	switch {
	case errors.As(err, &se):
		msg := se.Message
		if se.Near != "" {
			msg += " near '" + se.Near + "'"
		}
		f.syntax = &Finding{File: f.name, Line: se.Line, Column: max(se.Column, 1), Kind: KindSyntax, Message: msg}
		return f
	case err != nil:
		f.syntax = &Finding{File: f.name, Line: 1, Column: 1, Kind: KindSyntax, Message: err.Error()}
		return f
	}
	// What our compiler refuses beyond the syntax (LuaJIT's limits of a
	// function's registers and constants).
	if _, err := luajit.Compile(bytes.NewReader(f.src), "="+f.name); err != nil {
		line, msg := 1, err.Error()
		if m := compileLine.FindStringSubmatch(msg); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = m[2]
		}
		f.syntax = &Finding{File: f.name, Line: line, Column: 1, Kind: KindSyntax, Message: msg}
		return f
	}
	f.chunk, f.pos = chunk, pos
	f.facts = walkFile(f)
	return f
}

// builtinModules are what require finds without a file.
var builtinModules = map[string]bool{"ffi": true, "bit": true, "jit": true, "jit.opt": true, "jit.util": true,
	"table.new": true, "table.clear": true, "string": true, "table": true, "math": true, "io": true, "os": true,
	"debug": true, "coroutine": true, "package": true, "_G": true}

// resolveLoads finds the files f loads as a run would find them: a
// module along package.path (its directory last), then bundled; a file
// for dofile relative to the working directory, then beside f.
func (c *checker) resolveLoads(f *file) {
	if f.facts == nil {
		return
	}
	if len(f.facts.openLoads) > 0 {
		f.open = true
	}
	dir := ""
	if f.path != "" {
		dir = filepath.Dir(f.path)
	}
	for _, l := range f.facts.loads {
		var m *file
		switch {
		case l.file:
			for _, p := range []string{l.name, filepath.Join(dir, filepath.Base(l.name))} {
				if st, err := os.Stat(p); err == nil && !st.IsDir() {
					m, _ = c.load(p, filepath.Clean(p))
					break
				}
			}
		case builtinModules[l.name]:
			continue
		default:
			m = c.module(l.name, dir, f.bundled)
		}
		if m == nil {
			f.open = true
			continue
		}
		f.loads = append(f.loads, m)
	}
}

// module finds require(name) for a script in dir.
func (c *checker) module(name, dir string, fromBundled bool) *file {
	if fromBundled {
		if m, ok := c.bundled(name); ok {
			return m
		}
	}
	rel := strings.ReplaceAll(name, ".", "/")
	for _, p := range strings.Split(luaapi.RequirePath(c.cfg.Getenv, dir), ";") {
		if p == "" {
			continue
		}
		cand := strings.ReplaceAll(p, "?", rel)
		if st, err := os.Stat(cand); err == nil && !st.IsDir() {
			m, err := c.load(cand, filepath.Clean(cand))
			if err == nil {
				return m
			}
		}
	}
	if c.cfg.Bundled != nil {
		if m, ok := c.bundled(name); ok {
			return m
		}
	}
	return nil
}

// program is f and every file it loads, in order.
func program(f *file) []*file {
	var out []*file
	seen := map[*file]bool{}
	var visit func(*file)
	visit = func(f *file) {
		if seen[f] {
			return
		}
		seen[f] = true
		out = append(out, f)
		for _, m := range f.loads {
			visit(m)
		}
	}
	visit(f)
	return out
}

// requirers are the scripts beside f that load it: f is then a module,
// judged as part of the programs that load it.
func (c *checker) requirers(f *file) []*file {
	if f.path == "" {
		return nil
	}
	dir := filepath.Dir(f.path)
	base := strings.TrimSuffix(filepath.Base(f.path), ".lua")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []*file
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".lua") || e.Name() == filepath.Base(f.path) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		src, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(src, []byte(base)) {
			continue // cheap: a script that never spells the name cannot load it
		}
		s, err := c.load(p, p)
		if err != nil {
			continue
		}
		if slices.Contains(program(s)[1:], f) {
			out = append(out, s)
		}
	}
	return out
}

// judge reports the findings located in f: a script's in its program, a
// module's in the programs of the scripts beside it that load it, and the
// findings in the modules a script loads from beside it, each as a
// module. Bundled modules are judged only when named.
func (c *checker) judge(f *file) {
	if c.units[f] {
		return
	}
	c.units[f] = true
	if f.syntax != nil {
		c.add(*f.syntax)
		return
	}
	req := c.requirers(f)
	var context []*file
	entry := len(req) == 0
	if entry {
		context = program(f)
	} else {
		seen := map[*file]bool{}
		for _, r := range req {
			for _, m := range program(r) {
				if !seen[m] {
					seen[m] = true
					context = append(context, m)
				}
			}
		}
	}
	for _, m := range context {
		if m.syntax != nil {
			// The program does not load: that is its finding, in its file.
			c.add(*m.syntax)
			return
		}
	}
	a := newAnalysis(c, context)
	for _, fd := range a.findings(f, entry) {
		c.add(fd)
	}
	if entry {
		for _, m := range context[1:] {
			if !m.bundled {
				c.judge(m)
			}
		}
	}
}

func (c *checker) add(f Finding) {
	if !c.found[f] {
		c.found[f] = true
		c.rep.Findings = append(c.rep.Findings, f)
	}
}

// position is where node starts in f (at least its line).
func (f *file) position(r ref) (line, column int) {
	if f.pos != nil {
		if line, column, ok := f.pos.Of(r.node); ok {
			return line, column
		}
		if off, ok := f.extra[r.node]; ok {
			return f.pos.LineColumn(off)
		}
	}
	return max(r.line, 1), 1
}
