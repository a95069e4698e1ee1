package drivers

import (
	"maps"
	"testing"
)

// Sessions record nothing until tracked; then each connection's id while
// it is open, and the work of all, closed ones included.
func TestSessions(t *testing.T) {
	var s Sessions
	before := s.Open("1")
	before.Count(5) // nil: nothing
	before.Close()
	s.Track()
	a, b := s.Open("10"), s.Open("11")
	a.Count(3)
	b.Count(4)
	if ids := s.IDs(); !maps.Equal(ids, map[string]bool{"10": true, "11": true}) {
		t.Errorf("ids %v", ids)
	}
	a.Close()
	a.Close() // once only
	b.Count(1)
	if ids := s.IDs(); !maps.Equal(ids, map[string]bool{"11": true}) || s.Work() != 8 {
		t.Errorf("after a close: ids %v, work %d; want 11 and 8", ids, s.Work())
	}
}
