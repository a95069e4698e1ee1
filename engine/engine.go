// Package engine owns a benchmark run's lifecycle: the worker goroutines,
// pacing (--rate), stop conditions (--time, --events), the report ticker
// and checkpoints. It knows nothing of Lua or databases (tests plug in
// through the Test and Worker interfaces), measures through package
// metrics and hands every report to the configured report.Reporters; it
// prints no report and no error itself.
package engine

import (
	"context"
	"errors"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sysbench-go/sysbench-go/logging"
	"github.com/sysbench-go/sysbench-go/metrics"
	"github.com/sysbench-go/sysbench-go/report"
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
	// FailuresDetailed prints the failures by error code after the
	// final report.
	FailuresDetailed bool
	// MaxTries is --max-tries (0: restart an event without limit, as
	// sysbench); the report shows failed and retried events with it.
	MaxTries int
	// Warmup is --warmup-time: statistics start after it. With WarmupAuto
	// (--warmup-time=auto) it is the longest the warm-up may last: it
	// ends as soon as the throughput is steady.
	Warmup     time.Duration
	WarmupAuto bool
	// WarmupSample is how often an automatic warm-up samples the
	// throughput (0: AutoWarmupSample). MSER-5 needs 60 samples, so it is
	// a sixtieth of the shortest automatic warm-up: the
	// capacity search's short steps sample more often.
	WarmupSample time.Duration
	// StartAt, when set, is the wall-clock time the measured window
	// begins (--start-at): the workers connect, wait, then warm up for
	// Warmup so that the window begins then.
	StartAt time.Time
	// StartSignal, when set, is asked for StartAt once every worker is
	// initialised (--await-start: the instance reports ready and waits for
	// the start command's time). An error ends the run before it starts.
	StartSignal func(ctx context.Context) (time.Time, error)
	Debug       bool
	Validate    bool
	RandSeed    int64
	// BlockingWorkers gives every worker a processor (GOMAXPROCS) of its
	// own, for drivers that wait for the server in blocking system calls:
	// a reply then wakes exactly the thread waiting for it, with no
	// hand-over between OS threads as through Go's netpoller.
	BlockingWorkers bool
	// PolledWorkers is for drivers that wait for the server on Go's
	// netpoller: when the workers outnumber the processors, each passes
	// its processor on between events (see Loop.More).
	PolledWorkers bool
	// GoTimerWaits makes --rate's waits for an arrival Go timers, in place
	// of the kernel's precise sleeps (nanosleep, a timerfd): a run on a
	// fake clock (testing/synctest), whose time only Go's timers move,
	// sets it (the capacity search's tests). Off, the default, keeps the
	// precise sleeps.
	GoTimerWaits bool
	// Watchers are told when the measured window begins (the statistics
	// start, and again after --warm-up) and ends: --server-stats.
	Watchers []Watcher
	// OutageThreshold is --outage-threshold: a stretch longer than it in
	// which no event completes while events run or fail is an outage
	// (docs/availability.md); 0 finds none.
	OutageThreshold time.Duration
	// Live, when set, is given the running benchmark once its workers
	// start (--metrics-addr reads it).
	Live func(LiveView)
	// Reporters receive every report after the text output (the test's
	// own, through report.Text), in order: the results file, the CSV
	// series.
	Reporters []report.Reporter
	// Aside is where the text output puts what a plain sysbench command
	// line does not print and no option asked for (standard error): the
	// report of a run cut short, an outage seen, the steady state. Nil:
	// with the rest.
	Aside io.Writer
	// OutagesAsked puts the Availability block with the report rather
	// than Aside (--outage-threshold was given).
	OutagesAsked bool
	// OnFail, when set, prints the error that ends the run (a worker's,
	// thread_done's) as it happens, as the reference prints it from the
	// failing thread; Run then returns it marked as printed (Quiet).
	OnFail func(error)
}

// Watcher is told when the run's measured window begins and ends.
type Watcher interface {
	Begin(at time.Time)
	End(at time.Time)
}

// maxQueue is the --rate event queue capacity, as the reference's.
const maxQueue = 131072

type runState struct {
	cfg Config
	ctx context.Context // Run's: ends on SIGINT (its cause: an *Interrupt)
	// testCtx is what the test works under (its init, its queries): Run's,
	// also cancelled cutoffGrace after --time (cutOff).
	testCtx context.Context
	cutTest context.CancelCauseFunc
	cut     atomic.Bool // cutOff happened
	// eventsCtx ends when the run stops or its time is up: an event
	// that keeps restarting after ignored errors ends with it.
	eventsCtx context.Context
	endEvents context.CancelFunc
	log       *logging.Logger
	test      Test
	base      time.Time
	startNS   int64 // when statistics begin (after the warm-up)
	// deadline is when --time is up (monotonic ns, 0 for none); an
	// automatic warm-up moves it when it ends early.
	deadline atomic.Int64
	// sampled is the events counted at the automatic warm-up's last
	// sample (reportLoop's alone).
	sampled uint64
	// warmedUp is closed when the warm-up ends (wait() then looks at
	// the deadline again); warmupEnd says how, for the final report.
	warmedUp  chan struct{}
	warmupEnd *report.WarmupEnd
	yield     bool // workers pass their processor on between events (Loop.More)

	stopped atomic.Bool
	stopCh  chan struct{}
	stopMu  sync.Once
	failed  atomic.Bool
	// cutShort: an error ended the events early (fail).
	cutShort atomic.Bool

	nevents     atomic.Uint64
	rate        *rateSchedule // --rate arrivals, nil without
	concurrency atomic.Int64
	threadsRun  atomic.Int64
	// ended is when each worker ended (monotonic ns, 0 while it runs).
	ended []atomic.Int64

	reg *metrics.Registry
	// outages finds the outages (nil without --outage-threshold).
	outages *metrics.Detector

	// The reporter's windows, guarded by repMu (the report ticker, the
	// checkpoint timer and the final report take turns): since the last
	// intermediate report, since the last checkpoint, since the start.
	// The last two span many ticks and grow in place (metrics.Sum): a
	// report tick of a long run copies none of them. Without
	// --report-checkpoints they are the same window, and one Sum.
	repMu      sync.Mutex
	interval   *metrics.Snapshot
	checkpoint *metrics.Sum
	whole      *metrics.Sum
	// warming is set until --warmup-time ends (guarded by repMu).
	warming bool
	// tps is the measured intervals' throughput, for the steady state
	// and the variation after the final report (guarded by repMu): MSER-5
	// needs the whole series, 8 bytes an interval (700 KiB for a day of
	// 1 s intervals).
	tps []float64
	// lifetime is everything measured since the workers started, warm-up
	// included, kept for Config.Live only (guarded by repMu).
	lifetime *metrics.Sum

	// Worker goroutines and their first error.
	initWG, doneWG sync.WaitGroup
	startCh        chan struct{}
	initErrs       []error
	errMu          sync.Mutex
	runErr         error
	cancelWorkers  context.CancelFunc
}

func (r *runState) now() int64 { return int64(time.Since(r.base)) + 1 }

// at is the wall-clock time of the monotonic reading ns.
func (r *runState) at(ns int64) time.Time { return r.base.Add(time.Duration(ns - 1)) }

// interrupted reports whether the run was interrupted (SIGINT) or cut
// off after its time: the errors that follow are those of the events and
// queries that cancelled, not the run's.
func (r *runState) interrupted() bool { return r.ctx.Err() != nil || r.cut.Load() }

// cause is err, or the signal that interrupted the run when err followed
// it (a query of init() or thread_init() that the interrupt cancelled).
func (r *runState) cause(err error) error {
	if in := Interrupted(r.ctx); in != nil && err != nil {
		return in
	}
	return err
}

func (r *runState) stop() {
	r.stopMu.Do(func() {
		r.stopped.Store(true)
		close(r.stopCh)
		if r.endEvents != nil {
			r.endEvents()
		}
	})
}

// fail records the first error that ends the run and stops it. cut says
// the run's events were cut short by it (a worker failed in its events,
// not in thread_done): its report is then a part, printed aside.
func (r *runState) fail(err error, cut bool) {
	r.errMu.Lock()
	first := r.runErr == nil
	if first {
		r.runErr = err
		if r.cfg.OnFail != nil {
			r.cfg.OnFail(err)
		}
	}
	r.errMu.Unlock()
	if cut {
		r.cutShort.Store(true)
	}
	r.failed.Store(true)
	r.stop()
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

// Finished is a run whose workers have stopped (or, after a forced
// shutdown, been abandoned), waiting for its final report.
type Finished struct {
	r      *runState
	endNS  int64
	forced bool
}

// Run runs the test: the header, the workers, intermediate reports and
// checkpoints. It returns when the run ends; the caller prints the error
// that ended it, if any, then calls Report on the Finished run for the
// final report. Without a Finished run the run never started (the test's
// init or a worker's failed).
//
// Interrupting ctx (SIGINT) stops the run: no event starts after it, the
// events running are abandoned (the queries they wait for are cancelled,
// as ctx is the scripts' SQL context too) and not counted. An interrupted
// run is not a failed one.
func Run(ctx context.Context, t Test, cfg Config, log *logging.Logger) (*Finished, error) {
	if cfg.Threads < 1 {
		cfg.Threads = 1
	}
	text := &report.Text{Out: log.Writer(logging.Notice), Stamped: log.Stamped(logging.Notice), Aside: cfg.Aside,
		OutagesAsked: cfg.OutagesAsked, Hooks: t, Rate: cfg.Rate > 0, Histogram: cfg.Histogram, FailuresDetailed: cfg.FailuresDetailed}
	if rc, ok := t.(ReportsCloser); ok {
		text.BeforeFinal = rc.CloseReports
	}
	cfg.Reporters = append([]report.Reporter{text}, cfg.Reporters...)
	r := &runState{cfg: cfg, log: log, test: t, base: time.Now(), stopCh: make(chan struct{}), ctx: ctx,
		warmedUp: make(chan struct{})}
	// Not cancelled when Run returns: the test's done() still runs under it.
	r.testCtx, r.cutTest = context.WithCancelCause(ctx)
	if err := r.setUp(); err != nil {
		return nil, r.cause(err)
	}
	if cfg.BlockingWorkers {
		defer procPerWorker(cfg.Threads)()
	}
	r.yield = cfg.PolledWorkers && cfg.Threads > runtime.GOMAXPROCS(0)
	gc := startGCPolicy()
	defer gc.restore()
	if err := r.startWorkers(); err != nil {
		return nil, r.cause(err)
	}
	// A full collection of the workers' start-up garbage before the clock
	// starts: otherwise the collector's first cycle, due about now, runs
	// during the first events and puts milliseconds on their latency
	// (p99 of a 6 s --rate run's first second up to 2.6 ms against 0.8
	// after it). It also gives the run's GC setting the exact live heap.
	gc.collectStartUp()
	gc.running()
	if err := r.waitForStart(); err != nil {
		r.abandonWorkers()
		return nil, r.cause(err)
	}
	r.startClock()
	bgCancel, bgWait := r.startBackground()
	defer bgCancel()
	end, forced := r.wait()
	if !forced {
		bgCancel()
		bgWait()
	}
	r.errMu.Lock()
	err := r.runErr
	r.errMu.Unlock()
	if err != nil && cfg.OnFail != nil {
		err = Quiet(err) // printed as it happened
	}
	if forced {
		err = ErrForcedShutdown
	}
	return &Finished{r: r, endNS: end, forced: forced}, err
}

// setUp runs what comes before the workers: the test's init, the
// run-mode header and the test's own lines, its prepare step.
func (r *runState) setUp() error {
	if eo, ok := r.test.(EventsOverrider); ok {
		if n, ok := eo.EventsOverride(); ok {
			r.cfg.Events = n
		}
	}
	if err := r.test.Init(r.testCtx); err != nil {
		return err
	}
	out := r.log.Writer(logging.Notice)
	report.WriteHeader(out, r.header())
	r.test.PrintMode(out)
	if p, ok := r.test.(Preparer); ok {
		return p.Prepare(r.testCtx)
	}
	return nil
}

func (r *runState) header() report.Header {
	c := r.cfg
	h := report.Header{Threads: c.Threads, Rate: c.Rate, ReportInterval: c.ReportInterval,
		Checkpoints: c.Checkpoints, Warmup: c.Warmup, WarmupAuto: c.WarmupAuto, Debug: c.Debug, Validate: c.Validate, RandSeed: c.RandSeed}
	if c.ForcedShutdown >= 0 && c.Time > 0 {
		h.ForcedShutdown = c.Warmup + c.Time + c.ForcedShutdown
	}
	return h
}

// startWorkers starts one goroutine per worker; each creates its worker,
// runs thread_init and waits for the start. It returns when all are
// ready, or the first worker's error followed by ErrThreadInit.
func (r *runState) startWorkers() error {
	cfg, log := r.cfg, r.log
	r.reg = metrics.NewRegistry(cfg.Threads, metrics.Shards(cfg.Threads, runtime.NumCPU()), r.base)
	r.reg.SetClock(r.now)
	if cfg.OutageThreshold > 0 {
		r.outages = metrics.NewDetector(r.reg, cfg.OutageThreshold, report.OutageTPSWindow)
	}
	r.log.Noticef("Initializing worker threads...\n")
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
	var wctx context.Context
	wctx, r.cancelWorkers = context.WithCancel(context.Background())
	r.eventsCtx, r.endEvents = context.WithCancel(wctx)
	r.startCh = make(chan struct{})
	r.initErrs = make([]error, cfg.Threads)
	r.ended = make([]atomic.Int64, cfg.Threads)
	r.initWG.Add(cfg.Threads)
	r.doneWG.Add(cfg.Threads)
	for i := 0; i < cfg.Threads; i++ {
		go r.worker(wctx, i)
	}
	r.initWG.Wait()
	// Every worker's failure is a line, as each thread prints its own in
	// the reference (the logger says "(last message repeated N times)"
	// for the same one from several).
	var failed []error
	for _, err := range r.initErrs {
		if err != nil {
			failed = append(failed, err)
		}
	}
	if len(failed) > 0 {
		r.abandonWorkers()
		return errors.Join(append(failed, ErrThreadInit)...)
	}
	if in := Interrupted(r.ctx); in != nil {
		// A signal during thread_init (its sleeps end early): the run
		// does not start.
		r.abandonWorkers()
		return in
	}
	return nil
}

// abandonWorkers ends the initialised workers without running them.
func (r *runState) abandonWorkers() {
	r.failed.Store(true)
	close(r.startCh)
	r.doneWG.Wait()
	r.cancelWorkers()
}

// worker is one worker goroutine's life.
func (r *runState) worker(ctx context.Context, tid int) {
	defer r.doneWG.Done()
	st := r.reg.Handle(tid)
	r.log.Debugf("Worker thread (#%d) started", tid)
	w, err := r.test.NewWorker(ctx, tid, st)
	if err == nil {
		err = w.Init(ctx)
	}
	if err != nil {
		r.log.Debugf("Worker thread (#%d) failed to initialize!", tid)
		if r.cfg.OnFail != nil && Interrupted(r.ctx) == nil {
			// Said as it happens, as each thread of the reference says
			// its own, among the driver's lines (not when a signal's
			// cancel made it: the run says it was interrupted).
			r.cfg.OnFail(err)
			err = Quiet(err)
		}
		r.initErrs[tid] = err
		r.initWG.Done()
		if w != nil {
			w.Close()
		}
		return
	}
	st.Flush() // thread_init's queries
	r.log.Debugf("Worker thread (#%d) initialized", tid)
	r.initWG.Done()
	<-r.startCh
	if !r.failed.Load() {
		// Errors after an interrupt are those of the events and queries
		// it cancelled.
		if err := r.work(ctx, w, st); err != nil && !r.interrupted() {
			r.fail(err, true)
		}
		// thread_done works under the run's context and the workers' own,
		// not the one --time's bound cuts: its errors are its own, unless
		// a signal caused them.
		dctx, cancel := context.WithCancel(r.ctx)
		stop := context.AfterFunc(ctx, cancel)
		if err := w.Done(dctx); err != nil && r.ctx.Err() == nil {
			r.fail(err, false)
		}
		stop()
		cancel()
		st.Flush() // an unfinished event's queries, thread_done's
	}
	r.ended[tid].Store(r.now())
	r.threadsRun.Add(-1)
	w.Close()
}

// runningAt is how many workers were still running at at: an interval
// report made late (the one due when --time ends, made once the workers
// have stopped) counts the threads running when it was due.
func (r *runState) runningAt(at int64) int {
	n := 0
	for i := range r.ended {
		if e := r.ended[i].Load(); e == 0 || e >= at {
			n++
		}
	}
	return n
}

// waitForStart waits, with --start-at or a start signal, until the warm-up
// is due to begin so that the measured window begins at StartAt; when that
// is past, the warm-up is cut short, or the window begins late, with a
// warning.
func (r *runState) waitForStart() error {
	what := "--start-at"
	if r.cfg.StartSignal != nil {
		at, err := r.cfg.StartSignal(r.ctx)
		if err != nil {
			return err
		}
		r.cfg.StartAt, what = at, "the start time"
	}
	at := r.cfg.StartAt
	if at.IsZero() {
		return nil
	}
	begin := at.Add(-r.cfg.Warmup)
	if wait := time.Until(begin); wait > 0 {
		r.log.Noticef("Waiting %s for %s (%s)...\n", wait.Round(time.Millisecond), what, at.UTC().Format(time.RFC3339Nano))
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.ctx.Done(): // the run stops as soon as it starts
		}
		return nil
	}
	if left := time.Until(at); left > 0 {
		r.log.Warnf("%s is %s away: the warm-up is cut to that", what, left.Round(time.Millisecond))
		r.cfg.Warmup = left
		return nil
	}
	r.log.Warnf("%s passed %s ago: this instance's measured window begins late", what, (-time.Until(at)).Round(time.Millisecond))
	return nil
}

// startClock starts the statistics and lets the workers go.
func (r *runState) startClock() {
	cfg := r.cfg
	r.threadsRun.Store(int64(cfg.Threads))
	r.startNS = r.now()
	// What thread_init counted is in the first window.
	r.startWindows(r.startNS, false)
	r.warming = cfg.Warmup > 0
	if !r.warming {
		close(r.warmedUp)
	}
	if cfg.Time > 0 {
		// Until the warm-up ends (which sets it again), the latest it
		// can be.
		r.deadline.Store(r.startNS + int64(cfg.Warmup) + int64(cfg.Time))
	}
	if cfg.Rate > 0 {
		r.rate = newRateSchedule(cfg.Rate, cfg.RandSeed, r.startNS)
	}
	if r.outages != nil {
		r.outages.Begin(r.startNS)
	}
	if cfg.Live != nil {
		r.lifetime = metrics.NewSum(r.at(r.startNS), cfg.Threads)
		cfg.Live(liveView{r})
	}
	r.log.Noticef("Threads started!\n")
	close(r.startCh)
}

// startWindows starts every window, and the watchers' measured window, at
// now; discard drops what the workers recorded before (the warm-up).
// Caller holds repMu or runs before the reporter starts.
func (r *runState) startWindows(now int64, discard bool) {
	at := r.at(now)
	if discard {
		r.addLifetime(r.reg.Tick(at))
	}
	r.interval = metrics.Empty(at, r.cfg.Threads)
	r.whole = metrics.NewSum(at, r.cfg.Threads)
	r.checkpoint = r.whole
	if len(r.cfg.Checkpoints) > 0 {
		r.checkpoint = metrics.NewSum(at, r.cfg.Threads)
	}
	for _, w := range r.cfg.Watchers {
		w.Begin(at)
	}
}

// startBackground starts the --rate queue watch and the reporter (which
// also ends the warm-up). It returns the function that stops them and the
// one that waits for them.
func (r *runState) startBackground() (cancel func(), wait func()) {
	cfg := r.cfg
	var bg sync.WaitGroup
	ctx, cancel := context.WithCancel(context.Background())
	if r.rate != nil {
		bg.Add(1)
		go func() {
			defer bg.Done()
			if err := r.watchQueue(ctx); err != nil {
				r.fail(err, true)
			}
		}()
	}
	if cfg.ReportInterval > 0 || len(cfg.Checkpoints) > 0 || cfg.Warmup > 0 {
		bg.Add(1)
		go func() { defer bg.Done(); r.reportLoop(ctx) }()
	}
	if r.outages != nil {
		bg.Add(1)
		go func() { defer bg.Done(); r.watchOutages(ctx) }()
	}
	return cancel, bg.Wait
}

// watchOutages samples the workers for outages every
// metrics.SamplePeriod until the run ends.
func (r *runState) watchOutages(ctx context.Context) {
	t := time.NewTicker(metrics.SamplePeriod(r.cfg.OutageThreshold))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.stopCh:
			return
		case <-t.C:
			r.outages.Sample(r.now())
		}
	}
}

// outageReport is every outage of the run up to now, its end, in the
// report's terms: seconds from the measured window's start.
func (r *runState) outageReport(now int64) []report.Outage {
	if r.outages == nil {
		return nil
	}
	var out []report.Outage
	for _, o := range r.outages.Finish(now) {
		out = append(out, report.Outage{
			Start: float64(o.Start-r.startNS) / 1e9, End: float64(o.End-r.startNS) / 1e9,
			StartTime: r.at(o.Start).UTC(), EndTime: r.at(o.End).UTC(), Duration: float64(o.End-o.Start) / 1e9,
			Ongoing: o.Ongoing, Failures: o.Failures, Errors: o.Errors, Reconnects: o.Reconnects,
			TPSBefore: o.TPSBefore, TPSAfter: o.TPSAfter})
	}
	return out
}

// wait waits for the workers, a stop request, or a forced shutdown, and
// returns when the run ended.
//
// --time bounds the run whatever its events do. When it is up, an event
// restarting after ignored errors ends (uncounted) at its next try; the
// events still running cutoffGrace later have what they wait for (their
// queries) cancelled and end uncounted too; events still running another
// cutoffGrace later (a Lua loop) are abandoned, as by a forced shutdown.
// Both steps look at events only: a worker past its last event runs its
// thread_done to the end (a bulk insert's last rows), as the reference's
// does. An explicit --forced-shutdown replaces these two steps.
func (r *runState) wait() (endNS int64, forced bool) {
	cfg := r.cfg
	done := make(chan struct{})
	go func() { r.doneWG.Wait(); close(done) }()
	var forcedAt, timeUp, cutoff <-chan time.Time
	bounding := false // forcedAt is --time's bound on events, not --forced-shutdown
	if cfg.ForcedShutdown >= 0 && cfg.Time > 0 {
		forcedAt = time.After(cfg.Warmup + cfg.Time + cfg.ForcedShutdown)
	}
	var deadlineTimer *time.Timer
	if d := r.deadline.Load(); d > 0 {
		deadlineTimer = time.NewTimer(time.Duration(d - r.now()))
		defer deadlineTimer.Stop()
		timeUp = deadlineTimer.C
	}
	interrupt := r.ctx.Done()
	warmedUp := r.warmedUp
	timeWasUp := false
wait:
	for {
		select {
		case <-done:
			break wait
		case <-warmedUp:
			// The warm-up ended: --time counts from its end.
			warmedUp = nil
			if deadlineTimer != nil && !timeWasUp {
				deadlineTimer.Reset(time.Duration(r.deadline.Load() - r.now()))
				timeUp = deadlineTimer.C
			}
			if cfg.ForcedShutdown >= 0 && cfg.Time > 0 && !timeWasUp {
				forcedAt = time.After(time.Duration(r.deadline.Load()-r.now()) + cfg.ForcedShutdown)
			}
		case <-interrupt:
			interrupt = nil
			r.stop()
		case <-timeUp:
			timeUp = nil
			if r.warmupLate() {
				continue // --time counts from the warm-up's end, once it comes
			}
			timeWasUp = true
			r.endEvents()
			if forcedAt == nil {
				cutoff = time.After(cutoffGrace(cfg.Time))
			}
		case <-cutoff:
			cutoff = nil
			if r.eventsRunning() > 0 {
				r.cutOff()
				forcedAt, bounding = time.After(cutoffGrace(cfg.Time)), true
			}
		case <-forcedAt:
			if !bounding && r.warmupLate() {
				forcedAt = nil // set again from the warm-up's end
				continue
			}
			if bounding && r.eventsRunning() == 0 {
				forcedAt = nil // only thread_done or done() left: theirs to finish
				continue
			}
			forced = true
			break wait
		}
	}
	if forced {
		r.failed.Store(true)
	}
	endNS = r.now()
	r.stop()
	for _, w := range cfg.Watchers {
		w.End(r.at(endNS))
	}
	return endNS, forced
}

// cutoffGrace is how long the events still running when --time is up get
// to end by themselves: a tenth of --time, at least 5 s (a long flush or a
// checkpoint's stall is not a server that stopped answering).
func cutoffGrace(t time.Duration) time.Duration { return max(5*time.Second, t/10) }

// cutOff cancels what the events still running wait for (their queries,
// through the test's context): they end uncounted, with a warning.
func (r *runState) cutOff() {
	running := r.eventsRunning()
	r.cut.Store(true)
	if running > 0 {
		what := "events"
		if running == 1 {
			what = "event"
		}
		r.log.Warnf("%d %s still running %s after --time cancelled: not counted", running, what, cutoffGrace(r.cfg.Time))
	}
	r.cutTest(errTimeUp)
}

// eventsRunning counts the workers inside an event.
func (r *runState) eventsRunning() int {
	running := 0
	for _, h := range r.reg.Handles() {
		if h.Running() {
			running++
		}
	}
	return running
}

// errTimeUp is the cause of the test's context cut off after --time.
var errTimeUp = errors.New("the --time limit has expired")

// Report gives the final report to the reporters and runs the test's
// done(), whose error it returns. After a forced shutdown it abandons
// the workers still running instead (done() would wait for them).
func (f *Finished) Report() error {
	r := f.r
	if f.forced {
		r.cumulativeReport(f.endNS, report.Final)
		r.cancelWorkers()
		return nil
	}
	r.cancelWorkers()
	r.log.Infof("Done.\n")
	r.cumulativeReport(f.endNS, report.Final)
	err := r.test.Done(context.Background())
	if r.interrupted() {
		return nil // its queries were cancelled
	}
	return err
}

// work is the worker loop: the default event loop or the test's own.
func (r *runState) work(ctx context.Context, w Worker, st *metrics.Handle) error {
	l := &Loop{run: r, st: st, ctx: ctx, holdThread: ownProcessors(r.cfg.Threads)}
	defer l.release()
	if lr, ok := w.(LoopRunner); ok {
		return lr.RunLoop(ctx, l)
	}
	// Events run under eventsCtx: one that restarts after ignored
	// errors ends when the run stops or its time is up.
	ectx := r.eventsCtx
	for l.More() {
		l.Start()
		stop, err := w.Event(ectx)
		if err != nil && errors.Is(err, ErrEventFailed) {
			l.Abandon()
			continue
		}
		if err != nil {
			l.Abandon()
			if ectx.Err() != nil && errors.Is(err, context.Canceled) {
				return nil
			}
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
			return ErrQueueFull
		}
	}
}

// endWarmup ends the warm-up at now: the warm-up's last, partial
// interval is reported (marked as the warm-up's), the statistics gathered
// so far are discarded and the measured window begins; with an automatic
// warm-up, --time counts from now. end says how it ended.
//
// reported says that the interval report due at the warm-up's end has been
// made already (however late the end itself is handled on a busy
// machine): its last interval is not reported twice.
func (r *runState) endWarmup(end report.WarmupEnd, reported bool) {
	r.repMu.Lock()
	defer r.repMu.Unlock()
	now := r.now()
	if iv := int64(r.cfg.ReportInterval); iv > 0 {
		r.tick(now)
		// A tick that fell on the warm-up's end already reported it.
		if !reported && r.interval.Duration() >= time.Duration(iv/10) {
			r.reportInterval(now, now)
		}
	}
	end.EndedSeconds = float64(now-r.startNS) / 1e9
	r.startNS = now
	r.startWindows(now, true)
	r.warming = false
	if r.cfg.Time > 0 {
		// --time is the measured window's length, from now.
		r.deadline.Store(now + int64(r.cfg.Time))
	}
	r.warmupEnd = &end
	close(r.warmedUp)
}

// warmupLate says that the warm-up has not ended yet, though the deadline
// set for it at the start has come: its end was handled late (its reports
// starved on a busy machine), and --time counts from it once it is.
// Asked only at the deadline.
func (r *runState) warmupLate() bool {
	select {
	case <-r.warmedUp:
		return false
	default:
		return true
	}
}

// tick adds what the workers recorded since the last tick to every
// window and returns it. Caller holds repMu.
func (r *runState) tick(now int64) *metrics.Snapshot {
	d := r.reg.Tick(r.at(now))
	r.addLifetime(d)
	r.interval = r.interval.Add(d)
	r.whole.Add(d)
	if r.checkpoint != r.whole {
		r.checkpoint.Add(d)
	}
	return d
}

// send hands a report to every reporter. Caller holds repMu.
func (r *runState) send(rep *report.Report) {
	for _, rp := range r.cfg.Reporters {
		rp.Report(rep)
	}
}

// stat is the figures of window w, reported at now.
func (r *runState) stat(w *metrics.Snapshot, now int64) *report.Stat {
	s := report.NewStat(w, r.cfg.Percentiles)
	s.ThreadsRunning = int(r.threadsRun.Load())
	s.TimeTotal = float64(now-r.startNS) / 1e9
	return s
}

// intermediate makes the intermediate report due at due.
func (r *runState) intermediate(due int64) {
	r.repMu.Lock()
	defer r.repMu.Unlock()
	now := r.now()
	r.tick(now)
	r.reportInterval(now, due)
}

// reportInterval reports the interval window, ticked at now, and starts
// the next; its thread count is the one when it was due. Caller holds
// repMu.
func (r *runState) reportInterval(now, due int64) {
	w := r.interval
	r.interval = metrics.Empty(w.End, r.cfg.Threads)
	s := r.stat(w, now)
	s.ThreadsRunning = r.runningAt(min(due, now))
	s.Warmup = r.warming
	if !r.warming && s.TimeInterval > 0 {
		r.tps = append(r.tps, float64(s.Events)/s.TimeInterval)
	}
	if r.rate != nil {
		s.QueueLength = uint64(r.rate.backlog(now))
		s.Concurrency = r.concurrency.Load()
	}
	r.send(&report.Report{Kind: report.Intermediate, Stat: s, Window: w})
}

// cumulativeReport makes a checkpoint's report or the final one: both
// cover the time since the last checkpoint (the final one also carries
// the whole run).
func (r *runState) cumulativeReport(now int64, kind report.Kind) {
	r.repMu.Lock()
	defer r.repMu.Unlock()
	r.tick(now)
	w := r.checkpoint.Snapshot()
	run := w
	if r.checkpoint != r.whole {
		r.checkpoint = metrics.NewSum(w.End, r.cfg.Threads)
		run = r.whole.Snapshot()
	}
	s := r.stat(w, now)
	s.PerThread = r.cfg.Debug
	s.Checkpoint = kind == report.Checkpoint
	s.ShowRetries = r.cfg.MaxTries > 0 || r.cfg.FailuresDetailed
	if r.failed.Load() {
		for _, h := range r.reg.Handles() {
			if h.Running() {
				s.Unfinished++
			}
		}
	}
	rep := &report.Report{Kind: kind, Stat: s, Window: w, Run: run}
	if kind == report.Final {
		rep.Incomplete = r.cutShort.Load() || r.ctx.Err() != nil
		rep.Outages = r.outageReport(now)
		report.AttachHosts(rep.Outages, rep.Run.Hosts)
		rep.Warmup = r.warmupEnd
		if len(r.tps) > 0 {
			st := report.MeasureSteadiness(r.tps, r.cfg.ReportInterval.Seconds())
			rep.Steadiness = &st
		}
	}
	r.send(rep)
}

// reportLoop makes the intermediate reports every --report-interval and
// the --report-checkpoints reports, and ends the warm-up, in time order
// from one goroutine so that they never interleave; a checkpoint due at
// the same moment as an intermediate report comes first, as in the
// reference's output, and a report due when the warm-up ends comes
// before its end. The measured window's reports count from the warm-up's
// end.
func (r *runState) reportLoop(ctx context.Context) {
	iv := int64(r.cfg.ReportInterval)
	epoch := r.startNS // the reports' zero: the warm-up's end once it has
	var nextInter int64 = -1
	if iv > 0 {
		nextInter = epoch + iv
	}
	var warmEnd, nextSample int64 = -1, -1
	interAt := int64(-1) // when the last interval report was due
	var auto *autoWarmup
	if r.cfg.Warmup > 0 {
		warmEnd = epoch + int64(r.cfg.Warmup)
		if r.cfg.WarmupAuto {
			auto = newAutoWarmup(r.cfg.Warmup, r.cfg.WarmupSample)
			nextSample = epoch + int64(auto.sample)
			r.sampled = r.reg.Count(metrics.CntEvent)
		}
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
			nextCP = epoch + int64(cps[0])
		}
		const (
			doInter = iota
			doCP
			doWarmEnd
			doSample
		)
		at, what := int64(-1), -1
		for _, c := range []struct {
			at   int64
			what int
		}{{nextCP, doCP}, {nextInter, doInter}, {warmEnd, doWarmEnd}, {nextSample, doSample}} {
			if c.at >= 0 && (at < 0 || c.at < at) {
				at, what = c.at, c.what
			}
		}
		if at < 0 {
			return
		}
		deadline := r.deadline.Load()
		if deadline > 0 && at > deadline {
			return // after --time: workers finishing late go into the final report
		}
		if d := at - r.now(); d > 0 {
			timer.Reset(time.Duration(d))
			select {
			case <-ctx.Done():
				if !r.dueAtEnd(at) {
					return
				}
			case <-timer.C:
			}
		}
		// A report due when --time ends races with the workers' stop (both
		// fall on the same instant): it is still made, as the last one.
		last := r.stopped.Load()
		if last && !r.dueAtEnd(at) {
			return
		}
		switch what {
		case doCP:
			// A checkpoint given twice is reported once: the reference
			// skips a checkpoint whose time has passed.
			for done := cps[0]; len(cps) > 0 && cps[0] <= done; {
				cps = cps[1:]
			}
			r.cumulativeReport(r.now(), report.Checkpoint)
		case doInter:
			r.intermediate(at)
			interAt = at
			now := r.now()
			for nextInter <= now {
				nextInter += iv
			}
		case doSample, doWarmEnd:
			end, done := report.WarmupEnd{}, what == doWarmEnd
			if auto != nil {
				end = auto.end(done)
				if !done {
					done = auto.add(r.sampleEvents(), &end)
					nextSample += int64(auto.sample)
				}
			} else {
				end.Reason = "fixed"
			}
			end.MaxSeconds = r.cfg.Warmup.Seconds()
			if done {
				r.endWarmup(end, interAt == at)
				if auto != nil {
					r.log.Noticef("%s\n", r.warmupEnd)
				}
				warmEnd, nextSample = -1, -1
				epoch = r.startNS
				if iv > 0 {
					nextInter = epoch + iv
				}
			}
		}
		if last {
			return
		}
	}
}

// sampleEvents is the number of events completed since the last sample
// (the automatic warm-up's). It reads the workers' counters, not a tick:
// a tick ten times a second merged the latency histograms into a new one
// each time, and the interval reports' ticks between two samples took
// their events from the next sample. Only reportLoop calls it.
func (r *runState) sampleEvents() uint64 {
	n := r.reg.Count(metrics.CntEvent)
	d := n - r.sampled
	r.sampled = n
	return d
}

// dueAtEnd says whether a report due at at falls within the run's --time
// and its time has come: the run's last interval, not one after its end.
func (r *runState) dueAtEnd(at int64) bool {
	d := r.deadline.Load()
	return d > 0 && at <= d && r.now() >= at
}
