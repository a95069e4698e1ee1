package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
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
}

// parseArgs splits argv into options and the test name and command, as
// the reference: options anywhere, --name=value or bare --name.
func parseArgs(args []string) (*commandLine, error) {
	cl := &commandLine{}
	for _, a := range args {
		if !strings.HasPrefix(a, "--") {
			switch {
			case cl.testname == "":
				cl.testname = a
			case cl.command == "":
				cl.command = a
			default:
				return nil, fmt.Errorf("Unrecognized command line argument: %s", a)
			}
			continue
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

// readConfigFile reads options one per line ("name=value" or "--name=value";
// '#' comments and blank lines ignored).
func readConfigFile(path string) ([][2]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot open config file '%s': %v", path, err)
	}
	defer f.Close()
	var out [][2]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "--")
		name, val, has := strings.Cut(line, "=")
		if !has {
			val = "on"
		}
		out = append(out, [2]string{strings.TrimSpace(name), strings.TrimSpace(val)})
	}
	return out, sc.Err()
}

// givenOption is an option as the user gave it, config files expanded.
type givenOption struct {
	name, val, raw string
	bare           bool
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
			lines, err := readConfigFile(o[1])
			if err != nil {
				return nil, usageError{err.Error()}
			}
			for _, l := range lines {
				all = append(all, givenOption{name: l[0], val: l[1], raw: "--" + l[0] + "=" + l[1]})
			}
			continue
		}
		if o[0] == "test" {
			fmt.Fprintf(stderr, "WARNING: the --test option is deprecated. You can pass a script name or path on the command line without any options.\n")
			if cl.testname != "" && cl.command == "" {
				cl.command = cl.testname
			}
			cl.testname = o[1]
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
		if o.Name == "threshold" {
			s.thresholdExprs = append(s.thresholdExprs, g.val)
		}
		if o.Name == "slo" {
			s.sloExprs = append(s.sloExprs, g.val)
		}
		if err := setValue(values, o, g.val, g.bare); err != nil {
			return nil, usageError{"invalid option: " + g.raw}
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
	for _, g := range s.pending {
		o, ok := known[options.Canonical(g.name)]
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
			if o.Words {
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
		return fmt.Errorf("option --%s needs a value", o.Name)
	}
	v.Set(o.Name, val)
	return nil
}
