// Command sysbench-go is a drop-in replacement for sysbench 1.0.20: the
// same command line, Lua API and reports, on gopher-lua, pgx and
// go-sql-driver/mysql.
//
//	sysbench-go [options]... [testname] [command]
//
// This file wires the process to the command line (package cli): the
// signals that end a run, the standard streams, the profiles asked for in
// the environment, the runtime's tuning, and the exit status.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"syscall"

	"github.com/sysbench-go/sysbench-go/cli"
	"github.com/sysbench-go/sysbench-go/engine"
)

func main() {
	os.Exit(run())
}

func run() int {
	if os.Getenv("SYSBENCH_GO_MEMPROFILE") == "" {
		// No allocation sampling unless a profile is asked for: its
		// records of sampled stacks hold some 1.5 MiB for the run's life.
		runtime.MemProfileRate = 0
	}
	engine.KeepScriptHeadroom()
	ctx, stop := interruptContext(context.Background())
	defer stop()
	// A reader of standard output that goes away (| head) must not kill
	// the process before its files are written: with SIGPIPE notified (to
	// a channel nobody reads), a write to the closed pipe fails with EPIPE
	// instead, which stops a run as SIGINT does.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	// SYSBENCH_GO_CPUPROFILE=file writes a CPU profile of the run
	// (docs/performance.md uses it).
	if path := os.Getenv("SYSBENCH_GO_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			defer f.Close()
			if pprof.StartCPUProfile(f) == nil {
				defer pprof.StopCPUProfile()
			}
		}
	}
	// SYSBENCH_GO_TRACE=file writes an execution trace (runtime/trace;
	// each event a region "event"), which go tool trace and
	// tools/tailtrace read.
	if path := os.Getenv("SYSBENCH_GO_TRACE"); path != "" {
		if f, err := os.Create(path); err == nil {
			defer f.Close()
			if trace.Start(f) == nil {
				defer trace.Stop()
			}
		}
	}
	code := cli.Run(ctx, os.Args[0], os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	if path := os.Getenv("SYSBENCH_GO_MEMPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			_ = pprof.Lookup("allocs").WriteTo(f, 0)
			f.Close()
		}
	}
	return code
}

// interruptContext is cancelled by the first SIGINT or SIGTERM, with an
// *engine.Interrupt naming the signal as its cause. It then stops
// listening: unless a command listens for itself (compare), a second one
// has Go's default effect and ends a process that does not stop.
func interruptContext(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signals := []os.Signal{os.Interrupt, syscall.SIGTERM}
	signal.Notify(ch, signals...)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			signal.Stop(ch)
			cancel(&engine.Interrupt{Signal: sig.(syscall.Signal)})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}
