// Package compare runs a comparison matrix — targets × workloads × thread
// counts × rounds — each cell a child process writing its results file,
// and summarises the results files as side-by-side tables, JSON and an
// HTML report (docs/compare.md).
package compare

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/sysbench-go/sysbench-go/report"
)

// Matrix is a comparison's design, read from a TOML file.
type Matrix struct {
	Title string `toml:"title"`
	// Rounds is how many times each cell runs; the tables show medians.
	Rounds int `toml:"rounds"`
	// Time and Warmup are each cell's --time and --warmup-time, Cooldown
	// the pause between two targets, all in seconds.
	Time     int   `toml:"time"`
	Warmup   int   `toml:"warmup"`
	Cooldown int   `toml:"cooldown"`
	Threads  []int `toml:"threads"`
	// Rotate moves the first target to the end at each round, so no
	// target always runs first (or right after another).
	Rotate bool `toml:"rotate"`
	// Prepare is when data sets are built: PrepareEachSwitch, PrepareOnce
	// or PrepareNone.
	Prepare        string `toml:"prepare"`
	PrepareThreads int    `toml:"prepare_threads"`
	// ReplaceExisting allows a cleanup to drop tables this comparison did
	// not create (by default they are refused).
	ReplaceExisting bool `toml:"replace_existing"`
	ServerStats     bool `toml:"server_stats"`
	// Rate is the throughput the tables show: "tps" or "qps".
	Rate string `toml:"rate"`
	// Options are given to every run, before the data set's, target's
	// and workload's own.
	Options map[string]any `toml:"options"`
	// Capacity, when the matrix has it, makes every cell a capacity
	// search (the capacity command, docs/capacity.md) in place of a run
	// at a fixed load: the answer is the rate each target sustains within
	// the objective.
	Capacity  *CapacitySpec `toml:"capacity"`
	Targets   []TargetSpec  `toml:"target"`
	Datasets  []Dataset     `toml:"dataset"`
	Workloads []Workload    `toml:"workload"`

	// Path is the file it was read from; Dir its directory, which
	// relative script paths are read from.
	Path string `toml:"-"`
	Dir  string `toml:"-"`
	// ForceCleanup says whether a script (as the command line names it)
	// takes --force-cleanup, with which its cleanup drops tables that
	// its own marker does not say its prepare created (the shop_* and
	// tpcb_* workloads'): a matrix with replace_existing gives it, since
	// this comparison has checked the tables itself. Nil: none does.
	ForceCleanup func(script string) bool `toml:"-"`
	pos          positions
	bundled      func(string) bool
}

// CapacitySpec is a capacity matrix's search: its objective and the
// capacity command's settings each cell runs with.
type CapacitySpec struct {
	// SLO is the objective, in --slo's syntax, one expression an item
	// ("p99<=10ms", "errors<=0.1%").
	SLO []string `toml:"slo"`
	// Time is each search's --capacity-time, in seconds.
	Time int `toml:"time"`
	// Rounds and Precision are --capacity-rounds and --capacity-precision
	// (per cent); 0 leaves the command's default.
	Rounds    int     `toml:"rounds"`
	Precision float64 `toml:"precision"`
}

// TargetSpec is one database to compare.
type TargetSpec struct {
	Name    string         `toml:"name"`
	Driver  string         `toml:"driver"`
	Options map[string]any `toml:"options"`
}

// Dataset is data that workloads share: built by Script's prepare (after
// its cleanup) with Options.
type Dataset struct {
	Name    string         `toml:"name"`
	Script  string         `toml:"script"`
	Options map[string]any `toml:"options"`
}

// Workload is one script with its options, run on a data set.
type Workload struct {
	Name    string         `toml:"name"`
	Script  string         `toml:"script"`
	Dataset string         `toml:"dataset"`
	Options map[string]any `toml:"options"`
}

// Prepare policies.
const (
	PrepareEachSwitch = "each-switch" // afresh whenever the matrix moves to a target
	PrepareOnce       = "once"        // once per target, at its first turn
	PrepareNone       = "none"        // the data is there already
)

// Drivers are the driver names a target may have.
var Drivers = []string{"mysql", "pgsql", "sqlite"}

// ReadMatrix reads and checks a matrix file; bundled says whether a script
// name is one of the binary's own workloads.
func ReadMatrix(path string, bundled func(string) bool) (*Matrix, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the matrix file '%s': %v", path, report.PathCause(err))
	}
	m, err := ParseMatrix(b, path)
	if err != nil {
		return nil, err
	}
	m.bundled = bundled
	if err := m.Check(); err != nil {
		return nil, err
	}
	return m, nil
}

// ParseMatrix decodes a matrix document, refusing unknown keys, and sets
// the defaults; check validates it.
func ParseMatrix(b []byte, path string) (*Matrix, error) {
	m := &Matrix{Rounds: 1, Time: 10, Rotate: true, Prepare: PrepareOnce, PrepareThreads: 2, Rate: RateTPS,
		Path: path, Dir: filepath.Dir(path)}
	dec := toml.NewDecoder(bytes.NewReader(b)).DisallowUnknownFields()
	if err := dec.Decode(m); err != nil {
		return nil, decodeError(path, b, err)
	}
	m.pos = indexPositions(b)
	return m, nil
}

// decodeError is a TOML error as one line: the file, line and what is
// wrong, in the matrix file's words (not Go's types).
func decodeError(path string, doc []byte, err error) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) && len(strict.Errors) > 0 {
		e := strict.Errors[0]
		line, _ := e.Position()
		msg := fmt.Sprintf("%s:%d: unknown key %q", path, line, strings.Join(e.Key(), "."))
		if n := len(strict.Errors) - 1; n > 0 {
			msg += fmt.Sprintf(" (and %d more)", n)
		}
		return errors.New(msg)
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, _ := de.Position()
		msg := strings.TrimPrefix(de.Error(), "toml: ")
		if m := typeMismatch.FindStringSubmatch(msg); m != nil {
			key, value := keyValueAt(doc, line)
			if k := de.Key(); len(k) > 0 {
				key = strings.Join(k, ".")
			}
			what := key
			if strings.HasPrefix(value, "[") && m[1] != "array" && !strings.HasPrefix(m[2], "[]") {
				what = "each item of " + key // a list's element
			}
			msg = fmt.Sprintf("%s must be %s, not %s", what, goTypeWords(m[2]), tomlKindWords[m[1]])
			if value != "" {
				msg += " (" + value + ")"
			}
		}
		return fmt.Errorf("%s:%d: %s", path, line, msg)
	}
	return fmt.Errorf("%s: %v", path, err)
}

// typeMismatch is go-toml's message for a value of the wrong kind: the
// TOML kind, and the Go type it was to go into.
var typeMismatch = regexp.MustCompile(`^cannot decode TOML (\w+(?: \w+)?) into (?:struct field \S+ of type )?(.+)$`)

// tomlKindWords name TOML's kinds of value.
var tomlKindWords = map[string]string{"string": "a string", "integer": "a whole number", "float": "a number with a fraction",
	"boolean": "true or false", "array": "a list", "inline table": "a table", "table": "a table",
	"datetime": "a date and time", "local date": "a date", "local time": "a time", "local datetime": "a date and time"}

// goTypeWords say what a matrix field takes.
func goTypeWords(t string) string {
	switch {
	case t == "int":
		return "a whole number"
	case t == "[]int":
		return "a list of whole numbers, such as [10, 50]"
	case t == "[]string":
		return `a list of strings, such as ["p99<=10ms"]`
	case t == "float64":
		return "a number"
	case t == "bool":
		return "true or false"
	case t == "string":
		return "a string in quotes"
	case strings.HasPrefix(t, "map["):
		return `a table, such as { name = "value" }`
	case strings.HasPrefix(t, "[]compare."):
		return "tables of their own ([[" + strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(t, "[]compare."), "Spec")) + "]])"
	}
	return "another kind of value"
}

// keyValueAt is the key and the value of the key/value line line (from 1)
// of doc, as written; "" where the line is not one.
func keyValueAt(doc []byte, line int) (key, value string) {
	lines := strings.Split(string(doc), "\n")
	if line < 1 || line > len(lines) {
		return "", ""
	}
	k, v, ok := strings.Cut(lines[line-1], "=")
	if !ok {
		return "", ""
	}
	v = strings.TrimSpace(v)
	if len(v) > 40 {
		v = v[:40] + "..."
	}
	return strings.TrimSpace(k), v
}

// positions are the lines of a document's tables and keys, by path:
// "target.0" is the second [[target]]'s header, "target.0.driver" its key.
type positions map[string]int

func indexPositions(b []byte) positions {
	pos := positions{}
	var p unstable.Parser
	p.Reset(b)
	counts := map[string]int{}
	table := ""
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			name := keyPath(e.Key())
			if e.Kind == unstable.ArrayTable {
				n := counts[name]
				counts[name] = n + 1
				name = fmt.Sprintf("%s.%d", name, n)
			}
			table = name
			pos[table] = p.Shape(e.Raw).Start.Line
			if e.Raw.Length == 0 {
				pos[table] = lineOfKey(&p, e.Key())
			}
		case unstable.KeyValue:
			name := keyPath(e.Key())
			if table != "" {
				name = table + "." + name
			}
			pos[name] = lineOfKey(&p, e.Key())
		}
	}
	return pos
}

func keyPath(it unstable.Iterator) string {
	var parts []string
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
	}
	return strings.Join(parts, ".")
}

func lineOfKey(p *unstable.Parser, it unstable.Iterator) int {
	for it.Next() {
		if n := it.Node(); n.Raw.Length > 0 {
			return p.Shape(n.Raw).Start.Line
		}
	}
	return 0
}

// at prefixes a message with the file and the line of key (or of the
// nearest table that holds it).
func (m *Matrix) at(key, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	for k := key; k != ""; {
		if line := m.pos[k]; line > 0 {
			return fmt.Errorf("%s:%d: %s", m.Path, line, msg)
		}
		i := strings.LastIndexByte(k, '.')
		if i < 0 {
			break
		}
		k = k[:i]
	}
	return fmt.Errorf("%s: %s", m.Path, msg)
}

var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// Check validates what decoding cannot: required fields, ranges, names,
// references and scripts (again after the command line overrides some).
func (m *Matrix) Check() error {
	bundled := m.bundled
	switch {
	case m.Rounds < 1:
		return m.at("rounds", "rounds must be 1 or more")
	case m.Time < 1:
		return m.at("time", "time must be 1 second or more")
	case m.Warmup < 0:
		return m.at("warmup", "warmup must not be negative")
	case m.Cooldown < 0:
		return m.at("cooldown", "cooldown must not be negative")
	case len(m.Threads) == 0:
		return m.at("threads", "threads is missing (a list of thread counts, such as [10, 50])")
	case m.PrepareThreads < 1:
		return m.at("prepare_threads", "prepare_threads must be 1 or more")
	}
	if m.Prepare != PrepareEachSwitch && m.Prepare != PrepareOnce && m.Prepare != PrepareNone {
		return m.at("prepare", "prepare must be %q, %q or %q, not %q", PrepareEachSwitch, PrepareOnce, PrepareNone, m.Prepare)
	}
	if m.Rate != RateTPS && m.Rate != RateQPS {
		return m.at("rate", "rate must be \"tps\" or \"qps\", not %q", m.Rate)
	}
	seen := map[int]bool{}
	for _, n := range m.Threads {
		if n < 1 || seen[n] {
			return m.at("threads", "threads must be distinct counts of 1 or more")
		}
		seen[n] = true
	}
	if err := checkOptions(m, "options", m.Options); err != nil {
		return err
	}
	if err := m.checkCapacity(); err != nil {
		return err
	}
	if err := m.checkTargets(); err != nil {
		return err
	}
	if err := m.checkDatasets(bundled); err != nil {
		return err
	}
	return m.checkWorkloads(bundled)
}

// checkCapacity checks a capacity matrix's [capacity] and what a fixed
// load's cells have that its cells do not.
func (m *Matrix) checkCapacity() error {
	c := m.Capacity
	if c == nil {
		return nil
	}
	switch {
	case len(c.SLO) == 0:
		return m.at("capacity", "capacity.slo is missing: the objective, such as [\"p99<=10ms\", \"errors<=0.1%%\"]")
	case c.Time < 1:
		return m.at("capacity.time", "capacity.time must be 1 second or more: the time each search may take (docs/capacity.md)")
	case c.Rounds != 0 && (c.Rounds < 2 || c.Rounds > 100):
		return m.at("capacity.rounds", "capacity.rounds must be from 2 to 100: the rounds that confirm each answer")
	case c.Precision != 0 && !(c.Precision >= 0.1 && c.Precision <= 50):
		return m.at("capacity.precision", "capacity.precision must be from 0.1 to 50 (per cent)")
	case m.pos["time"] > 0:
		return m.at("time", "time is a fixed-load cell's: with [capacity], each search's time is capacity.time")
	case m.pos["warmup"] > 0 || m.Warmup != 0:
		return m.at("warmup", "warmup is a fixed-load cell's: a capacity search warms each of its steps up until steady")
	case m.ServerStats:
		return m.at("server_stats", "server_stats measures one run: a capacity cell is a search of many (leave it out with [capacity])")
	case m.Rate != RateTPS:
		return m.at("rate", "a capacity matrix's rate is tps: the search finds events per second")
	}
	for _, e := range c.SLO {
		t, err := report.ParseThreshold(e)
		if err != nil {
			return m.at("capacity.slo", "capacity.slo%s", strings.TrimPrefix(err.Error(), "invalid --threshold"))
		}
		if t.Kind() == "rate" {
			return m.at("capacity.slo", "capacity.slo '%s': the search finds the rate; an objective is on latency (p99<=10ms) or errors (errors<=0.1%%)", e)
		}
	}
	return nil
}

func (m *Matrix) checkTargets() error {
	if len(m.Targets) == 0 {
		return m.at("", "no [[target]]: a comparison needs at least one")
	}
	names := map[string]bool{}
	for i, t := range m.Targets {
		key := fmt.Sprintf("target.%d", i)
		switch {
		case t.Name == "":
			return m.at(key, "[[target]] has no name")
		case !namePattern.MatchString(t.Name):
			return m.at(key+".name", "target name %q: use letters, digits, '_', '-' and '.'", t.Name)
		case names[t.Name]:
			return m.at(key+".name", "two targets are named %q", t.Name)
		case t.Driver == "":
			return m.at(key, "target %q has no driver (one of %s)", t.Name, strings.Join(Drivers, ", "))
		case !slices.Contains(Drivers, t.Driver):
			return m.at(key+".driver", "target %q: unknown driver %q (one of %s)", t.Name, t.Driver, strings.Join(Drivers, ", "))
		}
		names[t.Name] = true
		if err := checkOptions(m, key+".options", t.Options); err != nil {
			return err
		}
	}
	return nil
}

func (m *Matrix) checkDatasets(bundled func(string) bool) error {
	names := map[string]bool{}
	for i, d := range m.Datasets {
		key := fmt.Sprintf("dataset.%d", i)
		switch {
		case d.Name == "":
			return m.at(key, "[[dataset]] has no name")
		case names[d.Name]:
			return m.at(key+".name", "two data sets are named %q", d.Name)
		case d.Script == "":
			return m.at(key, "data set %q has no script", d.Name)
		}
		names[d.Name] = true
		if err := m.checkScript(key+".script", d.Script, bundled); err != nil {
			return err
		}
		if err := checkOptions(m, key+".options", d.Options); err != nil {
			return err
		}
	}
	return nil
}

func (m *Matrix) checkWorkloads(bundled func(string) bool) error {
	if len(m.Workloads) == 0 {
		return m.at("", "no [[workload]]: a comparison needs at least one")
	}
	names := map[string]bool{}
	for i := range m.Workloads {
		w := &m.Workloads[i]
		key := fmt.Sprintf("workload.%d", i)
		switch {
		case w.Name == "":
			return m.at(key, "[[workload]] has no name")
		case !namePattern.MatchString(w.Name):
			return m.at(key+".name", "workload name %q: use letters, digits, '_', '-' and '.'", w.Name)
		case names[w.Name]:
			return m.at(key+".name", "two workloads are named %q", w.Name)
		case w.Script == "":
			return m.at(key, "workload %q has no script", w.Name)
		}
		names[w.Name] = true
		if err := m.checkScript(key+".script", w.Script, bundled); err != nil {
			return err
		}
		if err := checkOptions(m, key+".options", w.Options); err != nil {
			return err
		}
		switch {
		case w.Dataset == "" && len(m.Datasets) == 1:
			w.Dataset = m.Datasets[0].Name
		case w.Dataset == "" && len(m.Datasets) > 1:
			return m.at(key, "workload %q: which data set? (there are %d)", w.Name, len(m.Datasets))
		case w.Dataset != "" && m.dataset(w.Dataset) == nil:
			return m.at(key+".dataset", "workload %q: no data set named %q", w.Name, w.Dataset)
		}
	}
	return nil
}

// checkScript accepts a bundled workload's name or a readable file
// (relative to the matrix file's directory).
func (m *Matrix) checkScript(key, script string, bundled func(string) bool) error {
	if bundled != nil && bundled(script) {
		return nil
	}
	path := m.ScriptPath(script)
	if st, err := os.Stat(path); err != nil || st.IsDir() {
		return m.at(key, "unknown workload %q: neither a bundled workload nor a script file (%s)", script, path)
	}
	return nil
}

// ScriptPath is where a script that is not bundled is read from.
func (m *Matrix) ScriptPath(script string) string {
	if filepath.IsAbs(script) {
		return script
	}
	return filepath.Join(m.Dir, script)
}

func checkOptions(m *Matrix, key string, opts map[string]any) error {
	for _, k := range sortedKeys(opts) {
		if strings.HasPrefix(k, "-") || k == "" {
			return m.at(key+"."+k, "option %q: give its name without dashes", k)
		}
		if _, err := optionValue(opts[k]); err != nil {
			return m.at(key+"."+k, "option %q: %v", k, err)
		}
		if reservedOption(k) {
			return m.at(key+"."+k, "option %q is set by the matrix itself (threads, time, warmup, server_stats, [capacity])", k)
		}
	}
	return nil
}

// reservedOption is an option each cell's run gets from the matrix.
func reservedOption(name string) bool {
	switch strings.ReplaceAll(name, "_", "-") {
	case "threads", "time", "warmup-time", "results", "server-stats", "report-interval", "db-driver",
		"slo", "capacity-time", "capacity-rounds", "capacity-precision", "capacity-html", "sweep":
		return true
	}
	return false
}

// optionValue is an option's value as the command line takes it.
func optionValue(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case bool:
		if x {
			return "on", nil
		}
		return "off", nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return "", errors.New("not a finite number")
		}
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			s, err := optionValue(e)
			if err != nil {
				return "", err
			}
			parts[i] = s
		}
		return strings.Join(parts, ","), nil
	}
	return "", fmt.Errorf("a %T is not an option value (a string, number, boolean or list)", v)
}

// args turns options into --name=value arguments, sorted by name.
func args(opts map[string]any) []string {
	var out []string
	for _, k := range sortedKeys(opts) {
		v, _ := optionValue(opts[k])
		out = append(out, "--"+k+"="+v)
	}
	return out
}

func sortedKeys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

func (m *Matrix) dataset(name string) *Dataset {
	for i := range m.Datasets {
		if m.Datasets[i].Name == name {
			return &m.Datasets[i]
		}
	}
	return nil
}

func (m *Matrix) target(name string) *TargetSpec {
	for i := range m.Targets {
		if m.Targets[i].Name == name {
			return &m.Targets[i]
		}
	}
	return nil
}

// TargetArgs are the driver arguments of a target, for its runs and its
// reachability check.
func (m *Matrix) TargetArgs(t *TargetSpec) []string {
	return append([]string{"--db-driver=" + t.Driver}, args(t.Options)...)
}

// Line is the line of a key in the matrix file (0 when unknown), for
// callers that report on a target or workload.
func (m *Matrix) Line(key string) int { return m.pos[key] }

// Errorf is an error about key, with the file and line.
func (m *Matrix) Errorf(key, format string, a ...any) error { return m.at(key, format, a...) }

// ScriptCheck is a child run that checks a script takes the options the
// matrix gives it: the script's help command refuses unknown options.
type ScriptCheck struct {
	Key  string // the matrix key it is about
	What string
	Args []string
}

// ScriptChecks are the checks of every data set's and workload's options
// (data sets first, since workloads run with their options too), with the
// first target's driver options.
func (m *Matrix) ScriptChecks() []ScriptCheck {
	var out []ScriptCheck
	t := &m.Targets[0]
	for i, d := range m.Datasets {
		a := m.prepareArgs(t, d, "help")
		out = append(out, ScriptCheck{Key: fmt.Sprintf("dataset.%d", i), What: fmt.Sprintf("data set %q", d.Name), Args: a})
	}
	for i, w := range m.Workloads {
		a := m.runArgs(t, &w, m.Threads[0])
		out = append(out, ScriptCheck{Key: fmt.Sprintf("workload.%d", i), What: fmt.Sprintf("workload %q", w.Name),
			Args: append(a[:len(a)-1:len(a)-1], "help")})
	}
	return out
}
