package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sysbench-go/sysbench-go/engine"
	"github.com/sysbench-go/sysbench-go/options"
	"github.com/sysbench-go/sysbench-go/report"
)

// distributedOptions are those of a run that is one of several instances
// (docs/distributed.md).
var distributedOptions = []options.Option{
	{Name: "instance", Extension: true, Desc: "run as instance K of N (K from 0), e.g. 2/4: thread ids K*threads.. (sysbench.tid), its own random seeds from --rand-seed, 1/N of --rate and --events; 'sysbench-go report' merges the instances' --results files", Kind: options.String, NoDefault: true},
	{Name: "start-at", Extension: true, Desc: "begin the measured window at TIME (RFC 3339, e.g. 2026-12-01T15:04:05Z, or Unix seconds), after connecting and --warmup-time, so that several instances' windows line up", Kind: options.String, NoDefault: true},
	{Name: "metrics-addr", Extension: true, Desc: "serve the running benchmark's metrics for Prometheus (OpenMetrics) at http://HOST:PORT/metrics", Kind: options.String, NoDefault: true},
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

// parseStartAt reads --start-at: RFC 3339 or Unix seconds.
func parseStartAt(v *options.Values) (time.Time, error) {
	s := v.String("start-at")
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f > 0 {
		sec := int64(f)
		return time.Unix(sec, int64((f-float64(sec))*1e9)), nil
	}
	return time.Time{}, fmt.Errorf("Invalid value for --start-at: '%s' (a time such as 2026-12-01T15:04:05Z, or Unix seconds)", s)
}
