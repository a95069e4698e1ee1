package capacity

import (
	"context"
	"errors"
	"time"

	"github.com/sysbench-go/sysbench-go/engine"
	"github.com/sysbench-go/sysbench-go/logging"
	"github.com/sysbench-go/sysbench-go/report"
)

// Engine is the Prober over the engine: each probe is a run of Test,
// in this process, with Config's settings (the command line's: the
// percentiles, --max-tries, how workers wait) and the load's threads,
// rate, automatic warm-up and window. The test's init() runs before the
// first probe and its done() at Close, so that a script's setup is done
// once for the whole search, as for one run.
type Engine struct {
	Test   engine.Test
	Config engine.Config
	// Log is the probes' own output: their warnings and errors (the
	// runs' reports are not printed).
	Log *logging.Logger

	inited   bool
	prepared bool
}

var _ Prober = (*Engine)(nil)

// Probe runs the test at l and measures its window.
func (e *Engine) Probe(ctx context.Context, l Load) (*Measure, error) {
	cfg := e.Config
	cfg.Threads, cfg.Rate = l.Threads, l.Rate
	cfg.Time, cfg.Events = l.Window, 0
	cfg.Warmup, cfg.WarmupAuto, cfg.WarmupSample = l.MaxWarmup, true, l.Sample
	// Ten intervals in the window: the queue's length at each.
	cfg.ReportInterval = max(l.Window/10, 10*time.Millisecond)
	cfg.Checkpoints, cfg.Histogram, cfg.ForcedShutdown = nil, false, -1
	cfg.StartAt, cfg.StartSignal, cfg.Live, cfg.Watchers = time.Time{}, nil, nil, nil
	c := &collector{}
	cfg.Reporters = []report.Reporter{c}
	log := e.Log
	if log == nil {
		log = logging.Discard()
	}
	fin, err := engine.Run(ctx, onceTest{e.Test, e}, cfg, log)
	if fin != nil {
		if rerr := fin.Report(); err == nil {
			err = rerr
		}
	}
	if in := engine.Interrupted(ctx); in != nil {
		return nil, in
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	full := errors.Is(err, engine.ErrQueueFull)
	if err != nil && !full {
		return nil, err
	}
	if c.final == nil || c.final.Run == nil {
		return nil, errors.New("capacity: the run made no final report")
	}
	m := &Measure{Window: c.final.Run, QueueFull: full}
	if w := c.final.Warmup; w != nil {
		m.Steady, m.WarmupSeconds = w.Steady, w.EndedSeconds
	}
	if n := len(c.queue); n >= 2 {
		m.QueueGrowth = c.queue[n-1] - c.queue[0]
	}
	return m, nil
}

// Close runs the test's done() once the search is over.
func (e *Engine) Close(ctx context.Context) error {
	if !e.inited {
		return nil
	}
	e.inited = false
	return e.Test.Done(ctx)
}

// onceTest is the test as each probe's run sees it: its init() (and a
// built-in test's prepare step) on the first run only, its done() left
// to Close; a test that keeps its init()'s context is given each later
// run's (engine.Rerunner).
type onceTest struct {
	engine.Test
	e *Engine
}

func (t onceTest) Init(ctx context.Context) error {
	if t.e.inited {
		// Each run has its own context, which the engine cuts when the
		// run's time is up with events still running: a test that
		// keeps its init()'s works under this run's, not the first's.
		if r, ok := t.Test.(engine.Rerunner); ok {
			r.Rerun(ctx)
		}
		return nil
	}
	if err := t.Test.Init(ctx); err != nil {
		return err
	}
	t.e.inited = true
	return nil
}

func (t onceTest) Prepare(ctx context.Context) error {
	p, ok := t.Test.(engine.Preparer)
	if !ok || t.e.prepared {
		return nil
	}
	t.e.prepared = true
	return p.Prepare(ctx)
}

func (t onceTest) Done(context.Context) error { return nil }

// collector keeps what a probe needs of a run's reports: the queue's
// length at each measured interval, and the final report.
type collector struct {
	queue []int64
	final *report.Report
}

func (c *collector) Report(r *report.Report) {
	switch r.Kind {
	case report.Intermediate:
		if !r.Stat.Warmup {
			c.queue = append(c.queue, int64(r.Stat.QueueLength))
		}
	case report.Final:
		c.final = r
	}
}
