package metrics

import (
	"maps"
	"time"
)

// HostWindow is what one endpoint (a server's host:port or socket, as the
// drivers name it) served in a window: from when the first worker was
// connected to it until the last one left it (or the window's end), and
// the events the workers finished while connected to it.
type HostWindow struct {
	From, To time.Time
	Events   uint64
}

func (w HostWindow) add(o HostWindow) HostWindow {
	if w.From.IsZero() || o.From.Before(w.From) {
		w.From = o.From
	}
	if o.To.After(w.To) {
		w.To = o.To
	}
	w.Events += o.Events
	return w
}

// Hosts are the endpoints that served a window, by name.
type Hosts map[string]HostWindow

// add folds o into h (allocating it if needed) and returns it.
func (h Hosts) add(o Hosts) Hosts {
	if len(o) == 0 {
		return h
	}
	if h == nil {
		return maps.Clone(o)
	}
	for k, v := range o {
		h[k] = h[k].add(v)
	}
	return h
}

// hostLog is a worker's endpoint over time: the one it is connected to,
// and the changes since the last tick. Guarded by the handle's shard
// lock; only the worker writes it, only on a connect or reconnect.
type hostLog struct {
	cur     string       // the endpoint now, "" before the first connect
	changes []hostChange // since the last tick
	// At the last tick: the endpoint, and the handle's events then.
	tickEndpoint string
	tickEvents   uint64
}

type hostChange struct {
	endpoint string
	at       time.Time
	events   uint64 // the handle's events when it changed
}

// Connected records that the worker's connection is now open to endpoint
// ("" says nothing: a driver that cannot tell), at time at. Only the
// worker may call it, after a connect or reconnect; the events it
// finishes from now on count for endpoint. A connection back to the same
// endpoint changes nothing.
func (h *Handle) Connected(endpoint string, at time.Time) {
	if endpoint == "" || (h.hosts != nil && h.hosts.cur == endpoint) {
		return
	}
	events := h.counters[CntEvent].Load() + h.pending[CntEvent]
	s := h.shard
	s.mu.Lock()
	if h.hosts == nil {
		h.hosts = &hostLog{}
	}
	h.hosts.cur = endpoint
	h.hosts.changes = append(h.hosts.changes, hostChange{endpoint: endpoint, at: at, events: events})
	s.mu.Unlock()
}

// tickHosts adds to into what the worker's endpoints served in the window
// [start, end], events being its published events at end. The caller
// holds the shard's lock.
func (h *Handle) tickHosts(into Hosts, start, end time.Time, events uint64) Hosts {
	l := h.hosts
	if l == nil {
		return into
	}
	ep, from, base := l.tickEndpoint, start, l.tickEvents
	served := func(to time.Time, upto uint64) {
		if ep == "" {
			return
		}
		n := uint64(0)
		if upto > base {
			n = upto - base
		}
		if into == nil {
			into = Hosts{}
		}
		into[ep] = into[ep].add(HostWindow{From: from, To: to, Events: n})
	}
	for _, c := range l.changes {
		at := c.at
		if at.Before(start) {
			at = start
		}
		served(at, c.events)
		ep, from, base = c.endpoint, at, max(base, c.events)
	}
	served(end, events)
	l.changes = l.changes[:0]
	l.tickEndpoint, l.tickEvents = ep, max(base, events)
	return into
}
