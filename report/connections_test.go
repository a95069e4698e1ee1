package report

import "testing"

// Instances held their connections together, rounds one after the other.
func TestMergeConnections(t *testing.T) {
	a := &Results{Connections: &Connections{Active: 8, Idle: 100, KeepaliveSeconds: 30}}
	b := &Results{Connections: &Connections{Active: 4, Idle: 200, KeepaliveSeconds: 30}}
	none := &Results{}
	if c := mergeConnections([]*Results{a, b}, AsInstances); *c != (Connections{12, 300, 30}) {
		t.Errorf("instances: %+v", *c)
	}
	if c := mergeConnections([]*Results{a, b}, AsRounds); *c != (Connections{8, 200, 30}) {
		t.Errorf("rounds: %+v", *c)
	}
	if c := mergeConnections([]*Results{none, none}, AsInstances); c != nil {
		t.Errorf("without idle connections: %+v", *c)
	}
}
