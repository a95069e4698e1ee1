// Command tailtrace reads an execution trace of a run (SYSBENCH_GO_TRACE,
// where every event is a region "event") and says where the events' time
// went, for all events and for the slowest: running on a processor (the
// client's own work), runnable and waiting for one (the Go scheduler),
// blocked or in a system call (the server, the network), and how much of
// it overlapped the collector (its stop-the-world pauses, assists charged
// to the event, the concurrent mark phase). A latency tail the client
// causes shows as running, runnable or GC time in the slow events.
//
//	tailtrace [-region event] trace.out
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"sort"

	"golang.org/x/exp/trace"
)

// Where an event's time goes.
const (
	running  = iota // on a processor
	runnable        // waiting for a processor
	waiting         // blocked (the netpoller: network; channels, locks)
	syscall         // in a system call (blocking socket calls)
	assist          // GC mark assist (part of running)
	stw             // overlapping a stop-the-world pause
	marking         // overlapping the concurrent mark phase
	nParts
)

var partNames = [nParts]string{"running", "runnable", "blocked", "syscall", "gc_assist", "gc_stw", "gc_marking"}

type event struct {
	dur   int64
	parts [nParts]int64
}

// gor is a goroutine's state and its running event, if any.
type gor struct {
	state   trace.GoState
	since   trace.Time
	inEvent bool
	start   trace.Time
	parts   [nParts]int64
	assist  trace.Time // since when in a mark assist, 0 when not
}

func main() {
	region := flag.String("region", "event", "the region type that marks an event")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: tailtrace [-region event] trace.out")
		os.Exit(2)
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "tailtrace:", err)
		os.Exit(1)
	}
	defer f.Close()
	events, err := read(f, *region)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tailtrace:", err)
		os.Exit(1)
	}
	writeTable(os.Stdout, events)
}

func read(r io.Reader, region string) ([]event, error) {
	tr, err := trace.NewReader(r)
	if err != nil {
		return nil, err
	}
	gs := map[trace.GoID]*gor{}
	get := func(id trace.GoID) *gor {
		g := gs[id]
		if g == nil {
			g = &gor{}
			gs[id] = g
		}
		return g
	}
	var out []event
	var stwSince, markSince trace.Time
	// overlap adds the time since from to every running event's part p.
	overlap := func(p int, from, to trace.Time) {
		for _, g := range gs {
			if g.inEvent {
				g.parts[p] += int64(to - max(from, g.start))
			}
		}
	}
	for {
		ev, err := tr.ReadEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		t := ev.Time()
		switch ev.Kind() {
		case trace.EventStateTransition:
			st := ev.StateTransition()
			if st.Resource.Kind != trace.ResourceGoroutine {
				continue
			}
			g := get(st.Resource.Goroutine())
			_, to := st.Goroutine()
			if g.inEvent {
				g.add(t)
			}
			g.state, g.since = to, t
		case trace.EventRegionBegin:
			if ev.Region().Type != region {
				continue
			}
			g := get(ev.Goroutine())
			g.inEvent, g.start, g.since, g.parts = true, t, t, [nParts]int64{}
			g.state = trace.GoRunning
		case trace.EventRegionEnd:
			if ev.Region().Type != region {
				continue
			}
			g := get(ev.Goroutine())
			if !g.inEvent {
				continue
			}
			g.add(t)
			if g.assist != 0 {
				g.parts[assist] += int64(t - max(g.assist, g.start))
			}
			out = append(out, event{dur: int64(t - g.start), parts: g.parts})
			g.inEvent = false
		case trace.EventRangeBegin, trace.EventRangeActive:
			switch rg := ev.Range(); {
			case rg.Name == "GC mark assist":
				get(ev.Goroutine()).assist = t
			case rg.Name == "GC concurrent mark phase":
				markSince = t
			case len(rg.Name) > 13 && rg.Name[:13] == "stop-the-worl":
				stwSince = t
			}
		case trace.EventRangeEnd:
			switch rg := ev.Range(); {
			case rg.Name == "GC mark assist":
				g := get(ev.Goroutine())
				if g.inEvent && g.assist != 0 {
					g.parts[assist] += int64(t - max(g.assist, g.start))
				}
				g.assist = 0
			case rg.Name == "GC concurrent mark phase":
				if markSince != 0 {
					overlap(marking, markSince, t)
				}
				markSince = 0
			case len(rg.Name) > 13 && rg.Name[:13] == "stop-the-worl":
				if stwSince != 0 {
					overlap(stw, stwSince, t)
				}
				stwSince = 0
			}
		}
	}
	return out, nil
}

// add charges the time since the goroutine's last transition to its state.
func (g *gor) add(t trace.Time) {
	d := int64(t - max(g.since, g.start))
	if d <= 0 {
		return
	}
	switch g.state {
	case trace.GoRunning:
		g.parts[running] += d
	case trace.GoRunnable:
		g.parts[runnable] += d
	case trace.GoWaiting:
		g.parts[waiting] += d
	case trace.GoSyscall:
		g.parts[syscall] += d
	}
}

// writeTable writes the mean of each part, in ms, over all events and over
// those at or above p95, p99 and p99.9 of the events' durations.
func writeTable(w io.Writer, events []event) {
	if len(events) == 0 {
		fmt.Fprintln(w, "no events in the trace (was it written with SYSBENCH_GO_TRACE?)")
		return
	}
	sort.Slice(events, func(i, j int) bool { return events[i].dur < events[j].dur })
	fmt.Fprintf(w, "%-8s %8s %9s", "events", "n", "mean_ms")
	for _, n := range partNames {
		fmt.Fprintf(w, " %10s", n)
	}
	fmt.Fprintf(w, " %12s\n", "client_share")
	for _, q := range []float64{0, 95, 99, 99.9} {
		from := int(float64(len(events)) * q / 100)
		sel := events[min(from, len(events)-1):]
		var sum float64
		var parts [nParts]float64
		for _, e := range sel {
			sum += float64(e.dur)
			for i, p := range e.parts {
				parts[i] += float64(p)
			}
		}
		n := float64(len(sel))
		label := "all"
		if q > 0 {
			label = fmt.Sprintf(">=p%g", q)
		}
		fmt.Fprintf(w, "%-8s %8d %9.3f", label, len(sel), sum/n/1e6)
		for _, p := range parts {
			fmt.Fprintf(w, " %10.3f", p/n/1e6)
		}
		// The client's share: its own running (assists included) and the
		// waits for a processor; a pause stops everything, counted too.
		client := parts[running] + parts[runnable] + parts[stw]
		fmt.Fprintf(w, " %11.1f%%\n", 100*client/sum)
	}
}
