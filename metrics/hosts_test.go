package metrics

import (
	"testing"
	"time"
)

// A worker's events count for the endpoint it was connected to when they
// finished, across ticks; the windows run from the connect to the switch
// (or the window's end), and consecutive windows add up.
func TestHostsFollowConnects(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	r := NewRegistry(2, 1, t0)
	a, b := r.Handle(0), r.Handle(1)
	a.Connected("p:1", at(0))
	b.Connected("p:1", at(0))
	for range 3 {
		a.RecordEvent(1000)
		b.RecordEvent(1000)
	}
	first := r.Tick(at(1))
	a.RecordEvent(1000)
	a.Connected("s:2", at(1.5)) // the failover
	a.Connected("s:2", at(1.6)) // a reconnect to the same host changes nothing
	a.RecordEvent(1000)
	a.RecordEvent(1000)
	b.Connected("s:2", at(1.8))
	b.RecordEvent(1000)
	second := r.Tick(at(2))

	if got, want := first.Hosts["p:1"], (HostWindow{From: at(0), To: at(1), Events: 6}); got != want || len(first.Hosts) != 1 {
		t.Errorf("first window %v, want p:1 %v", first.Hosts, want)
	}
	whole := first.Add(second)
	want := Hosts{
		"p:1": {From: at(0), To: at(1.8), Events: 7},
		"s:2": {From: at(1.5), To: at(2), Events: 3},
	}
	if len(whole.Hosts) != len(want) {
		t.Fatalf("hosts %v, want %v", whole.Hosts, want)
	}
	for k, w := range want {
		if whole.Hosts[k] != w {
			t.Errorf("%s: %+v, want %+v", k, whole.Hosts[k], w)
		}
	}
	sum := NewSum(t0, 2)
	sum.Add(first)
	sum.Add(second)
	if got := sum.Snapshot().Hosts["s:2"]; got != want["s:2"] {
		t.Errorf("Sum: s:2 %+v, want %+v", got, want["s:2"])
	}
	// Instances side by side: the same endpoint's windows join.
	m := Merge(whole, whole)
	if got := m.Hosts["p:1"]; got.Events != 14 || got.From != at(0) || got.To != at(1.8) {
		t.Errorf("Merge: p:1 %+v", got)
	}
	if whole.Hosts["s:2"].Events != 3 || first.Hosts["s:2"].Events != 0 {
		t.Error("adding snapshots changed them")
	}
}
