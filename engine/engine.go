// Package engine owns a benchmark run's lifecycle: the worker goroutines,
// pacing (--rate), stop conditions (--time, --events), intermediate
// reports, checkpoints and the final report. It knows nothing of Lua or
// databases: tests plug in through the Test and Worker interfaces.
package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"sysbench-go/logging"
)

// Config holds the general options of a run.
type Config struct {
	Threads        int
	Events         uint64        // 0: no limit
	Time           time.Duration // 0: no limit
	ForcedShutdown time.Duration // <0: off
	Rate           float64       // events per second, 0: unlimited
	ReportInterval time.Duration // 0: no intermediate reports
	Checkpoints    []time.Duration
	Percentiles    []float64 // empty: percentiles disabled
	Histogram      bool
	Warmup         time.Duration
	Debug          bool
	Validate       bool
	RandSeed       int64
	// BlockingWorkers gives every worker a processor (GOMAXPROCS) of its
	// own, for drivers that wait for the server in blocking system calls:
	// a reply then wakes exactly the thread waiting for it, with no
	// hand-over between OS threads as through Go's netpoller.
	BlockingWorkers bool
}

// maxQueue is the --rate event queue capacity, as the reference's.
const maxQueue = 131072

// ReportedError wraps an error whose FATAL lines were already printed;
// main maps it to the exit code without printing it again.
type ReportedError struct {
	Err  error
	Code int // process exit code
}

func (e *ReportedError) Error() string { return e.Err.Error() }
func (e *ReportedError) Unwrap() error { return e.Err }

type runState struct {
	cfg      Config
	ctx      context.Context // Run's: ends on SIGINT
	log      *logging.Logger
	out      io.Writer // the NOTICE level: header and reports
	stamped  io.Writer // the NOTICE level: intermediate reports
	test     Test
	base     time.Time
	startNS  int64 // run start (after warm-up when statistics begin)
	deadline int64 // monotonic ns, 0 for none

	stopped atomic.Bool
	stopCh  chan struct{}
	stopMu  sync.Once
	failed  atomic.Bool

	nevents     atomic.Uint64
	rate        *rateSchedule // --rate arrivals, nil without
	concurrency atomic.Int64
	threadsRun  atomic.Int64

	workers []*WorkerStats
	shards  []*histShard

	// Reporter-owned state, guarded by repMu (the report ticker, the
	// checkpoint timer and the final report take turns).
	repMu       sync.Mutex
	intervalCnt [][CntMax]uint64 // per worker: counters at the last intermediate report
	checkCnt    [][CntMax]uint64 // per worker: counters at the last checkpoint
	interval    *hdr.Histogram   // since the last intermediate report
	cumulative  *hdr.Histogram   // since the last checkpoint
	lastInterNS int64
	lastCheckNS int64
	outMu       sync.Mutex // serialises writes to out
}

func (r *runState) now() int64 { return int64(time.Since(r.base)) + 1 }

// interrupted reports whether the run was interrupted (SIGINT).
func (r *runState) interrupted() bool { return r.ctx.Err() != nil }

func (r *runState) stop() {
	r.stopMu.Do(func() {
		r.stopped.Store(true)
		close(r.stopCh)
	})
}

// NewWorkerStats returns a statistics handle outside a run (for tests of
// tests).
func NewWorkerStats(tid int) *WorkerStats {
	return &WorkerStats{tid: tid, shard: &histShard{hist: newHist()}}
}

// Snapshot of one worker's counters.
func (w *WorkerStats) load() (c [CntMax]uint64) {
	for i := range c {
		c[i] = w.counters[i].Load()
	}
	return c
}

// procPerWorker gives every worker a processor of its own, plus one for
// the reporter, for the length of a run, unless GOMAXPROCS was set in the
// environment. It returns the function restoring the previous setting.
//
// A worker that returns from a blocking system call then finds its
// processor free; with fewer processors than workers the runtime would
// hand processors between OS threads on every reply, costing the CPU the
// database server on the same machine needs. (The workers still pass
// through the scheduler now and then: see sockio.)
func procPerWorker(threads int) (restore func()) {
	const maxProcs = 1024
	prev := runtime.GOMAXPROCS(0)
	want := min(threads+1, maxProcs)
	if os.Getenv("GOMAXPROCS") != "" || want <= prev {
		return func() {}
	}
	runtime.GOMAXPROCS(want)
	return func() { runtime.GOMAXPROCS(prev) }
}

// Run runs the test: the header, workers, reports and the final report.
// Interrupting ctx (SIGINT) stops the run: no event starts after it, the
// events running are abandoned (the queries they wait for are cancelled,
// as ctx is the scripts' SQL context too) and not counted, and the final
// report is printed. An interrupted run is not a failed one.
func Run(ctx context.Context, t Test, cfg Config, log *logging.Logger) error {
	if cfg.Threads < 1 {
		cfg.Threads = 1
	}
	out := log.Writer(logging.Notice)
	r := &runState{cfg: cfg, log: log, out: out, stamped: log.Stamped(logging.Notice), test: t,
		base: time.Now(), stopCh: make(chan struct{}), ctx: ctx}

	if eo, ok := t.(EventsOverrider); ok {
		if n, ok := eo.EventsOverride(); ok {
			r.cfg.Events = n
		}
	}
	if err := t.Init(ctx); err != nil {
		return err
	}
	r.writeHeader()
	t.PrintMode(out)
	if p, ok := t.(Preparer); ok {
		if err := p.Prepare(ctx); err != nil {
			return err
		}
	}

	if cfg.BlockingWorkers {
		defer procPerWorker(cfg.Threads)()
	}

	nshards := histShards(cfg.Threads, runtime.NumCPU())
	r.shards = make([]*histShard, nshards)
	for i := range r.shards {
		r.shards[i] = &histShard{hist: newHist()}
	}
	r.interval, r.cumulative = newHist(), newHist()
	r.workers = make([]*WorkerStats, cfg.Threads)
	for i := range r.workers {
		r.workers[i] = &WorkerStats{tid: i, shard: r.shards[i%nshards]}
	}
	r.intervalCnt = make([][CntMax]uint64, cfg.Threads)
	r.checkCnt = make([][CntMax]uint64, cfg.Threads)

	fmt.Fprintf(out, "Initializing worker threads...\n\n")
	// The reference starts its helper threads before the workers.
	if cfg.ReportInterval > 0 {
		log.Debugf("Reporting thread started")
	}
	if cfg.Rate > 0 {
		log.Debugf("Event generating thread started")
	}
	if len(cfg.Checkpoints) > 0 {
		log.Debugf("Checkpoints report thread started")
	}

	gc := startGCPolicy()
	defer gc.restore()

	wctx, cancelWorkers := context.WithCancel(context.Background())
	defer cancelWorkers()

	// Start workers; each creates its worker and runs thread_init, then
	// waits for the start barrier.
	var (
		initWG   sync.WaitGroup
		doneWG   sync.WaitGroup
		startCh  = make(chan struct{})
		initErrs = make([]error, cfg.Threads)
		runErr   error
		runErrMu sync.Mutex
	)
	// The first worker error is printed when it happens, as the
	// reference does; the run then stops and still reports.
	setRunErr := func(err error) {
		runErrMu.Lock()
		first := runErr == nil
		if first {
			runErr = err
		}
		runErrMu.Unlock()
		if first {
			r.printErr(err)
		}
		r.failed.Store(true)
		r.stop()
	}
	initWG.Add(cfg.Threads)
	doneWG.Add(cfg.Threads)
	for i := 0; i < cfg.Threads; i++ {
		go func(tid int) {
			defer doneWG.Done()
			st := r.workers[tid]
			log.Debugf("Worker thread (#%d) started", tid)
			w, err := t.NewWorker(wctx, tid, st)
			if err == nil {
				err = w.Init(wctx)
			}
			if err != nil {
				log.Debugf("Worker thread (#%d) failed to initialize!", tid)
				initErrs[tid] = err
				initWG.Done()
				if w != nil {
					w.Close()
				}
				return
			}
			st.Flush() // thread_init's queries
			log.Debugf("Worker thread (#%d) initialized", tid)
			initWG.Done()
			<-startCh
			if !r.failed.Load() {
				// Errors after an interrupt are those of the events
				// and queries it cancelled.
				if err := r.work(wctx, w, st); err != nil && !r.interrupted() {
					setRunErr(err)
				}
				if err := w.Done(wctx); err != nil && !r.interrupted() {
					setRunErr(err)
				}
				st.Flush() // an unfinished event's queries, thread_done's
			}
			r.threadsRun.Add(-1)
			w.Close()
		}(i)
	}
	initWG.Wait()
	for _, err := range initErrs {
		if err != nil {
			r.failed.Store(true)
			close(startCh)
			doneWG.Wait()
			r.printErr(err)
			log.Fatalf("Thread initialization failed!")
			return &ReportedError{Err: err, Code: 1}
		}
	}

	// A full collection of the workers' start-up garbage before the clock
	// starts: otherwise the collector's first cycle, due about now, runs
	// during the first events and puts milliseconds on their latency
	// (p99 of a 6 s --rate run's first second up to 2.6 ms against 0.8
	// after it). It also gives the run's GC setting the exact live heap.
	runtime.GC()
	gc.running()

	// All threads ready: start the clock.
	r.threadsRun.Store(int64(cfg.Threads))
	r.startNS = r.now()
	r.lastInterNS, r.lastCheckNS = r.startNS, r.startNS
	if cfg.Time > 0 {
		r.deadline = r.startNS + int64(cfg.Warmup) + int64(cfg.Time)
	}
	if cfg.Rate > 0 {
		r.rate = newRateSchedule(cfg.Rate, cfg.RandSeed, r.startNS)
	}
	fmt.Fprintf(out, "Threads started!\n\n")
	close(startCh)

	var bg sync.WaitGroup
	bgCtx, bgCancel := context.WithCancel(context.Background())
	if cfg.Warmup > 0 {
		bg.Add(1)
		go func() {
			defer bg.Done()
			select {
			case <-time.After(cfg.Warmup):
				r.resetAfterWarmup()
			case <-bgCtx.Done():
			}
		}()
	}
	if r.rate != nil {
		bg.Add(1)
		go func() {
			defer bg.Done()
			if err := r.watchQueue(bgCtx); err != nil {
				setRunErr(&ReportedError{Err: err, Code: 1})
			}
		}()
	}
	if cfg.ReportInterval > 0 || len(cfg.Checkpoints) > 0 {
		bg.Add(1)
		go func() { defer bg.Done(); r.reportLoop(bgCtx) }()
	}

	// Wait for the workers, a stop request, or a forced shutdown.
	done := make(chan struct{})
	go func() { doneWG.Wait(); close(done) }()
	var forced <-chan time.Time
	if cfg.ForcedShutdown >= 0 && cfg.Time > 0 {
		forced = time.After(cfg.Warmup + cfg.Time + cfg.ForcedShutdown)
	}
	select {
	case <-done:
	case <-ctx.Done():
		r.stop()
		select {
		case <-done:
		case <-forced:
			return r.forcedShutdown(bgCancel, cancelWorkers)
		}
	case <-forced:
		return r.forcedShutdown(bgCancel, cancelWorkers)
	}
	endNS := r.now()
	r.stop()
	bgCancel()
	bg.Wait()

	runErrMu.Lock()
	err := runErr
	runErrMu.Unlock()
	log.Infof("Done.\n")
	if rc, ok := t.(ReportsCloser); ok {
		r.outMu.Lock()
		rc.CloseReports()
		r.outMu.Unlock()
	}
	// Beyond the reference: a failed run still prints what it measured.
	if cfg.Histogram {
		fmt.Fprintf(out, "Latency histogram (values are in milliseconds)\n")
		r.repMu.Lock()
		r.mergeShards()
		writeHistogram(out, r.cumulative)
		r.repMu.Unlock()
		fmt.Fprintf(out, " \n")
	}
	r.cumulativeReport(endNS, false)
	if derr := t.Done(context.Background()); derr != nil && err == nil {
		r.printErr(derr)
		err = derr
	}
	if err != nil {
		var re *ReportedError
		if errors.As(err, &re) {
			return re
		}
		return &ReportedError{Err: err, Code: 1}
	}
	return nil
}

// printErr prints a worker error as a FATAL line unless it was printed.
func (r *runState) printErr(err error) {
	var re *ReportedError
	if errors.As(err, &re) {
		return
	}
	r.log.Fatalf("%v", err)
}

// work is the worker loop: the default event loop or the test's own.
func (r *runState) work(ctx context.Context, w Worker, st *WorkerStats) error {
	l := &Loop{run: r, st: st, ctx: ctx, holdThread: ownProcessors(r.cfg.Threads)}
	defer l.release()
	if lr, ok := w.(LoopRunner); ok {
		return lr.RunLoop(ctx, l)
	}
	for l.More() {
		l.Start()
		stop, err := w.Event(ctx)
		if err != nil {
			l.Abandon()
			if r.stopped.Load() && ctx.Err() != nil {
				return nil
			}
			return err
		}
		if stop {
			l.Abandon()
			break
		}
		l.Stop()
	}
	return nil
}

// watchQueue ends the run, as the reference does, when arrivals pile up
// beyond the queue the reference has: the workers cannot keep up.
func (r *runState) watchQueue(ctx context.Context) error {
	t := time.NewTicker(watchInterval(r.cfg.Rate))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-r.stopCh:
			return nil
		case <-t.C:
		}
		if r.rate.backlog(r.now()) > maxQueue {
			r.log.Fatalf("The event queue is full. This means the worker threads are unable to keep up with the specified event generation rate")
			return errors.New("event queue overflow")
		}
	}
}

// resetAfterWarmup discards the statistics gathered during --warmup-time.
func (r *runState) resetAfterWarmup() {
	r.repMu.Lock()
	defer r.repMu.Unlock()
	now := r.now()
	for i, w := range r.workers {
		c := w.load()
		r.intervalCnt[i], r.checkCnt[i] = c, c
		w.timer.mu.Lock()
		w.timer.events, w.timer.sumNS, w.timer.minNS, w.timer.maxNS = 0, 0, 0, 0
		w.timer.mu.Unlock()
	}
	r.mergeShards()
	r.interval.Reset()
	r.cumulative.Reset()
	r.startNS, r.lastInterNS, r.lastCheckNS = now, now, now
}

// mergeShards moves what the workers recorded since the last merge into
// the interval and cumulative histograms. Caller holds repMu.
func (r *runState) mergeShards() {
	for _, s := range r.shards {
		// Merging under the shard's lock keeps one histogram per shard
		// (memory at high thread counts); the merge is a few µs, once a tick.
		s.mu.Lock()
		if s.hist.TotalCount() > 0 {
			r.interval.Merge(s.hist)
			r.cumulative.Merge(s.hist)
			s.hist.Reset()
		}
		s.mu.Unlock()
	}
}

func (r *runState) percentiles(h *hdr.Histogram, minUS, maxUS float64) []float64 {
	out := make([]float64, len(r.cfg.Percentiles))
	if h.TotalCount() == 0 {
		return out
	}
	for i, p := range r.cfg.Percentiles {
		v := float64(h.ValueAtPercentile(p))
		// The bucket's upper edge can lie outside what was observed.
		if v > maxUS {
			v = maxUS
		}
		if v < minUS {
			v = minUS
		}
		out[i] = v / 1e6 // seconds
	}
	return out
}

// intermediate prints one intermediate report.
func (r *runState) intermediate() {
	r.repMu.Lock()
	now := r.now()
	s := &Stat{
		ThreadsRunning: int(r.threadsRun.Load()),
		Threads:        r.cfg.Threads,
		TimeInterval:   float64(now-r.lastInterNS) / 1e9,
		TimeTotal:      float64(now-r.startNS) / 1e9,
	}
	for i, w := range r.workers {
		c := w.load()
		s.add(c, r.intervalCnt[i])
		r.intervalCnt[i] = c
	}
	r.mergeShards()
	s.setPercentiles(r.cfg.Percentiles, r.percentiles(r.interval,
		float64(r.interval.Min()), float64(r.interval.Max())))
	r.interval.Reset()
	r.lastInterNS = now
	if r.rate != nil {
		s.QueueLength = uint64(r.rate.backlog(now))
		s.Concurrency = r.concurrency.Load()
	}
	r.repMu.Unlock()

	r.outMu.Lock()
	defer r.outMu.Unlock()
	if !r.test.ReportIntermediate(r.stamped, s) {
		WriteIntermediateDefault(r.stamped, s, r.rate != nil)
	}
}

// cumulativeReport prints the full report and resets the checkpoint
// counters (a checkpoint and the final report are the same thing); a
// checkpoint's report is headed by its "Checkpoint report:" line.
func (r *runState) cumulativeReport(now int64, checkpoint bool) {
	r.repMu.Lock()
	s := &Stat{
		ThreadsRunning: int(r.threadsRun.Load()),
		Threads:        r.cfg.Threads,
		TimeInterval:   float64(now-r.lastCheckNS) / 1e9,
		TimeTotal:      float64(now-r.startNS) / 1e9,
		ThreadEvents:   make([]uint64, len(r.workers)),
		ThreadTime:     make([]float64, len(r.workers)),
		ThreadMin:      make([]float64, len(r.workers)),
		ThreadMax:      make([]float64, len(r.workers)),
		PerThread:      r.cfg.Debug,
		Checkpoint:     checkpoint,
	}
	var evs uint64
	var sum, minNS, maxNS int64
	for i, w := range r.workers {
		c := w.load()
		s.add(c, r.checkCnt[i])
		r.checkCnt[i] = c
		t := &w.timer
		t.mu.Lock()
		s.ThreadEvents[i] = t.events
		s.ThreadTime[i] = float64(t.sumNS) / 1e9
		s.ThreadMin[i] = float64(t.minNS) / 1e9
		s.ThreadMax[i] = float64(t.maxNS) / 1e9
		if t.events > 0 {
			if evs == 0 || t.minNS < minNS {
				minNS = t.minNS
			}
			if t.maxNS > maxNS {
				maxNS = t.maxNS
			}
		}
		evs += t.events
		sum += t.sumNS
		t.events, t.sumNS, t.minNS, t.maxNS = 0, 0, 0, 0
		t.mu.Unlock()
		if atomic.LoadInt64(&w.running) != 0 && r.failed.Load() {
			s.Unfinished++
		}
	}
	r.mergeShards()
	s.LatencyMin = float64(minNS) / 1e9
	s.LatencyMax = float64(maxNS) / 1e9
	s.LatencySum = float64(sum) / 1e9
	if evs > 0 {
		s.LatencyAvg = s.LatencySum / float64(evs)
	}
	s.setPercentiles(r.cfg.Percentiles, r.percentiles(r.cumulative,
		float64(minNS)/1e3, float64(maxNS)/1e3))
	r.cumulative.Reset()
	r.lastCheckNS = now
	r.repMu.Unlock()

	r.outMu.Lock()
	defer r.outMu.Unlock()
	if checkpoint {
		WriteTimestamp(r.out, s.TimeTotal)
		fmt.Fprintf(r.out, "Checkpoint report:\n")
	}
	if !r.test.ReportCumulative(r.out, s) {
		WriteGeneralStatistics(r.out, s)
	}
}

func (s *Stat) add(c, base [CntMax]uint64) {
	s.Events += c[CntEvent] - base[CntEvent]
	s.Reads += c[CntRead] - base[CntRead]
	s.Writes += c[CntWrite] - base[CntWrite]
	s.Other += c[CntOther] - base[CntOther]
	s.Errors += c[CntError] - base[CntError]
	s.Reconnects += c[CntReconnect] - base[CntReconnect]
}

func (s *Stat) setPercentiles(ps, vals []float64) {
	s.Percentiles, s.LatencyPcts = ps, vals
	if len(ps) > 0 {
		s.Percentile, s.LatencyPct = ps[0], vals[0]
	}
}

// reportLoop prints intermediate reports every --report-interval and the
// --report-checkpoints reports, in time order from one goroutine so the
// two never interleave; a checkpoint due at the same moment as an
// intermediate report comes first, as in the reference's output.
func (r *runState) reportLoop(ctx context.Context) {
	iv := int64(r.cfg.ReportInterval)
	var nextInter int64 = -1
	if iv > 0 {
		nextInter = r.startNS + iv
	}
	cps := r.cfg.Checkpoints
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		for len(cps) > 0 && cps[0] == 0 { // a checkpoint at 0 s reports nothing
			cps = cps[1:]
		}
		nextCP := int64(-1)
		if len(cps) > 0 {
			nextCP = r.startNS + int64(cps[0])
		}
		if nextInter < 0 && nextCP < 0 {
			return
		}
		at, isCP := nextInter, false
		if nextCP >= 0 && (at < 0 || nextCP <= at) {
			at, isCP = nextCP, true
		}
		if d := at - r.now(); d > 0 {
			timer.Reset(time.Duration(d))
			select {
			case <-ctx.Done():
				return
			case <-timer.C:
			}
		}
		if r.stopped.Load() {
			return
		}
		if isCP {
			cps = cps[1:]
			r.cumulativeReport(r.now(), true)
			continue
		}
		r.intermediate()
		now := r.now()
		for nextInter <= now {
			nextInter += iv
		}
	}
}

func (r *runState) forcedShutdown(bgCancel, cancelWorkers context.CancelFunc) error {
	r.failed.Store(true)
	r.stop()
	now := r.now()
	r.log.Fatalf("The --max-time limit has expired, forcing shutdown...")
	r.cumulativeReport(now, false)
	cancelWorkers()
	bgCancel()
	return &ReportedError{Err: errors.New("forced shutdown"), Code: 2}
}

func (r *runState) writeHeader() {
	w, c := r.out, r.cfg
	fmt.Fprintf(w, "Running the test with following options:\n")
	fmt.Fprintf(w, "Number of threads: %d\n", c.Threads)
	if c.Rate > 0 {
		fmt.Fprintf(w, "Target transaction rate: %s/sec\n", formatRate(c.Rate))
	}
	if c.ReportInterval > 0 {
		fmt.Fprintf(w, "Report intermediate results every %s second(s)\n", formatSeconds(c.ReportInterval))
	}
	if len(c.Checkpoints) > 0 {
		fmt.Fprintf(w, "Report checkpoint(s) at ")
		for i, cp := range c.Checkpoints {
			if i > 0 {
				fmt.Fprintf(w, ", ")
			}
			fmt.Fprintf(w, "%s", formatSeconds(cp))
		}
		fmt.Fprintf(w, " seconds\n")
	}
	if c.Warmup > 0 {
		fmt.Fprintf(w, "Warmup time: %s seconds\n", formatSeconds(c.Warmup))
	}
	if c.Debug {
		fmt.Fprintf(w, "Debug mode enabled.\n\n")
	}
	if c.Validate {
		fmt.Fprintf(w, "Validation checks: on.\n\n")
	}
	if c.RandSeed != 0 {
		fmt.Fprintf(w, "Initializing random number generator from seed (%d).\n\n", c.RandSeed)
	} else {
		fmt.Fprintf(w, "Initializing random number generator from current time\n\n")
	}
	if c.ForcedShutdown >= 0 && c.Time > 0 {
		fmt.Fprintf(w, "Forcing shutdown in %d seconds\n", int64((c.Warmup+c.Time+c.ForcedShutdown)/time.Second))
	}
	fmt.Fprintf(w, "\n")
}

func formatRate(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%g", v)
}

func formatSeconds(d time.Duration) string {
	return formatRate(d.Seconds())
}
