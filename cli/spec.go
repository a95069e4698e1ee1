package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/sysbench-go/sysbench-go/engine"
	"github.com/sysbench-go/sysbench-go/logging"
	"github.com/sysbench-go/sysbench-go/options"
	"github.com/sysbench-go/sysbench-go/report"
	"github.com/sysbench-go/sysbench-go/sbrand"
)

// A run of the drop-in command line is specified in four steps, in the
// reference's order, all in this file: parseArgs splits the arguments,
// readSpec sets every general and driver option from them and the
// --config-file files (help and version need no more), resolve validates
// them and derives the run's settings (their errors and warnings come
// before the banner), and bind, once the test or script is known, sets the
// options it declares. What runs the test takes the spec and nothing else.

// commandLine is the result of the first pass over argv.
type commandLine struct {
	opts     [][2]string // name, value in order; value "" with hasValue false for bare flags
	bare     []bool
	raw      []string // the argument as given, for "invalid option" messages
	testname string
	command  string
	// named: a test name was given (it may be "": the reference then
	// looks for a test of that name); without one the script is read
	// from standard input.
	named, hasCommand bool
}

// parseArgs splits argv into options and the test name and command, as
// the reference: options anywhere, --name=value or bare --name; the
// deprecated --test=NAME names the test where it stands, so that a word
// after it is the command and one before it is replaced.
func parseArgs(args []string) (*commandLine, error) {
	cl := &commandLine{}
	for _, a := range args {
		if !strings.HasPrefix(a, "--") {
			switch {
			case !cl.named:
				cl.testname, cl.named = a, true
			case !cl.hasCommand:
				cl.command, cl.hasCommand = a, true
			default:
				return nil, fmt.Errorf("Unrecognized command line argument: %s", a)
			}
			continue
		}
		if name, ok := strings.CutPrefix(a, "--test="); ok {
			cl.testname, cl.named = name, true
		}
		body := a[2:]
		name, val, has := strings.Cut(body, "=")
		cl.opts = append(cl.opts, [2]string{name, val})
		cl.bare = append(cl.bare, !has)
		cl.raw = append(cl.raw, a)
	}
	return cl, nil
}

// format prints the command line back as arguments that parse to it.
func (cl *commandLine) format() []string {
	var args []string
	for i, o := range cl.opts {
		if o[0] == "test" && !cl.bare[i] {
			continue // the test's name follows
		}
		if cl.bare[i] {
			args = append(args, "--"+o[0])
		} else {
			args = append(args, "--"+o[0]+"="+o[1])
		}
	}
	for _, a := range []string{cl.testname, cl.command} {
		if a != "" {
			args = append(args, a)
		}
	}
	return args
}

// configLine is one option of a --config-file: its name as written and
// its values.
type configLine struct {
	name   string
	values []string
}

// readConfigFile reads a --config-file as the reference does: a line is
// NAME=VALUES, the name as written (blanks and dashes included: "--x" or
// "x " is another option's name), the values separated by blanks or
// commas, '#' starting a comment, quotes around a value with blanks; a
// line without '=' is skipped. A file that cannot be opened is said on
// stderr as perror(3) says it ("FILE: No such file or directory") and
// gives no options: the run goes on.
func readConfigFile(path string, stderr io.Writer) []configLine {
	f, err := os.Open(path)
	if err != nil {
		msg := err.Error()
		var pe *os.PathError
		if errors.As(err, &pe) {
			msg = strerror(pe.Err)
		}
		fmt.Fprintf(stderr, "%s: %s\n", path, msg)
		return nil
	}
	defer f.Close()
	var out []configLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		l := configLine{name: name}
		for rest != "" {
			switch c := rest[0]; {
			case c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f':
				rest = rest[1:]
			case c == '#':
				rest = ""
			case c == '\'' || c == '"':
				end := strings.IndexByte(rest[1:], c)
				if end < 0 {
					fmt.Fprintf(stderr, "unexpected EOL on line %d\n", len(out)+1)
					return out
				}
				l.values = append(l.values, rest[1:1+end])
				rest = rest[1+end+1:]
				if i := strings.IndexByte(rest, ','); i >= 0 {
					rest = rest[i+1:]
				} else {
					rest = ""
				}
			default:
				end := strings.IndexAny(rest, ", \t\r\v\f")
				if end < 0 {
					end = len(rest)
				}
				l.values = append(l.values, rest[:end])
				rest = rest[min(end+1, len(rest)):]
			}
		}
		out = append(out, l)
	}
	return out
}

// value is the line's value for an option of kind k: the first one, as
// the reference reads numbers and words; all of them for a list; a flag
// is on when the line gives it any value (the reference counts values).
func (l configLine) value(k options.Kind) string {
	switch {
	case k == options.List:
		return strings.Join(l.values, ",")
	case k == options.Bool && len(l.values) > 0:
		return "on"
	case k == options.Bool:
		return "off"
	case len(l.values) == 0:
		return ""
	}
	return l.values[0]
}

// strerror is errno's text as the C library says it ("No such file or
// directory"), which Go's error texts spell in lower case.
func strerror(err error) string {
	msg := err.Error()
	if msg == "" {
		return msg
	}
	return strings.ToUpper(msg[:1]) + msg[1:]
}

// givenOption is an option as the user gave it, config files expanded.
type givenOption struct {
	name, val, raw string
	bare           bool
	// config: from a --config-file, which may name options no test
	// declares (the reference ignores them).
	config *configLine
}

// runSpec is one run as the command line, the config files and the
// environment specify it.
type runSpec struct {
	cl   *commandLine
	args []string // as given, for sysbench.cmdline.argv
	// declared are the general and driver options (and the built-in
	// tests'), values every declared option's value, pending the options
	// given that a test or script may declare (bind).
	declared []options.Option
	values   *options.Values
	pending  []givenOption
	// thresholdExprs are the --threshold expressions (repeatable) as
	// given.
	thresholdExprs []string
	// sloExprs are the capacity command's --slo expressions (repeatable).
	sloExprs []string

	// Set by resolve.
	cfg        engine.Config
	rand       sbrand.Config
	level      logging.Level
	thresholds []report.Threshold
	// instance is --instance; tidOffset its first thread id.
	instance  instance
	tidOffset int
	// endpoint is --await-start and --serve-results.
	endpoint endpoint
	// outputs are the checked --results and --intervals-csv, by name;
	// textToStderr says one of them is standard output, so the text
	// report goes to standard error.
	outputs      map[string]*report.Output
	textToStderr bool
	// conns are the connection models and checks (connections.go).
	conns connectionsSpec
	// progress is --progress (progress.go).
	progress progressMode
}

// usageError is an argument the command line cannot take: printed as it
// is on standard error, as the reference does (no FATAL prefix).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// readSpec sets the general and driver options (declared) from the command
// line and config files; the others are kept for the test to declare. The
// deprecated --test option's warning goes to stderr.
func readSpec(cl *commandLine, args []string, declared []options.Option, stderr io.Writer) (*runSpec, error) {
	values := options.NewValues()
	known := declare(values, declared)
	var all []givenOption
	for i, o := range cl.opts {
		if options.Canonical(o[0]) == "config_file" {
			if o[1] == "" {
				continue // no file named: nothing read, as the reference
			}
			for _, l := range readConfigFile(o[1], stderr) {
				all = append(all, givenOption{name: l.name, raw: l.name + "=" + strings.Join(l.values, ","), config: &l})
			}
			continue
		}
		if o[0] == "test" && !cl.bare[i] {
			// parseArgs took its name.
			fmt.Fprintf(stderr, "WARNING: the --test option is deprecated. You can pass a script name or path on the command line without any options.\n")
			continue
		}
		all = append(all, givenOption{name: o[0], val: o[1], raw: cl.raw[i], bare: cl.bare[i]})
	}
	s := &runSpec{cl: cl, args: args, declared: declared, values: values}
	for _, g := range all {
		o, ok := known[options.Canonical(g.name)]
		if !ok {
			s.pending = append(s.pending, g)
			continue
		}
		if g.config != nil {
			values.Set(o.Name, g.config.value(o.Kind))
			continue
		}
		if o.Name == "threshold" {
			s.thresholdExprs = append(s.thresholdExprs, g.val)
		}
		if o.Name == "slo" {
			s.sloExprs = append(s.sloExprs, g.val)
		}
		if err := setValue(values, o, g.val, g.bare); err != nil {
			// The reference refuses it only once the test is known,
			// with the test's own options (bind).
			s.pending = append(s.pending, g)
		}
	}
	return s, nil
}

// resolve validates the general settings and derives the run's: the
// engine's configuration, the random numbers', the instance, the start,
// the endpoint, the verbosity, the thresholds and, for run, the outputs.
// warn prints a deprecated option's warning.
func (s *runSpec) resolve(warn func(string)) error {
	cfg, err := buildConfig(s.values, warn)
	if err == nil {
		s.rand, err = randConfig(s.values)
	}
	if err == nil {
		s.instance, err = parseInstance(s.values)
	}
	if err == nil && s.cl.command == "run" { // prepare and cleanup see the whole data set
		s.tidOffset, err = s.instance.apply(&cfg, &s.rand.Seed)
	}
	if err == nil {
		cfg.StartAt, err = parseStartAt(s.values)
	}
	if err == nil {
		s.endpoint, err = parseEndpoint(s.values)
	}
	if err == nil && cfg.WarmupAuto && (!cfg.StartAt.IsZero() || s.endpoint.await > 0) {
		// Those fix when the measured window begins; auto would move it.
		err = errors.New("--warmup-time=auto cannot be combined with --start-at or --await-start: use a warm-up in seconds")
	}
	if err == nil {
		s.level, err = verbosity(s.values)
	}
	if err == nil {
		s.conns, err = parseConnections(s.values)
	}
	if err == nil {
		s.progress, err = parseProgress(s.values)
	}
	for _, e := range s.thresholdExprs {
		if err != nil {
			break
		}
		var t report.Threshold
		if t, err = report.ParseThreshold(e); err == nil {
			s.thresholds = append(s.thresholds, t)
		}
	}
	if err == nil && (s.cl.command == "run" || s.cl.command == "capacity") {
		err = s.checkOutputs()
	}
	if err != nil {
		return err
	}
	s.cfg = cfg
	return nil
}

// bind sets the pending options that a test or script declares (opts). An
// option it does not declare is invalid, unless legacy: a 0.5-era script,
// which declares none, gets it as a global.
func (s *runSpec) bind(opts []options.Option, legacy bool) error {
	known := declare(s.values, opts)
	general := map[string]options.Option{}
	for _, o := range s.declared {
		general[options.Canonical(o.Name)] = o
	}
	for _, g := range s.pending {
		o, ok := known[options.Canonical(g.name)]
		if !ok {
			// A general option readSpec could not set: refused here.
			o, ok = general[options.Canonical(g.name)]
		}
		if g.config != nil {
			// A config file's option the test declares takes effect; one
			// it does not is ignored, as the reference ignores it.
			if ok {
				s.values.Set(o.Name, g.config.value(o.Kind))
			}
			continue
		}
		if !ok && legacy {
			val := g.val
			if g.bare {
				val = "on"
			}
			s.values.Set(g.name, val)
			continue
		}
		if !ok || setValue(s.values, o, g.val, g.bare) != nil {
			return usageError{"invalid option: " + g.raw}
		}
	}
	return nil
}

// declare gives the options their defaults in values and returns them by
// canonical name, for the options given on the command line to be set.
func declare(values *options.Values, opts []options.Option) map[string]options.Option {
	byName := make(map[string]options.Option, len(opts))
	for _, o := range opts {
		byName[options.Canonical(o.Name)] = o
		if !o.NoDefault {
			values.SetDefault(o.Name, o.Default)
		}
	}
	return byName
}

// setValue stores a user-given value after checking it has the kind's
// shape (the reference rejects e.g. a bare non-boolean option).
func setValue(v *options.Values, o options.Option, val string, bare bool) error {
	if o.Kind == options.Bool {
		if bare {
			val = "on"
		}
		b, err := options.ParseBool(val)
		if err != nil {
			if o.Words && slices.ContainsFunc(o.Choices, func(c string) bool { return strings.EqualFold(c, val) }) {
				v.Set(o.Name, val)
				return nil
			}
			return err
		}
		if b {
			val = "on"
		} else {
			val = "off"
		}
	} else if bare {
		// The reference takes a bare option as one given no value.
		val = ""
	}
	v.Set(o.Name, val)
	return nil
}
