package metrics

import (
	"maps"
	"sync"
	"time"
)

// Outage is a stretch of a run in which the service did not answer, on
// the run's clock (ns): no event completed for longer than the detector's
// threshold while events were running or failing. It begins at the later
// of the last completion before it and the start of the oldest event
// waiting in it (a --rate run's workers may have been idle before), and
// ends at the first completion after it.
type Outage struct {
	Start, End int64
	// Ongoing marks an outage still open when the run ended (End is then
	// the run's end).
	Ongoing bool
	// Failures are the failed tries by error code counted during the
	// outage; Errors and Reconnects the counters' increase over it.
	Failures   map[string]uint64
	Errors     uint64
	Reconnects uint64
	// TPSBefore is the events per second over the TPS window before
	// Start; TPSAfter over the one after End (as much of it as the run
	// lasted; 0 while unknown).
	TPSBefore, TPSAfter float64

	base  sample // the counters when it began
	endAt sample // and when it was seen to end
}

// Detector finds outages in what a registry's handles record. Workers
// record their completions and failures in their own handles (under the
// shard lock recording an event takes anyway, and an atomic per failure);
// the detector's Sample, called by one sampler every few milliseconds,
// reads them. Beginning and end are exact (the times the workers
// recorded); the failures and counters of an outage are those counted
// between the samples around it, so within one sampling period of its
// edges.
type Detector struct {
	reg    *Registry
	gap    int64 // the threshold, ns
	window int64 // the TPS window, ns

	mu      sync.Mutex
	samples []sample // the recent ones, oldest first
	prev    state    // at the previous sample
	open    *Outage
	done    []*Outage
	pending int   // done[pending:] still measure their throughput after
	endedNS int64 // the length of those done
	up      upMark
	failSum uint64 // the failure counters at the last failures snapshot
}

// state is what a sample saw of the workers.
type state struct {
	ok     int64 // the last completion of any worker
	begin  int64 // when a stall that is on now began (ok, or a later event's start)
	active bool  // an event was running or a failure followed ok
	failed bool  // a failure followed ok
}

// paceEvents is how many events the throughput before a stall must have
// completed within the threshold for the stall, without a failure, to be
// an outage: a run whose events take about the threshold each (a long
// report query, a script that sleeps) goes that long without a
// completion at its normal pace, and no stall can be told from that.
const paceEvents = 10

// outage says whether a stretch without a completion that the state st
// saw is an outage: one with failures always; a stall only when the run
// before it was completing events much faster than the threshold.
func (d *Detector) outage(st state) bool {
	return st.failed || d.up.tps*float64(d.gap)/1e9 >= paceEvents
}

type sample struct {
	at   int64
	c    Counts
	fail map[string]uint64 // shared between samples while it is unchanged
}

// NewDetector returns a detector of stretches longer than threshold
// without a completion, in reg's handles, with throughput measured over
// window before and after each.
func NewDetector(reg *Registry, threshold, window time.Duration) *Detector {
	reg.av.gap = int64(threshold)
	return &Detector{reg: reg, gap: int64(threshold), window: int64(window)}
}

// SamplePeriod is how often the detector is to be sampled for threshold:
// a fiftieth of it, between 10 and 50 ms.
func SamplePeriod(threshold time.Duration) time.Duration {
	return min(max(threshold/50, 10*time.Millisecond), 50*time.Millisecond)
}

// Begin starts watching at now, before the workers start their events.
func (d *Detector) Begin(now int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.lock()
	for _, h := range d.reg.handles {
		h.lastOK = now
	}
	d.unlock()
	d.prev = state{ok: now, begin: now}
	d.samples = append(d.samples[:0], d.take(now))
}

// Sample looks at the workers at now (monotonic, after the previous
// sample).
func (d *Detector) Sample(now int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.sample(now)
}

func (d *Detector) sample(now int64) {
	var cur state
	var fail int64
	since := int64(0) // the oldest running event's start
	d.lock()
	defer d.unlock()
	for _, h := range d.reg.handles {
		cur.ok = max(cur.ok, h.lastOK)
		fail = max(fail, h.lastFail.Load())
		if s := h.running.Load(); s != 0 && (since == 0 || s < since) {
			since = s
		}
	}
	cur.begin = max(cur.ok, since)
	cur.failed = fail > cur.ok
	cur.active = since != 0 || cur.failed
	s := d.take(now)
	d.samples = append(d.samples, s)
	d.finishAfter(now)
	switch {
	case d.open != nil && cur.ok > d.open.Start:
		d.close(d.open, d.firstAfter(d.open.Start), s)
		d.open = nil
	case d.open != nil:
	case d.prev.active && cur.ok > d.prev.begin && d.firstAfter(d.prev.begin)-d.prev.begin > d.gap && d.outage(d.prev):
		// A stall that ended between two samples, just past the threshold.
		o := d.begin(d.prev.begin)
		d.close(o, d.firstAfter(d.prev.begin), s)
	case cur.active && now-cur.begin > d.gap && d.outage(cur):
		d.open = d.begin(cur.begin)
	}
	if cur.ok > d.prev.ok || d.up.s.at == 0 {
		d.up = upMark{s: s, tps: d.tpsTo(s)}
	}
	d.prev = cur
	d.trim(now)
}

// upMark is the last sample that saw an event complete, and the
// throughput over the window before it: an outage that began longer ago
// than the samples kept (a threshold over maxLookback) counts from it.
type upMark struct {
	s   sample
	tps float64
}

// maxLookback bounds how far back the samples kept reach, beyond the TPS
// window: with a longer threshold, an outage's failures count from the
// last sample that saw a completion (upMark), within a sampling period
// of its start all the same.
const maxLookback = int64(60 * time.Second)

// tpsTo is the events per second over the TPS window up to sample s.
func (d *Detector) tpsTo(s sample) float64 {
	from := d.at(s.at - d.window)
	if dt := s.at - from.at; dt > 0 {
		return float64(s.c[CntEvent]-from.c[CntEvent]) / (float64(dt) / 1e9)
	}
	return 0
}

// firstAfter is the first completion after t: each worker's first after
// a gap of its own (which the first after t is, t beginning a gap longer
// than the threshold) or its last.
func (d *Detector) firstAfter(t int64) int64 {
	first := int64(0)
	for _, h := range d.reg.handles {
		c := h.recovered
		if c <= t {
			c = h.lastOK
		}
		if c > t && (first == 0 || c < first) {
			first = c
		}
	}
	return first
}

// take reads the handles' counters, and their failures by code when the
// failure counters moved since the last time. The caller holds the
// shards' locks.
func (d *Detector) take(now int64) sample {
	s := sample{at: now}
	for _, h := range d.reg.handles {
		c := h.Load()
		for k := range c {
			s.c[k] += c[k]
		}
	}
	sum := s.c[CntRetry] + s.c[CntFailedEvent]
	if len(d.samples) > 0 && sum == d.failSum {
		s.fail = d.samples[len(d.samples)-1].fail
		return s
	}
	d.failSum = sum
	s.fail = map[string]uint64{}
	for _, h := range d.reg.handles {
		for k, v := range h.failTotal {
			s.fail[k] += v
		}
	}
	return s
}

// lock takes every shard's lock, for what the handles keep under it: a
// sample holds them for the time it reads the handles, as a report tick
// does.
func (d *Detector) lock() {
	for _, sh := range d.reg.shards {
		sh.mu.Lock()
	}
}

func (d *Detector) unlock() {
	for _, sh := range d.reg.shards {
		sh.mu.Unlock()
	}
}

// at is the last sample taken at or before t (the oldest kept if none).
func (d *Detector) at(t int64) sample {
	for i := len(d.samples) - 1; i > 0; i-- {
		if d.samples[i].at <= t {
			return d.samples[i]
		}
	}
	return d.samples[0]
}

// begin makes the outage beginning at start, with the throughput before.
func (d *Detector) begin(start int64) *Outage {
	if d.samples[0].at > start {
		return &Outage{Start: start, base: d.up.s, TPSBefore: d.up.tps}
	}
	o := &Outage{Start: start, base: d.at(start)}
	o.TPSBefore = d.tpsTo(o.base)
	return o
}

// close ends o at end, s being the sample that saw it end.
func (d *Detector) close(o *Outage, end int64, s sample) {
	o.End, o.endAt = end, s
	d.count(o, s)
	d.done = append(d.done, o)
	d.endedNS += o.End - o.Start
}

// count sets o's failures and counters from its beginning to s.
func (d *Detector) count(o *Outage, s sample) {
	o.Failures = map[string]uint64{}
	for k, v := range s.fail {
		if n := v - o.base.fail[k]; n > 0 {
			o.Failures[k] = n
		}
	}
	o.Errors = s.c[CntError] - o.base.c[CntError]
	o.Reconnects = s.c[CntReconnect] - o.base.c[CntReconnect]
}

// finishAfter measures the throughput after the outages that ended at
// least a window ago.
func (d *Detector) finishAfter(now int64) {
	// Outages end in order, and their windows after with them.
	for ; d.pending < len(d.done) && now-d.done[d.pending].End >= d.window; d.pending++ {
		d.after(d.done[d.pending], now)
	}
}

// after sets o's throughput after its end, up to now at most.
func (d *Detector) after(o *Outage, now int64) {
	to := d.at(min(o.End+d.window, now))
	if dt := to.at - o.endAt.at; dt > 0 {
		o.TPSAfter = float64(to.c[CntEvent]-o.endAt.c[CntEvent]) / (float64(dt) / 1e9)
	}
}

// trim drops the samples no outage can need: older than the threshold
// (at most maxLookback) and a window before now, but those an ended
// outage still measures its throughput after with.
func (d *Detector) trim(now int64) {
	keep := now - min(d.gap, maxLookback) - d.window - int64(SamplePeriod(time.Duration(d.gap)))
	if d.pending < len(d.done) {
		keep = min(keep, d.done[d.pending].endAt.at)
	}
	i := 0
	for i < len(d.samples)-1 && d.samples[i+1].at <= keep {
		i++
	}
	if i > 0 {
		d.samples = append(d.samples[:0], d.samples[i:]...)
	}
}

// Finish samples a last time at now, the run's end, and returns every
// outage: one still open is ongoing, ending at now.
func (d *Detector) Finish(now int64) []Outage {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.sample(now)
	for ; d.pending < len(d.done); d.pending++ {
		d.after(d.done[d.pending], now)
	}
	out := d.list()
	if d.open != nil {
		o := *d.open
		o.End, o.Ongoing = now, true
		d.count(&o, d.samples[len(d.samples)-1])
		out = append(out, o)
	}
	return out
}

// list copies the ended outages.
func (d *Detector) list() []Outage {
	out := make([]Outage, 0, len(d.done)+1)
	for _, o := range d.done {
		c := *o
		c.Failures = maps.Clone(o.Failures)
		out = append(out, c)
	}
	return out
}

// Status is what an observer reads while the run goes on (--metrics-addr)
// at now: the outages ended so far, and the length in ns of those and of
// the one on now, up to now (a sum that only grows).
func (d *Detector) Status(now int64) (ended int, ns int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	ns = d.endedNS
	if d.open != nil && now > d.open.Start {
		ns += now - d.open.Start
	}
	return len(d.done), ns
}

// Open reports whether an outage is on.
func (d *Detector) Open() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.open != nil
}
