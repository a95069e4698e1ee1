// Package builtin holds the compiled-in tests that need no database: fileio,
// cpu, memory, threads and mutex, with sysbench 1.0.20's options, defaults,
// run-mode lines, reports and error messages.
//
// Errors returned by a test's New, Init, Command or Worker are worded as the
// reference's FATAL lines without the "FATAL: " prefix: the caller prints
// "FATAL: %v\n". A reference message that continues on further log lines
// (a WARNING, a second FATAL) carries them after a newline, prefixed, so
// that one Fprintf reproduces the reference's output.
package builtin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"syscall"

	"github.com/sysbench-go/sysbench-go/engine"
	"github.com/sysbench-go/sysbench-go/options"
	"github.com/sysbench-go/sysbench-go/report"
)

// Tests returns the built-in tests in the reference's help order.
func Tests() []engine.Builtin {
	return []engine.Builtin{
		{Name: "fileio", Description: "File I/O test", Options: fileioOptions(), New: newFileio},
		{Name: "cpu", Description: "CPU performance test", Options: cpuOptions(), New: newCPU},
		{Name: "memory", Description: "Memory functions speed test", Options: memoryOptions(), New: newMemory},
		{Name: "threads", Description: "Threads subsystem performance test", Options: threadsOptions(), New: newThreads},
		{Name: "mutex", Description: "Mutex performance test", Options: mutexOptions(), New: newMutex},
	}
}

// optReader reads a test's options the way the reference converts them,
// falling back to the declared default when the caller did not fill one in.
type optReader struct {
	v    *options.Values
	defs map[string]options.Option
}

func newOptReader(env *engine.Env, opts []options.Option) optReader {
	v := env.Values
	if v == nil {
		v = options.NewValues()
	}
	r := optReader{v: v, defs: map[string]options.Option{}}
	for _, o := range opts {
		r.defs[o.Name] = o
	}
	return r
}

// raw returns the option's string and whether it has one (given or default).
func (r optReader) raw(name string) (string, bool) {
	if s, ok := r.v.Raw(name); ok {
		return s, true
	}
	if o, ok := r.defs[name]; ok && !o.NoDefault {
		return o.Default, true
	}
	return "", false
}

func (r optReader) str(name string) string {
	s, _ := r.raw(name)
	return s
}

// int converts as strtol with the reference's range check on a C int; the
// error text is the option parser's, with the name in its canonical
// underscore form as the reference prints it.
func (r optReader) int(name string) (int64, error) {
	s, ok := r.raw(name)
	if !ok || s == "" {
		return 0, nil
	}
	n, err := options.ParseInt(s)
	if err != nil {
		return 0, &options.ValueError{Name: name, Value: s}
	}
	return n, nil
}

// size converts as the reference's size parser: leading digits, then an
// optional K/M/G/T multiplier (any other letter gives 0), rest ignored.
func (r optReader) size(name string) int64 {
	s, _ := r.raw(name)
	return refSize(s)
}

func refSize(s string) int64 {
	var n uint64
	i := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		n = n*10 + uint64(s[i]-'0')
	}
	if i == 0 || i == len(s) {
		return int64(n)
	}
	switch s[i] {
	case 'k', 'K':
		n <<= 10
	case 'm', 'M':
		n <<= 20
	case 'g', 'G':
		n <<= 30
	case 't', 'T':
		n <<= 40
	default:
		n = 0
	}
	return int64(n)
}

// float converts as strtod: the longest numeric prefix, 0 if none.
func (r optReader) float(name string) float64 {
	s := strings.TrimSpace(r.str(name))
	for i := len(s); i > 0; i-- {
		if f, err := strconv.ParseFloat(s[:i], 64); err == nil {
			return f
		}
	}
	return 0
}

func (r optReader) flag(name string) bool {
	s, ok := r.raw(name)
	if !ok {
		return false
	}
	b, err := options.ParseBool(s)
	return err == nil && b
}

func (r optReader) list(name string) []string {
	return options.SplitList(r.str(name))
}

// sizeString formats a byte count as the reference's run-mode lines do:
// "512Ki", "2Mi", "16384" (five significant digits, binary multiples).
func sizeString(v float64) string {
	const mods = "KMGT"
	i := 0
	for ; i <= len(mods) && v >= 1024; i++ {
		v /= 1024
	}
	num := strconv.FormatFloat(v, 'g', 5, 64)
	num = fixExponent(num)
	if i == 0 || i > len(mods) {
		// Past T the reference's suffix is a NUL: the number alone.
		return num
	}
	return num + string(mods[i-1]) + "i"
}

// fixExponent turns Go's "1e+5" into C's "1e+05".
func fixExponent(s string) string {
	j := strings.IndexAny(s, "e")
	if j < 0 || len(s)-j != 3 {
		return s
	}
	return s[:j+2] + "0" + s[j+2:]
}

// errnoText is what the reference's log_errno appends: " errno = N (text)",
// with the C library's capitalised message.
func errnoText(err error) string {
	var en syscall.Errno
	if !errors.As(err, &en) {
		if err == nil {
			return " errno = 0 (Success)"
		}
		return fmt.Sprintf(" errno = 0 (%s)", err)
	}
	msg := en.Error()
	if msg != "" {
		msg = strings.ToUpper(msg[:1]) + msg[1:]
	}
	return fmt.Sprintf(" errno = %d (%s)", int(en), msg)
}

// baseTest gives the engine.Test methods a simple test does not need.
type baseTest struct{}

func (baseTest) Init(ctx context.Context) error                      { return nil }
func (baseTest) Done(ctx context.Context) error                      { return nil }
func (baseTest) ReportIntermediate(w io.Writer, s *report.Stat) bool { return false }

// baseWorker gives the engine.Worker methods a simple worker does not need.
type baseWorker struct{}

func (baseWorker) Init(ctx context.Context) error { return nil }
func (baseWorker) Done(ctx context.Context) error { return nil }
func (baseWorker) Close()                         {}
