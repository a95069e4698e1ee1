package cli

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/engine"
	"github.com/sysbench-go/sysbench-go/logging"
	"github.com/sysbench-go/sysbench-go/options"
	"github.com/sysbench-go/sysbench-go/sbrand"
)

// Option groups as the reference's --help prints them.
var generalOptions = []options.Option{
	{Name: "threads", Desc: "number of threads to use", Kind: options.Int, Default: "1"},
	{Name: "events", Desc: "limit for total number of events", Kind: options.Int, Default: "0"},
	{Name: "time", Desc: "limit for total execution time in seconds", Kind: options.Int, Default: "10"},
	{Name: "warmup-time", Extension: true, Desc: "execute events for this many seconds with statistics disabled before the actual benchmark run with statistics enabled; 'auto' ends the warm-up once the throughput is steady (at most 60 seconds, or MAX with 'auto:MAX')", Kind: options.String, Placeholder: "=N|auto[:MAX]", Default: "0"},
	{Name: "forced-shutdown", Desc: "number of seconds to wait after the --time limit before forcing shutdown, or 'off' to disable", Kind: options.String, Default: "off"},
	{Name: "thread-stack-size", Desc: "size of stack per thread", Kind: options.Size, Default: "64K"},
	{Name: "rate", Desc: "average transactions rate. 0 for unlimited rate", Kind: options.Int, Default: "0"},
	{Name: "report-interval", Desc: "periodically report intermediate statistics with a specified interval in seconds. 0 disables intermediate reports", Kind: options.Int, Default: "0"},
	{Name: "report-checkpoints", Desc: "dump full statistics and reset all counters at specified points in time. The argument is a list of comma-separated values representing the amount of time in seconds elapsed from start of test when report checkpoint(s) must be performed. Report checkpoints are off by default.", Kind: options.List, Default: ""},
	{Name: "debug", Desc: "print more debugging info", Kind: options.Bool, Default: "off"},
	{Name: "validate", Desc: "perform validation checks where possible", Kind: options.Bool, Default: "off"},
	{Name: "help", Desc: "print help and exit", Kind: options.Bool, Default: "off"},
	{Name: "version", Desc: "print version and exit", Kind: options.Bool, Default: "off"},
	{Name: "config-file", Desc: "File containing command line options", Kind: options.File, NoDefault: true},
	{Name: "tx-rate", Desc: "deprecated alias for --rate", Kind: options.Int, Default: "0"},
	{Name: "max-requests", Desc: "deprecated alias for --events", Kind: options.Int, Default: "0"},
	{Name: "max-time", Desc: "deprecated alias for --time", Kind: options.Int, Default: "0"},
	{Name: "num-threads", Desc: "deprecated alias for --threads", Kind: options.Int, Default: "1"},
	{Name: "progress", Extension: true, Desc: "show the progress of long work on standard error, redrawn in place: prepare's rows loaded (per table and in all, with their rate and the time left) and run's time, events and rate; 'auto' when standard error is a terminal, 'on' always (a pipe to a log viewer), 'off' never. Standard output is never touched", Kind: options.Bool, Words: true, Choices: []string{"auto"}, Placeholder: "[=auto|on|off]", Default: "auto"},
}

var randOptions = []options.Option{
	{Name: "rand-type", Desc: "random numbers distribution {uniform,gaussian,special,pareto,zipfian}", Kind: options.String, Default: "special",
		Ref: &options.Option{Name: "rand-type", Desc: "random numbers distribution {uniform,gaussian,special,pareto}", Kind: options.String, Default: "special"}},
	{Name: "rand-spec-iter", Desc: "number of iterations used for numbers generation", Kind: options.Int, Default: "12"},
	{Name: "rand-spec-pct", Desc: "percentage of values to be treated as 'special' (for special distribution)", Kind: options.Int, Default: "1"},
	{Name: "rand-spec-res", Desc: "percentage of 'special' values to use (for special distribution)", Kind: options.Int, Default: "75"},
	{Name: "rand-seed", Desc: "seed for random number generator. When 0, the current time is used as a RNG seed.", Kind: options.Int, Default: "0"},
	{Name: "rand-pareto-h", Desc: "parameter h for pareto distribution", Kind: options.Float, Default: "0.2"},
	{Name: "rand-zipfian-exp", Extension: true, Desc: "shape parameter (exponent, theta) for the Zipfian distribution", Kind: options.Float, Default: "0.8"},
}

var logOptions = []options.Option{
	{Name: "verbosity", Desc: "verbosity level {5 - debug, 0 - only critical messages}", Kind: options.Int, Default: "3"},
}

var statOptions = []options.Option{
	{Name: "percentile", Desc: "percentile to calculate in latency statistics (1-100). Use the special value of 0 to disable percentile calculations. A list (50,95,99,99.9) prints one line per value", Kind: options.String, Default: "95",
		Ref: &options.Option{Name: "percentile", Desc: "percentile to calculate in latency statistics (1-100). Use the special value of 0 to disable percentile calculations", Kind: options.Int, Default: "95"}},
	{Name: "histogram", Desc: "print latency histogram in report", Kind: options.Bool, Default: "off"},
	{Name: "max-tries", Extension: true, Desc: "try an event at most N times: an event whose every try ends in an ignored error (a deadlock, a serialization failure) is a failed event, left out of the latency statistics; 0 restarts it without limit, as sysbench", Kind: options.Int, Default: "0"},
	{Name: "outage-threshold", Extension: true, Desc: "seconds without a completed event, while events run or fail, that make an outage: outages are printed after the report ('Availability:'), kept in --results and served at --metrics-addr (docs/availability.md); 0: off", Kind: options.Float, Default: "1"},
	{Name: "failures-detailed", Extension: true, Desc: "print the retries and failed events by error code after the report", Kind: options.Bool, Default: "off"},
	{Name: "server-stats", Extension: true, Desc: "watch the database server during the run: its settings, its counters over the run (WAL/redo, binlog and data bytes written per transaction), its CPU and memory when it runs on this machine, what the run's sessions wait on; printed after the report and kept in --results", Kind: options.Bool, Default: "off"},
	{Name: "server-pid", Extension: true, Desc: "the database server's process for --server-stats' CPU and memory (default: the process listening on the server's port or socket, when on this machine)", Kind: options.Int, Default: "0"},
	{Name: "statement-stats", Extension: true, Desc: "time every statement the script runs (each prepared statement; each query with its literals made '?') and print their count, errors, mean and percentiles after the report, the most total time first, as pgbench -r", Kind: options.Bool, Default: "off"},
	{Name: "threshold", Extension: true, Desc: "fail the run when the whole run misses EXPR: a measure (p<N> avg min max in us/ms/s; tps qps; errors as % or fraction; reconnects failed retries), a comparison (< <= > >= == !=) and a bound, e.g. p95<5ms, tps>1000, errors<0.1%; repeatable. A run that misses one exits with status 99", Kind: options.String, NoDefault: true},
	{Name: "results", Extension: true, Desc: "write the run's results to FILE as one JSON document (docs/results.md): counters, errors by code, percentiles, the whole latency histogram, intervals and checkpoints; 'sysbench-go report FILE...' prints and merges them", Kind: options.File, NoDefault: true},
	{Name: "intervals-csv", Extension: true, Desc: "write the intermediate reports (--report-interval) to FILE as CSV, one row per interval", Kind: options.File, NoDefault: true},
}

var dbOptions = []options.Option{
	{Name: "db-driver", Desc: "specifies database driver to use ('help' to get list of available drivers)", Kind: options.String, Default: "mysql"},
	{Name: "db-ps-mode", Desc: "prepared statements usage mode {auto, disable}", Kind: options.String, Default: "auto"},
	{Name: "db-debug", Desc: "print database-specific debug information", Kind: options.Bool, Default: "off"},
	{Name: "query-timeout", Extension: true, Desc: "seconds a query may wait for the server: one that waits longer (a network partition, a frozen server) fails with error HYT00 and its connection is given up, reconnected when the error is ignored (HYT00 or a lost connection in --mysql-ignore-errors/--pgsql-ignore-errors); 0: no limit", Kind: options.Float, Default: "0"},
	{Name: "db-dry-run", Extension: true, Desc: "dry run with any driver: pretend that all database calls succeed without executing them (measures client cost)", Kind: options.Bool, Default: "off"},
}

// optionGroup is a group of options as the manual shows them.
type optionGroup struct {
	title string
	opts  []options.Option
}

// generalGroups are the options of every run but the drivers', in --help
// order (the reference's statistics group has no title there).
func generalGroups() []optionGroup {
	return []optionGroup{{"General options", generalOptions}, {"Pseudo-Random Numbers Generator options", randOptions},
		{"Log options", logOptions}, {"Statistics options", statOptions}, {"General database options", dbOptions},
		{"Distributed run options", distributedOptions}, {"Connection options", connectionOptions},
		{"Workload authoring options", traceOptions}, {"Capacity options", capacityOptions}}
}

// capacityOptions are the capacity command's (cli/capacitycmd.go,
// docs/capacity.md).
var capacityOptions = []options.Option{
	{Name: "slo", Extension: true, Desc: "the capacity command's objective, in --threshold's syntax on latency or errors (p99<=10ms, avg<2ms, errors<=0.1%); repeatable: a rate holds when every one holds on its step", Kind: options.String, NoDefault: true},
	{Name: "capacity-time", Extension: true, Desc: "seconds the capacity command may take in all: the search's steps (and --sweep's) share them", Kind: options.Int, Default: "300"},
	{Name: "capacity-rounds", Extension: true, Desc: "rounds at the rate found that confirm it and give its confidence interval (at least 2)", Kind: options.Int, Default: "3"},
	{Name: "capacity-precision", Extension: true, Desc: "the narrowing stops when the lowest failing rate is at most this many per cent above the highest holding one", Kind: options.Float, Default: "2"},
	{Name: "sweep", Extension: true, Desc: "the capacity command's concurrency sweep: threads FROM:TO (doubled from FROM) or a list (1,2,4,8), each step in the closed model once steady, and the Universal Scalability Law fitted to the throughput", Kind: options.String, NoDefault: true},
	{Name: "capacity-html", Extension: true, Desc: "write the capacity command's pictures to FILE, a self-contained HTML page: latency against throughput with the objective and the answer, throughput against threads with the fitted law", Kind: options.File, NoDefault: true},
}

// allDeclared is every option known before a script is loaded.
func allDeclared(drv []drivers.Factory, tests []engine.Builtin) []options.Option {
	var all []options.Option
	for _, g := range generalGroups() {
		all = append(all, g.opts...)
	}
	for _, d := range drv {
		all = append(all, d.Options...)
	}
	return all
}

// parsePercentiles accepts "95" or a list "50,95,99,99.9"; 0 disables.
// A whole number is read as the reference reads it (an integer option);
// fractions and lists are ours.
func parsePercentiles(s string) ([]float64, error) {
	if !strings.ContainsAny(s, ".,") {
		var n int64
		if s != "" {
			var err error
			if n, err = options.ParseInt(s); err != nil {
				return nil, &options.ValueError{Name: "percentile", Value: s}
			}
		}
		switch {
		case n < 0 || n > 100:
			return nil, fmt.Errorf("Invalid value for --percentile: %d", n)
		case n == 0:
			return nil, nil
		}
		return []float64{float64(n)}, nil
	}
	var out []float64
	for _, p := range options.SplitList(s) {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || f < 0 || f > 100 || math.IsNaN(f) {
			return nil, fmt.Errorf("Invalid value for --percentile: %s", p)
		}
		if f == 0 {
			if len(options.SplitList(s)) > 1 {
				return nil, fmt.Errorf("Invalid value for --percentile: %s", s)
			}
			return nil, nil
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("Invalid value for --percentile: %s", s)
	}
	return out, nil
}

// secondsOpt reads an option given in whole seconds, at least min.
func secondsOpt(v *options.Values, name string, min int64) (time.Duration, error) {
	n, err := v.Int(name)
	if err != nil || n < min {
		return 0, fmt.Errorf("Invalid value for --%s: '%s' (seconds, at least %d)", name, v.String(name), min)
	}
	return time.Duration(n) * time.Second, nil
}

// intOpt reads an integer option with the reference's error wording.
func intOpt(v *options.Values, name string) (int64, error) {
	return v.Int(name)
}

// warmupTime reads --warmup-time: seconds, or "auto" (the warm-up ends
// once the throughput is steady, after engine.DefaultAutoWarmupMax at the
// latest) or "auto:MAX" (after MAX seconds at the latest).
func warmupTime(v *options.Values) (time.Duration, bool, error) {
	s, _ := v.Raw("warmup-time")
	s = strings.TrimSpace(s)
	if s == "auto" {
		return engine.DefaultAutoWarmupMax, true, nil
	}
	if m, ok := strings.CutPrefix(s, "auto:"); ok {
		n, err := strconv.ParseInt(strings.TrimSpace(m), 10, 64)
		if err != nil || n <= 0 || n > math.MaxInt32 {
			return 0, false, fmt.Errorf("Invalid value for --warmup-time: '%s' (auto:MAX needs a maximum in whole seconds above 0)", s)
		}
		return time.Duration(n) * time.Second, true, nil
	}
	warm, err := intOpt(v, "warmup-time")
	if err != nil {
		return 0, false, fmt.Errorf("Invalid value for --warmup-time: '%s' (seconds, auto or auto:MAX)", s)
	}
	if warm < 0 {
		return 0, false, fmt.Errorf("Invalid value for --warmup-time: %d.", warm)
	}
	return time.Duration(warm) * time.Second, false, nil
}

// verbosity reads --verbosity; --debug forces the DEBUG level.
func verbosity(v *options.Values) (logging.Level, error) {
	if v.Bool("debug") {
		// --debug sets the verbosity before the reference reads it.
		return logging.Debug, nil
	}
	verb, err := intOpt(v, "verbosity")
	if err != nil {
		return 0, err
	}
	verb = int64(uint8(verb)) // the reference keeps it in an unsigned char
	if verb > int64(logging.Debug) {
		// The reference checks this in its logger, which prints it plain.
		return 0, plainError{fmt.Sprintf("Invalid value for verbosity: %d", verb)}
	}
	return logging.Level(max(verb, -1)), nil
}

// plainError is an error printed as it is, without the FATAL prefix.
type plainError struct{ msg string }

func (e plainError) Error() string { return e.msg }

// buildConfig turns the general options into the engine's configuration,
// with the reference's validation and error texts. Options are read in the
// reference's order, and a deprecated alias given a value replaces its
// option unread, as there.
func buildConfig(v *options.Values, warn func(string)) (engine.Config, error) {
	var c engine.Config
	threads, err := aliasedInt(v, "num-threads", "threads", 1, warn)
	if err != nil {
		return c, err
	}
	if threads <= 0 || threads > 1<<20 {
		return c, fmt.Errorf("Invalid value for --threads: %d.\n", threads)
	}
	c.Threads = int(threads)

	// The reference keeps --events and --time unsigned: a negative one is
	// no limit (and not the endless run's warning either).
	events, err := aliasedInt(v, "max-requests", "events", 0, warn)
	if err != nil {
		return c, err
	}
	c.Events = uint64(max(events, 0))
	secs, err := aliasedInt(v, "max-time", "time", 0, warn)
	if err != nil {
		return c, err
	}
	c.Time = time.Duration(max(secs, 0)) * time.Second
	if events == 0 && secs == 0 {
		warn("Both event and time limits are disabled, running an endless test")
	}

	c.ForcedShutdown = -1
	if secs != 0 {
		if c.ForcedShutdown, err = forcedShutdown(v, secs); err != nil {
			return c, err
		}
	}

	// Our goroutines' stacks grow as they need; the value is checked as
	// the reference checks it.
	if stack := v.Size("thread-stack-size"); stack == 0 {
		return c, fmt.Errorf("Invalid value for thread-stack-size: %d.\n", stack)
	}

	if c.Warmup, c.WarmupAuto, err = warmupTime(v); err != nil {
		return c, err
	}

	rate, err := aliasedInt(v, "tx-rate", "rate", 0, warn)
	if err != nil {
		return c, err
	}
	if rate < 0 {
		return c, fmt.Errorf("Invalid value for --rate: %d.", rate)
	}
	c.Rate = float64(rate)

	// Unsigned in the reference too: a negative interval is one of some
	// 136 years, which the header prints as given.
	ri, err := intOpt(v, "report-interval")
	if err != nil {
		return c, err
	}
	c.ReportInterval = time.Duration(uint32(ri)) * time.Second

	for _, s := range v.List("report-checkpoints") {
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil || n < 0 {
			return c, fmt.Errorf("Invalid value for --report-checkpoints: '%s'", s)
		}
		c.Checkpoints = append(c.Checkpoints, time.Duration(n)*time.Second)
	}
	if len(c.Checkpoints) > 256 {
		return c, fmt.Errorf("Too many checkpoints in --report-checkpoints (up to 256 can be defined)")
	}
	sort.Slice(c.Checkpoints, func(i, j int) bool { return c.Checkpoints[i] < c.Checkpoints[j] })

	c.Debug = v.Bool("debug")
	c.Validate = v.Bool("validate")
	c.Percentiles, err = parsePercentiles(v.String("percentile"))
	if err != nil {
		return c, err
	}
	c.Histogram = v.Bool("histogram")
	if c.Histogram && len(c.Percentiles) == 0 {
		return c, fmt.Errorf("--histogram cannot be used with --percentile=0")
	}
	c.RandSeed, err = intOpt(v, "rand-seed")
	if err != nil {
		return c, err
	}
	tries, err := intOpt(v, "max-tries")
	if err != nil {
		return c, err
	}
	if tries < 0 || tries > 1<<30 {
		return c, fmt.Errorf("Invalid value for --max-tries: %d.", tries)
	}
	c.MaxTries = int(tries)
	c.FailuresDetailed = v.Bool("failures-detailed")
	if c.OutageThreshold, err = fracSecondsOpt(v, "outage-threshold"); err != nil {
		return c, err
	}
	return c, nil
}

// fracSecondsOpt reads an option of seconds, fractions allowed, at
// least 0.
func fracSecondsOpt(v *options.Values, name string) (time.Duration, error) {
	f, err := v.Float(name)
	if err != nil || f < 0 || math.IsNaN(f) || f > 1e6 {
		return 0, fmt.Errorf("Invalid value for --%s: '%s' (seconds, 0 or more)", name, v.String(name))
	}
	return time.Duration(f * float64(time.Second)), nil
}

// aliasedInt reads a general option that has a deprecated alias the way
// the reference does: the alias first; when it is above its default
// (above 1 for --num-threads, 0 for the others) it is used, with a
// warning, and the option itself is not read. The reference keeps all
// but --max-time unsigned, so that a negative alias is above too.
func aliasedInt(v *options.Values, alias, name string, def int64, warn func(string)) (int64, error) {
	n, err := intOpt(v, alias)
	if err != nil {
		return 0, err
	}
	above := n > def
	if alias != "max-time" {
		above = uint32(n) > uint32(def)
	}
	if above {
		warn(fmt.Sprintf("--%s is deprecated, use --%s instead", alias, name))
		return n, nil
	}
	return intOpt(v, name)
}

// forcedShutdown reads --forced-shutdown for a run of secs seconds as the
// reference: "off"; seconds, or a percentage of --time, read as strtol
// then made unsigned; no value at all is 5% of --time.
func forcedShutdown(v *options.Values, secs int64) (time.Duration, error) {
	fs := v.String("forced-shutdown")
	if strings.EqualFold(fs, "off") {
		return -1, nil
	}
	limit := uint64(uint32(secs)) // the reference's seconds, unsigned
	if fs == "" {
		return time.Duration(limit/20) * time.Second, nil
	}
	n, rest := strtol(fs)
	t := uint64(uint32(n))
	if strings.HasPrefix(rest, "%") {
		t = uint64(uint32(t * limit / 100))
	} else if rest != "" {
		return 0, fmt.Errorf("Invalid value for --forced-shutdown: '%s'", fs)
	}
	return time.Duration(t) * time.Second, nil
}

// strtol reads a base-10 integer at the start of s as C's strtol does
// (blanks, a sign, digits; saturating at the int64 range) and returns it
// with what follows it; without digits it returns 0 and s.
func strtol(s string) (int64, string) {
	i := 0
	for i < len(s) && strings.IndexByte(" \t\n\v\f\r", s[i]) >= 0 {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	j := i
	var n int64
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		if n < math.MaxInt64/10 {
			n = n*10 + int64(s[j]-'0')
		}
		j++
	}
	if j == i {
		return 0, s
	}
	if neg {
		n = -n
	}
	return n, s[j:]
}

// randConfig reads the --rand-* options.
func randConfig(v *options.Values) (sbrand.Config, error) {
	c := sbrand.DefaultConfig()
	c.Type = v.String("rand-type")
	var err error
	var n int64
	if n, err = v.Int("rand-spec-iter"); err != nil {
		return c, err
	}
	c.SpecIter = int(n)
	if n, err = v.Int("rand-spec-pct"); err != nil {
		return c, err
	}
	c.SpecPct = float64(n)
	if n, err = v.Int("rand-spec-res"); err != nil {
		return c, err
	}
	c.SpecRes = float64(n)
	c.ParetoH = v.Double("rand-pareto-h")
	if c.ZipfianExp, err = v.Float("rand-zipfian-exp"); err != nil {
		return c, err
	}
	if c.Seed, err = v.Int("rand-seed"); err != nil {
		return c, err
	}
	return c, c.Validate()
}

// psMode reads --db-ps-mode.
func psMode(v *options.Values) (drivers.PSMode, error) {
	switch s := v.String("db-ps-mode"); s {
	case "auto":
		return drivers.PSAuto, nil
	case "disable":
		return drivers.PSDisable, nil
	default:
		return 0, fmt.Errorf("Invalid value for db-ps-mode: %s", s)
	}
}
