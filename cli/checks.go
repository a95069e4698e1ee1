package cli

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sysbench-go/sysbench-go/capacity"
	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/logging"
	"github.com/sysbench-go/sysbench-go/luaapi"
)

// A run that cannot succeed is refused before prepare, run or capacity
// (at the most threads a step of it runs), with one
// line naming the setting that stops it (docs/availability.md, "Refused
// up front"): the connections it opens above the open files limit or the
// server's, the account's, the role's or the database's connection
// limit, the statements its threads prepare above max_prepared_stmt_count.
// --skip-checks runs it anyway.

// limitsTimeout bounds the reading of the limits: a server that does not
// answer is the run's to report.
const limitsTimeout = 10 * time.Second

// checkLimits reads the server's limits for the script's run or prepare
// and refuses it when it cannot fit; for run, it arms the check of the
// statements the threads prepare (luaapi.StatementRoom).
func (p *program) checkLimits(spec *runSpec, s *luaapi.Script, env *luaapi.Env) error {
	command := spec.cl.command
	if spec.conns.skipChecks || (command != "run" && command != "prepare" && command != "capacity") || env.DriverConfig.DryRun {
		return nil
	}
	if command == "prepare" && !s.ParallelCommand("prepare") {
		return nil // one connection
	}
	f := p.driverFactory(env.DriverName)
	if f == nil {
		return nil // the script's first use says the name is invalid
	}
	cfg := env.DriverConfig
	cfg.Log = nil // a server we cannot read is the run's to report
	d, err := f.Open(cfg)
	if err != nil {
		return nil
	}
	defer d.Close()
	lr, ok := d.(drivers.LimitReader)
	if !ok {
		return nil
	}
	threads := spec.cfg.Threads
	what := fmt.Sprintf("--threads=%d", threads)
	if command == "capacity" {
		threads, what = capacityThreads(spec)
	}
	need, verb := int64(threads), "needs"
	if command == "run" {
		if n := spec.conns.idle; n > 0 {
			need += int64(n)
			what, verb = what+fmt.Sprintf(" and --idle-connections=%d", n), "need"
		}
		if spec.values.Bool("server-stats") {
			need++
			what, verb = what+" and --server-stats", "need"
		}
	}
	needs := fmt.Sprintf("%s %s %d", what, verb, need)
	// Each connection is a file of this process.
	if l, ok := openFilesLimit(); ok && need > l.Free() {
		return refusal(l, plural(l.InUse, "file")+" open", needs+" connections")
	}
	ctx, cancel := context.WithTimeout(p.ctx, limitsTimeout)
	defer cancel()
	limits, err := lr.ReadLimits(ctx)
	if err != nil {
		// Ours, and nobody asked: aside from the reference's DEBUG lines.
		if p.log.Enabled(logging.Debug) {
			fmt.Fprintf(p.stderr, "DEBUG: the server's limits were not checked: %v\n", err)
		}
		return nil
	}
	spec.conns.keepalive = keepaliveFor(limits.IdleTimeout)
	for _, l := range limits.Connections {
		if need > l.Free() {
			return refusal(l, plural(l.InUse, "connection")+" open", needs)
		}
	}
	if ps := limits.PreparedStatements; ps != nil && command == "run" && env.DriverConfig.PSMode == drivers.PSAuto {
		l := *ps
		env.StatementRoom = luaapi.NewStatementRoom(l, threads, func(need, each int64) string {
			return refusal(l, plural(l.InUse, "statement")+" prepared",
				fmt.Sprintf("%d threads preparing %d each need %d", threads, each, need)).Error()
		})
	}
	return nil
}

// capacityThreads is the most threads a step of the capacity command
// runs, and the option that asks for them: the search's --threads (with
// an objective), the sweep's largest count (with --sweep). An invalid
// --sweep is the command's to refuse.
func capacityThreads(spec *runSpec) (int, string) {
	threads, what := 0, ""
	if len(spec.sloExprs) > 0 {
		threads, what = spec.cfg.Threads, fmt.Sprintf("--threads=%d", spec.cfg.Threads)
	}
	if s := spec.values.String("sweep"); s != "" {
		if counts, err := capacity.ParseSweep(s); err == nil && counts[len(counts)-1] > threads {
			threads, what = counts[len(counts)-1], fmt.Sprintf("--sweep=%s (up to %d threads)", s, counts[len(counts)-1])
		}
	}
	if what == "" {
		return spec.cfg.Threads, fmt.Sprintf("--threads=%d", spec.cfg.Threads)
	}
	return threads, what
}

// refusal is the line refusing a run: the setting, what holds it now,
// what the run needs.
func refusal(l drivers.Limit, held, needs string) error {
	value := fmt.Sprint(l.Value)
	if l.Note != "" {
		value += " (" + l.Note + ")"
	}
	return &luaapi.RefusedError{Msg: fmt.Sprintf("%s is %s with %s: %s (--skip-checks runs anyway)", l.Setting, value, held, needs)}
}

// plural is "1 connection", "2 connections".
func plural(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// onlyRefusal is the refusal err holds, alone, if it holds one: the
// workers' "Thread initialization failed!" adds nothing to it.
func onlyRefusal(err error) error {
	var r *luaapi.RefusedError
	if errors.As(err, &r) {
		return r
	}
	return err
}

// filesReserve are the files a run opens beside its connections (its
// outputs, a --metrics-addr listener, the driver's poller).
const filesReserve = 8

// openFilesLimit is the process's limit on open files (RLIMIT_NOFILE's
// soft limit, which Go raises to the hard one as it starts) less
// filesReserve, and the files open now; false where they cannot be read.
func openFilesLimit() (drivers.Limit, bool) {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &rl); err != nil || rl.Cur == unix.RLIM_INFINITY || rl.Cur > math.MaxInt32 {
		return drivers.Limit{}, false
	}
	open := -1
	for _, dir := range []string{"/proc/self/fd", "/dev/fd"} {
		if fds, err := os.ReadDir(dir); err == nil {
			open = len(fds) - 1 // the directory's own
			break
		}
	}
	if open < 0 {
		return drivers.Limit{}, false
	}
	return drivers.Limit{Setting: "the open files limit (ulimit -n)", Value: int64(rl.Cur) - filesReserve, InUse: int64(open),
		Note: fmt.Sprintf("%d, less %d for the run's own files", rl.Cur, filesReserve)}, true
}
