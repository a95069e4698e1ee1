package engine

import (
	"os"
	"runtime"
	"runtime/debug"
	rtmetrics "runtime/metrics"
	"sync"
	"time"
)

// Memory: every worker holds a Lua state of a few hundred KiB, so with
// tens of workers the live heap is tens of MiB and with hundreds over
// 100 MiB, and the Go collector's default headroom (GOGC=100: as much
// garbage as live data) doubles it. A run makes little garbage next to
// that (a 64-thread oltp_read_write on PostgreSQL about 0.2 MB/s), so
// with the default the heap creeps up to twice the live data over the
// first minutes and the process's RSS with it (+20% between minute 1 and
// 10 of a soak). The engine therefore keeps fewer histogram shards than
// workers (metrics.Shards) and runs the collector with less headroom
// while the workers are created and during the run: a heap goal of a
// quarter of the live heap plus a few MiB over it, set in bytes when the
// workers are ready and kept (below), reached within the first minute of
// a soak and flat after it. What it costs in collections is measured in
// docs/performance.md (make bench, section gc).

// GC headroom: while the workers are created (most of the garbage of a
// run start: every worker compiles and runs its script), and the minimum
// for the run.
const (
	initGCPercent = 25
	minGCPercent  = 25
	// runGCSlack is garbage allowed beyond minGCPercent of the live heap
	// during the run; with small heaps (a few threads) it leaves the
	// default setting, whose collections of a few MiB cost nothing.
	runGCSlack = 4 << 20
)

// The run's heap goal is set in bytes when the workers are ready, from
// the live heap then, and kept: the live heap still grows by some 15%
// over a run's first minutes (a 64-thread oltp_read_write on PostgreSQL:
// 19 to 22 MiB as statements and Lua tables warm up), and a goal that
// followed it would raise RSS after the first minute, where a soak
// expects it flat. A watcher re-sets GOGC every second to keep that goal
// as the live heap moves, and lifts the goal while the live heap leaves
// less than goalFloorPercent of it + goalFloorSlack of headroom, so that
// a heap that keeps growing is never collected over and over. The lift
// follows the live heap down again: the live heap a collection finds
// includes what the workers hold at that moment (a 64-thread soak's
// moves by some 3 MiB from one collection to the next), and a goal that
// only ever rose would climb to the highest of them over a long run (that
// soak's: 29.7 MiB at the start, 33.6 after three minutes) and take RSS
// with it.
//
// A run that makes garbage fast (a dry run at 64 threads: 20 MB/s and
// more over 17 MiB live) would be collected several times a second with
// that goal, some 10% of its throughput (make bench, section gc); so the
// floor also leaves at least minCollectionGap of the run's allocation
// rate, as measured over the last goalEvery. Since the GC percent stays at
// most the setting before the run, such a run is collected as Go's
// default would collect it; a soak's 0.2 MB/s never reaches that floor.
const (
	goalFloorPercent = 20
	goalFloorSlack   = 2 << 20
	goalEvery        = time.Second
	minCollectionGap = time.Second
)

// gcPolicy lowers the collector's headroom (GOGC) for a run unless GOGC
// or GOMEMLIMIT is set in the environment, which it then leaves alone.
type gcPolicy struct {
	active    bool
	prev      int   // GC percent before the run
	prevLimit int64 // memory limit before the run
	limit     int64 // the memory limit set for the run's goal

	base uint64 // the run's heap goal in bytes as set when it starts
	pct  int    // the GC percent set for it
	stop chan struct{}
	done chan struct{}
}

// gcFromEnv says whether the user chose the collector's setting
// (GOGC or GOMEMLIMIT), which the program then leaves alone.
func gcFromEnv() bool {
	return os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != ""
}

// startGCPolicy applies the worker-initialisation setting.
func startGCPolicy() *gcPolicy {
	if gcFromEnv() {
		return &gcPolicy{}
	}
	scriptHeap.pause()
	prev := debug.SetGCPercent(initGCPercent)
	if prev <= initGCPercent {
		// Off, or already as low: leave it.
		debug.SetGCPercent(prev)
		scriptHeap.resume()
		return &gcPolicy{}
	}
	return &gcPolicy{active: true, prev: prev, prevLimit: debug.SetMemoryLimit(-1)}
}

// liveHeap is the live heap as of the last collection.
func liveHeap() uint64 { return runtimeUint64("/gc/heap/live:bytes") }

// runtimeUint64 reads one of runtime/metrics' counters, 0 where the
// runtime does not have it.
func runtimeUint64(name string) uint64 {
	var v [1]uint64
	if !readRuntime([]string{name}, v[:]) {
		return 0
	}
	return v[0]
}

// readRuntime reads runtime/metrics' counters names into v at one moment;
// false when the runtime lacks one of them.
func readRuntime(names []string, v []uint64) bool {
	s := make([]rtmetrics.Sample, len(names))
	for i, n := range names {
		s[i].Name = n
	}
	rtmetrics.Read(s)
	for i := range s {
		if s[i].Value.Kind() != rtmetrics.KindUint64 {
			return false
		}
		v[i] = s[i].Value.Uint64()
	}
	return true
}

// collectStartUp collects the garbage of the workers' start-up. With the
// run's policy it also returns the freed pages to the system: the run's
// memory limit (keepRetained) counts the free pages the heap keeps, and
// the start-up's would put the process over it, where the runtime lowers
// the heap goal to make up the difference and collects early until its
// scavenger has caught up.
func (p *gcPolicy) collectStartUp() {
	if p.active {
		debug.FreeOSMemory()
		return
	}
	runtime.GC()
}

// running sets the run's heap goal from the live heap once the workers
// are ready, and starts the watcher that keeps it.
func (p *gcPolicy) running() {
	if !p.active {
		return
	}
	live := liveHeap()
	pct := runGCPercent(live, p.prev)
	p.base = live + live*uint64(pct)/100
	p.pct = pct
	debug.SetGCPercent(pct)
	if live == 0 {
		return
	}
	if h, ok := readHeapState(); ok {
		p.keepRetained(h)
	}
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	go p.keepGoal()
}

// keepGoal re-sets the GC percent every goalEvery for the run's goal,
// and starts the collections of a run that allocates slowly.
func (p *gcPolicy) keepGoal() {
	defer close(p.done)
	t := time.NewTicker(goalEvery)
	defer t.Stop()
	prev, _ := readHeapState()
	last := time.Now()
	sinceCycle := uint64(0) // allocated since the tick that saw the last collection
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
		h, ok := readHeapState()
		if !ok {
			continue
		}
		at := time.Now()
		var gap, tick uint64 // garbage made in minCollectionGap at the last interval's rate; in this one
		if h.allocs > prev.allocs {
			tick = h.allocs - prev.allocs
			if dt := at.Sub(last); dt > 0 {
				gap = uint64(float64(tick) * float64(minCollectionGap) / float64(dt))
			}
		}
		if h.cycles != prev.cycles {
			sinceCycle = 0
		} else {
			sinceCycle += tick
		}
		prev, last = h, at
		_, pct := keptGCPercent(h.live, p.base, gap, p.prev)
		if pct != p.pct {
			p.pct = pct
			debug.SetGCPercent(pct)
		}
		p.keepRetained(h)
		if collectEarly(h.live, sinceCycle, h.goal(pct), tick) {
			runtime.GC()
		}
	}
}

// heapState is what the run's watcher reads of the runtime, at one moment.
type heapState struct {
	allocs uint64 // bytes allocated since the program began
	cycles uint64 // collections since the program began
	// What the GC percent's goal is computed from.
	live, stacks, globals uint64
	// The runtime's memory, and the parts of it the memory limit does not
	// count as other memory: released and free heap pages, the heap's
	// objects.
	total, released, free, objects uint64
}

var heapStateInputs = [...]string{
	"/gc/heap/allocs:bytes",
	"/gc/cycles/total:gc-cycles",
	"/gc/heap/live:bytes",
	"/gc/scan/stack:bytes",
	"/gc/scan/globals:bytes",
	"/memory/classes/total:bytes",
	"/memory/classes/heap/released:bytes",
	"/memory/classes/heap/free:bytes",
	"/memory/classes/heap/objects:bytes",
}

// readHeapState reads the runtime's state; false when the runtime lacks
// one of its metrics.
func readHeapState() (heapState, bool) {
	var v [len(heapStateInputs)]uint64
	if !readRuntime(heapStateInputs[:], v[:]) {
		return heapState{}, false
	}
	return heapState{
		allocs: v[0], cycles: v[1],
		live: v[2], stacks: v[3], globals: v[4],
		total: v[5], released: v[6], free: v[7], objects: v[8],
	}, true
}

// goal is the heap goal the runtime takes from GC percent pct: the live
// heap plus pct percent of it, of the stacks and of the globals.
func (h heapState) goal(pct int) uint64 {
	return h.live + (h.live+h.stacks+h.globals)*uint64(pct)/100
}

// A run that allocates slowly (a soak's 0.2 MB/s) is collected at a
// heap the runtime's pacer moves over its first minutes: its first cycles
// start when the heap has used 70% of the headroom between the live heap
// and the goal, and as it learns how little is allocated while it marks,
// later ones start ever closer to the goal, at 95%. The heap's peak, and
// RSS with it, then climbs by a quarter of the headroom after the first
// minute (a 64-thread soak: from 27 to 29 MB, RSS +2 MB at 190 s, +5%
// from minute 1 to 10 with everything else flat). So when a goalEvery's
// allocation is under 1/slowTicks of the headroom, the watcher starts the
// collection itself once earlyTriggerPercent of it has been allocated:
// the pacer's measure of the heap also counts the free space of the spans
// the processors have cached (in that soak some 1.4 MB), and half the
// headroom in allocations is about where the pacer starts its first
// cycles. The heap's peak is then the same from the first minute on, at
// the cost of more collections of a run that makes little garbage (that
// soak's: one every 16 s instead of 20-30 s, each some 30 ms of CPU). A
// run that fills the headroom faster than that is left to the pacer.
const (
	earlyTriggerPercent = 50
	slowTicks           = 20
)

// collectEarly says whether a run whose live heap is live bytes, which has
// allocated since bytes since its last collection and tick bytes in the
// last goalEvery, is due a collection for the heap goal goal.
func collectEarly(live, since, goal, tick uint64) bool {
	if goal <= live {
		return false
	}
	headroom := goal - live
	return tick < headroom/slowTicks && since >= headroom*earlyTriggerPercent/100
}

// keepRetained sets the run's memory limit for its GC percent, from the
// runtime's state h; the watcher calls it every goalEvery.
//
// The heap goal bounds what the heap uses, not what it keeps: Go's
// scavenger returns free heap pages to the system only while the heap
// holds more than 10% over its goal, and the pages a run touches again as
// its allocations cycle through the heap come back into RSS one by one.
// A 64-thread soak kept a flat 35.8 MB heap whose released part fell from
// 5.6 to 1.9 MB over five minutes: RSS +3.4 MB after the first minute,
// with the live heap and the goal flat. A memory limit just above the
// goal and the rest of the runtime's memory makes the scavenger keep the
// heap at its goal instead (it works towards 95% of the limit). The
// limit must not bind: the runtime derives a heap goal of its own from
// it (the limit less everything but the heap's objects, less 3%) and
// collects at the lower of the two, so the limit is set for the GC
// percent's goal as computed here (retainLimit), never from the
// runtime's reported goal, which already carries the limit: a limit
// derived from that one ratchets down with the fragmentation inside the
// heap's spans until the heap is collected at its live size (a soak was
// collected 20 times a second from its 70th second on).
func (p *gcPolicy) keepRetained(h heapState) {
	if h.live == 0 || h.total < h.released+h.free+h.objects {
		return
	}
	limit := retainLimit(h.goal(p.pct), h.total-h.released-h.free-h.objects)
	if p.prevLimit < limit {
		return // a lower limit was already set: leave it
	}
	if limit != p.limit {
		p.limit = limit
		debug.SetMemoryLimit(limit)
	}
}

// retainLimit is the memory limit for a heap goal with other bytes of the
// runtime's memory beside the heap's objects: the scavenger keeps the
// memory under 95% of it, which is the goal and the other memory, and
// the runtime's own goal for it (the limit less the other memory, less
// 3%) stays over the goal by 2%. The heap reaches the limit only when it
// holds 5% more than its goal (a collection that ends late), and then
// the runtime collects a little earlier.
func retainLimit(goal, other uint64) int64 {
	return int64((goal + other) * 100 / 95)
}

// restore stops the watcher and puts back the setting from before the run.
func (p *gcPolicy) restore() {
	if !p.active {
		return
	}
	if p.stop != nil {
		close(p.stop)
		<-p.done
	}
	debug.SetGCPercent(p.prev)
	if p.limit != 0 {
		debug.SetMemoryLimit(p.prevLimit)
	}
	scriptHeap.resume()
}

// runGCPercent is the GC percent for a run whose live heap is live bytes:
// the heap may grow to live*(1+minGCPercent/100) + runGCSlack before the
// next collection, but never more than prev (the setting before the run)
// allows. Below some 5 MiB live, that is the default GOGC=100.
func runGCPercent(live uint64, prev int) int {
	if live == 0 {
		return prev
	}
	pct := minGCPercent + int(runGCSlack*100/live)
	return min(pct, prev)
}

// keptGCPercent is the goal and the GC percent that keeps the heap goal
// goal for a live heap of live bytes: the goal is raised to the floor
// (goalFloorPercent + goalFloorSlack of headroom, and at least gap bytes:
// minCollectionGap of allocation) while live has grown into it, and the
// percent is never more than prev. The caller passes the run's base goal
// each time, so that the goal comes back down with the live heap.
func keptGCPercent(live, goal, gap uint64, prev int) (newGoal uint64, pct int) {
	if live == 0 {
		return goal, prev
	}
	floor := live + max(live*goalFloorPercent/100+goalFloorSlack, gap)
	goal = max(goal, floor)
	pct = int((goal - live + live/200) * 100 / live) // rounded
	return goal, max(min(pct, prev), 1)
}

// Outside a run (a script's main chunk, prepare, cleanup, a script run
// with no command) the program's own data is most of a small live heap:
// the Lua state and its libraries, the option tables, the drivers' and
// the help's package data, some 2-3 MiB where plain gopher-lua has under
// 1. Pure Lua makes garbage fast (every number a float boxed in an
// interface), and with the default setting the collector runs whenever
// the heap has doubled, or at its 4 MiB minimum: marking that live heap
// each time, the collections cost a CPU-bound script (a loop of calls,
// the mandelbrot kernel) 10-20% of its time, more than they cost plain
// gopher-lua, whose heap is smaller. So outside a run the collector gets
// headroomFloor of headroom while the live heap is smaller than that:
// the GC percent is set after every collection from the live heap, at
// least 100 and at most maxScriptGCPercent (whose minimum heap, 4 MiB at
// 100, is then 16 MiB). Over headroomFloor of live heap it is the
// default. The cost is up to 16 MiB more RSS for a small script, which
// docs/performance.md weighs (make bench, section lua).
const (
	headroomFloor      = 16 << 20
	maxScriptGCPercent = 400
)

// scriptHeap keeps that headroom from KeepScriptHeadroom on, except while
// a run's own policy (gcPolicy) has the collector.
var scriptHeap heapFloor

// KeepScriptHeadroom gives the collector its headroom outside runs
// (above), unless GOGC or GOMEMLIMIT chose the setting. main calls it
// first.
func KeepScriptHeadroom() {
	if gcFromEnv() {
		return
	}
	scriptHeap.start()
}

// heapFloor re-sets the GC percent after each collection (a finalizer on
// an object made for each cycle runs once the cycle is over).
type heapFloor struct {
	mu     sync.Mutex
	on     bool // started
	paused bool // a run's policy has the collector
	base   int  // the GC percent before start
	pct    int  // the GC percent set last
}

// gcCycle is a heap object whose finalizer marks the end of a collection.
type gcCycle struct{ _ *int }

func (h *heapFloor) start() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.on {
		return
	}
	h.on = true
	h.base = debug.SetGCPercent(100)
	debug.SetGCPercent(h.base)
	h.pct = h.base
	if h.base <= 0 {
		h.on = false // the collector is off: nothing to keep
		return
	}
	h.adjust()
	h.arm()
}

func (h *heapFloor) arm() {
	runtime.SetFinalizer(&gcCycle{}, func(*gcCycle) { h.collected() })
}

// collected runs after each collection.
func (h *heapFloor) collected() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.on {
		return
	}
	if !h.paused {
		h.adjust()
	}
	h.arm()
}

// stop puts back the setting from before start for good.
func (h *heapFloor) stop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.on {
		return
	}
	h.on, h.paused = false, false
	debug.SetGCPercent(h.base)
}

// adjust sets the GC percent for the live heap (h.mu held).
func (h *heapFloor) adjust() {
	pct := scriptGCPercent(liveHeap(), h.base)
	if pct != h.pct {
		h.pct = pct
		debug.SetGCPercent(pct)
	}
}

// pause gives the collector back its setting from before start, for a
// run's policy to start from.
func (h *heapFloor) pause() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.on || h.paused {
		return
	}
	h.paused = true
	h.pct = h.base
	debug.SetGCPercent(h.base)
}

// resume keeps the headroom again after a run.
func (h *heapFloor) resume() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.on || !h.paused {
		return
	}
	h.paused = false
	h.adjust()
}

// scriptGCPercent is the GC percent outside a run for a live heap of live
// bytes: headroomFloor of headroom, at least base (the setting before) and
// at most maxScriptGCPercent.
func scriptGCPercent(live uint64, base int) int {
	if live == 0 || base >= maxScriptGCPercent {
		return base
	}
	pct := int(headroomFloor * 100 / live)
	return max(base, min(pct, maxScriptGCPercent))
}
