package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/sysbench-go/sysbench-go/control"
	"github.com/sysbench-go/sysbench-go/engine"
	"github.com/sysbench-go/sysbench-go/live"
	"github.com/sysbench-go/sysbench-go/options"
	"github.com/sysbench-go/sysbench-go/report"
)

// distributedOptions are those of a run that is one of several instances
// (docs/distributed.md).
var distributedOptions = []options.Option{
	{Name: "instance", Extension: true, Desc: "run as instance K of N (K from 0), e.g. 2/4: thread ids K*threads.. (sysbench.tid), its own random seeds from --rand-seed, 1/N of --rate and --events; 'sysbench-go report' merges the instances' --results files", Kind: options.String, NoDefault: true},
	{Name: "start-at", Extension: true, Desc: "begin the measured window at TIME (RFC 3339, e.g. 2026-12-01T15:04:05Z, or Unix seconds), after connecting and --warmup-time, so that several instances' windows line up", Kind: options.String, NoDefault: true},
	{Name: "metrics-addr", Extension: true, Desc: "serve the running benchmark's metrics for Prometheus (OpenMetrics) at http://HOST:PORT/metrics", Kind: options.String, NoDefault: true},
	{Name: "await-start", Extension: true, Desc: "connect and initialise, report ready at --metrics-addr's /ready, and wait at most N seconds for the start time that 'sysbench-go start' gives every instance (docs/distributed.md); 0: off", Kind: options.Int, Default: "0"},
	{Name: "serve-results", Extension: true, Desc: "after the run, serve the --results file at --metrics-addr's /results until 'sysbench-go start' (or a GET) has fetched it, at most N seconds; 0: off", Kind: options.Int, Default: "0"},
}

// instance is --instance=K/N: this process is instance K of N.
type instance struct{ K, N int }

// parseInstance reads --instance; no option is instance 0 of 1.
func parseInstance(v *options.Values) (instance, error) {
	s := v.String("instance")
	if s == "" {
		return instance{0, 1}, nil
	}
	ks, ns, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(ks)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || k < 0 || k >= n {
		return instance{}, fmt.Errorf("Invalid value for --instance: '%s' (K/N, K from 0 to N-1)", s)
	}
	return instance{k, n}, nil
}

// seedStride separates the instances' --rand-seed: instance K seeds with
// seed + K*seedStride (a prime, so that no two instances' seeds meet for
// any seeds a user picks by hand).
const seedStride = 1_000_003

// apply makes the settings this instance's share: the thread ids after
// those of the instances before it, its own seed, its part of --rate and
// --events.
func (in instance) apply(c *engine.Config, seed *int64) (tidOffset int, err error) {
	if in.N == 1 {
		return 0, nil
	}
	if *seed != 0 {
		*seed += int64(in.K) * seedStride
		c.RandSeed = *seed
	}
	c.Rate /= float64(in.N)
	if c.Events > 0 {
		n := uint64(in.N)
		if c.Events < n {
			return 0, fmt.Errorf("Invalid value for --events: %d events cannot be shared by %d instances", c.Events, in.N)
		}
		share := c.Events / n
		if uint64(in.K) < c.Events%n {
			share++
		}
		c.Events = share
	}
	return in.K * c.Threads, nil
}

// record is the instance in the results file (nil for a single process).
func (in instance) record(tidOffset int) *report.Instance {
	if in.N == 1 {
		return nil
	}
	return &report.Instance{Index: in.K, Count: in.N, FirstThread: tidOffset}
}

// maxStartAtAhead is how far ahead --start-at may be: far enough to
// schedule a run for the night, not a mistyped year that would keep the
// instances idle for years.
const maxStartAtAhead = 24 * time.Hour

// parseStartAt reads --start-at: RFC 3339 or Unix seconds, at most
// maxStartAtAhead from now.
func parseStartAt(v *options.Values) (time.Time, error) {
	s := v.String("start-at")
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || f <= 0 {
			return time.Time{}, fmt.Errorf("Invalid value for --start-at: '%s' (a time such as 2026-12-01T15:04:05Z, or Unix seconds)", s)
		}
		sec := int64(f)
		t = time.Unix(sec, int64((f-float64(sec))*1e9))
	}
	if err := control.CheckStartTime(t, time.Now(), maxStartAtAhead); err != nil {
		return time.Time{}, fmt.Errorf("Invalid value for --start-at: %v", err)
	}
	return t, nil
}

// endpoint is what an instance's HTTP endpoint does beyond its metrics:
// --await-start and --serve-results.
type endpoint struct {
	await, serve time.Duration // 0: off
}

// parseEndpoint reads --await-start and --serve-results, which need
// --metrics-addr (the endpoint), and --serve-results a --results file.
func parseEndpoint(v *options.Values) (endpoint, error) {
	var e endpoint
	var err error
	for _, o := range []struct {
		name string
		dst  *time.Duration
	}{{"await-start", &e.await}, {"serve-results", &e.serve}} {
		if *o.dst, err = secondsOpt(v, o.name, 0); err != nil {
			return e, err
		}
		if *o.dst > 0 && v.String("metrics-addr") == "" {
			return e, fmt.Errorf("--%s needs --metrics-addr=HOST:PORT: the endpoint it works through", o.name)
		}
	}
	switch {
	case e.await > 0 && v.String("start-at") != "":
		return e, errors.New("--await-start and --start-at: the start time comes from one of them, not both")
	case e.serve > 0 && (v.String("results") == "" || v.String("results") == "-"):
		return e, errors.New("--serve-results needs --results=FILE: the file it serves")
	}
	return e, nil
}

// openEndpoint adds the start and results endpoints to the metrics
// server when asked for; it returns nil otherwise. The start time, given
// once the workers are ready, goes into res before the results file's
// head is written (with its first interval).
func (p *program) openEndpoint(spec *runSpec, srv *live.Server, cfg *engine.Config, res *report.Results) *control.Instance {
	e := spec.endpoint
	if e.await == 0 && e.serve == 0 {
		return nil
	}
	ctl := control.NewInstance(spec.instance.K, spec.instance.N)
	ctl.Handle(srv.Mux())
	if e.await > 0 {
		cfg.StartSignal = func(ctx context.Context) (time.Time, error) {
			p.log.Noticef("Ready: waiting at most %s for the start time (--await-start)...\n", e.await)
			at, err := ctl.AwaitStart(ctx, e.await)
			if err == nil {
				u := at.UTC()
				res.Settings.StartAt = &u
			}
			return at, err
		}
	}
	return ctl
}

// serveResults serves the results file the run wrote until it has been
// fetched (--serve-results). An instance that never started (the start
// command gave up) has nothing worth waiting for.
func (p *program) serveResults(spec *runSpec, ctl *control.Instance) error {
	if ctl == nil || spec.endpoint.serve == 0 || ctl.Status().State == control.Aborted {
		return nil
	}
	data, err := os.ReadFile(spec.values.String("results"))
	if err != nil {
		return fmt.Errorf("--serve-results: cannot read the results file: %w", report.PathCause(err))
	}
	ctl.Finish(data)
	p.log.Noticef("Serving the results file at /results until it is fetched (at most %s)...\n", spec.endpoint.serve)
	return ctl.WaitFetched(p.ctx, spec.endpoint.serve)
}
