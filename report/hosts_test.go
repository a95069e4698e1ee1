package report

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/sysbench-go/sysbench-go/metrics"
)

// The Hosts block lists the endpoints in the order they began serving,
// in seconds of the run, only when more than one served; the results
// file keeps them whole, so that a merge can join them again.
func TestHosts(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	sec := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	run := metrics.Empty(t0, 2)
	run.End = sec(10)
	run.Hosts = metrics.Hosts{
		"10.0.0.2:5432": {From: sec(4.25), To: sec(10), Events: 600},
		"10.0.0.1:5432": {From: sec(-0.02), To: sec(3.5), Events: 400}, // connected before the window
	}
	var b strings.Builder
	WriteHosts(&b, run)
	want := "Hosts:\n" +
		"    10.0.0.1:5432:                           0.00s -     3.50s   events: 400\n" +
		"    10.0.0.2:5432:                           4.25s -    10.00s   events: 600\n\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	one := metrics.Empty(t0, 1)
	one.Hosts = metrics.Hosts{"h:1": {From: t0, To: sec(1), Events: 1}}
	b.Reset()
	WriteHosts(&b, one)
	if b.Len() != 0 {
		t.Errorf("one endpoint printed %q", b.String())
	}

	w, err := NewWindow(run, nil)
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	var back Window
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if back.Hosts[0].Endpoint != "10.0.0.1:5432" || back.Hosts[1].FromS != 4.25 {
		t.Errorf("recorded hosts %+v", back.Hosts)
	}
	s, err := back.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if back.Hosts[0].FromS != 0 || !back.Hosts[0].From.Equal(t0) {
		t.Errorf("a host connected before the window: %+v, want it from the window's start", back.Hosts[0])
	}
	run.Hosts["10.0.0.1:5432"] = metrics.HostWindow{From: t0, To: sec(3.5), Events: 400}
	for k, v := range run.Hosts {
		if g := s.Hosts[k]; !g.From.Equal(v.From) || !g.To.Equal(v.To) || g.Events != v.Events {
			t.Errorf("%s read back as %+v, want %+v", k, g, v)
		}
	}
}

// An outage names the server before it and the one the workers connected
// to during it (a failover), or the same one on both sides (a restart).
func TestAttachHosts(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	sec := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	failover := metrics.Hosts{
		"p:1": {From: sec(0), To: sec(5.2), Events: 400}, // the last worker left at 5.2
		"s:2": {From: sec(5.0), To: sec(10), Events: 600},
	}
	outages := []Outage{
		{StartTime: sec(3), EndTime: sec(5.05)},
		{StartTime: sec(7), EndTime: sec(8)},
	}
	AttachHosts(outages, failover)
	if got := strings.Join(outages[0].HostsBefore, ",") + " -> " + strings.Join(outages[0].HostsAfter, ","); got != "p:1 -> s:2" {
		t.Errorf("failover: %s", got)
	}
	if got := strings.Join(outages[1].HostsBefore, ",") + " -> " + strings.Join(outages[1].HostsAfter, ","); got != "s:2 -> s:2" {
		t.Errorf("after the failover: %s", got)
	}
	var b strings.Builder
	WriteAvailability(&b, outages)
	if !strings.Contains(b.String(), "  hosts: p:1 -> s:2\n") || !strings.Contains(b.String(), "  host: s:2\n") {
		t.Errorf("availability block:\n%s", b.String())
	}
}
