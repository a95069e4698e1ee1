package report

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/sysbench-go/sysbench-go/metrics"
)

// ServedHost is what one endpoint served in a window of the results file.
type ServedHost struct {
	Endpoint string    `json:"endpoint"`
	From     time.Time `json:"from"`
	To       time.Time `json:"to"`
	FromS    float64   `json:"from_s"` // since the window's start
	ToS      float64   `json:"to_s"`
	Events   uint64    `json:"events"`
}

// hostsOf lists h's endpoints in the order they began serving (then by
// name), with times relative to start, which none begins before (a
// connection opened before the measured window served from its start).
func hostsOf(h metrics.Hosts, start time.Time) []ServedHost {
	out := make([]ServedHost, 0, len(h))
	for ep, w := range h {
		from := w.From
		if from.Before(start) {
			from = start
		}
		out = append(out, ServedHost{Endpoint: ep, From: from.UTC(), To: w.To.UTC(),
			FromS: from.Sub(start).Seconds(), ToS: w.To.Sub(start).Seconds(), Events: w.Events})
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].From.Equal(out[j].From) {
			return out[i].From.Before(out[j].From)
		}
		return out[i].Endpoint < out[j].Endpoint
	})
	return out
}

// hostsFrom turns the file's hosts back into the snapshot's.
func hostsFrom(hs []ServedHost) metrics.Hosts {
	if len(hs) == 0 {
		return nil
	}
	out := make(metrics.Hosts, len(hs))
	for _, h := range hs {
		out[h.Endpoint] = metrics.HostWindow{From: h.From, To: h.To, Events: h.Events}
	}
	return out
}

// WriteHosts writes the "Hosts:" block when more than one endpoint served
// the run (a failover, or connections spread over a host list): for each,
// from when to when workers were connected to it, in seconds of the run,
// and the events it served.
func WriteHosts(w io.Writer, run *metrics.Snapshot) {
	if run == nil || len(run.Hosts) < 2 {
		return
	}
	fmt.Fprintf(w, "Hosts:\n")
	for _, h := range hostsOf(run.Hosts, run.Start) {
		fmt.Fprintf(w, "    %-36s %8.2fs - %8.2fs   events: %d\n", h.Endpoint+":", h.FromS, h.ToS, h.Events)
	}
	fmt.Fprintf(w, "\n")
}

// AttachHosts names on each outage the endpoints that served before it
// (those connected when it began) and after it (those connected to during
// it, a failover's new server; else those connected when it ended).
func AttachHosts(outages []Outage, hosts metrics.Hosts) {
	if len(hosts) == 0 {
		return
	}
	list := hostsOf(hosts, time.Time{})
	covering := func(t time.Time) []string {
		var out []string
		for _, h := range list {
			if !h.From.After(t) && !h.To.Before(t) {
				out = append(out, h.Endpoint)
			}
		}
		return out
	}
	for i := range outages {
		o := &outages[i]
		o.HostsBefore = covering(o.StartTime)
		o.HostsAfter = nil
		for _, h := range list {
			if h.From.After(o.StartTime) && !h.From.After(o.EndTime) {
				o.HostsAfter = append(o.HostsAfter, h.Endpoint)
			}
		}
		if o.HostsAfter == nil {
			o.HostsAfter = covering(o.EndTime)
		}
	}
}

// writeOutageHosts adds an outage's hosts to its line when it has them:
// "hosts: a -> b", or "host: a" when the same served on both sides.
func writeOutageHosts(w io.Writer, o Outage) {
	before, after := strings.Join(o.HostsBefore, ","), strings.Join(o.HostsAfter, ",")
	switch {
	case before == "" && after == "":
	case before == after:
		fmt.Fprintf(w, "  host: %s", before)
	default:
		fmt.Fprintf(w, "  hosts: %s -> %s", before, after)
	}
}
