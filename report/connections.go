package report

import (
	"fmt"
	"io"
)

// Connections are the connections a run held open while it ran, when it
// held more than its threads' (--idle-connections).
type Connections struct {
	// Active is the most connections the threads held at once.
	Active int `json:"active"`
	// Idle are those held open beside them, unused but for a keepalive
	// ping every KeepaliveSeconds.
	Idle             int     `json:"idle"`
	KeepaliveSeconds float64 `json:"keepalive_s"`
}

// WriteConnections writes the count of open connections, after the
// general statistics.
func WriteConnections(w io.Writer, c *Connections) {
	fmt.Fprintf(w, "Connections: %d active, %d idle\n\n", c.Active, c.Idle)
}

// mergeConnections are the connections of merged runs: instances held
// theirs at the same time, so they add up; rounds held theirs one after
// the other, so the most any held stands (for rounds of instances too:
// the most one instance held). Nil when no run held idle connections.
func mergeConnections(rs []*Results, as string) *Connections {
	var out *Connections
	for _, r := range rs {
		if r.Connections != nil {
			out = &Connections{KeepaliveSeconds: r.Connections.KeepaliveSeconds}
		}
	}
	if out == nil {
		return nil
	}
	if as == AsInstances {
		for _, r := range rs {
			if c := r.Connections; c != nil {
				out.Active += c.Active
				out.Idle += c.Idle
			}
		}
		return out
	}
	for _, r := range rs {
		if c := r.Connections; c != nil {
			out.Active, out.Idle = max(out.Active, c.Active), max(out.Idle, c.Idle)
		}
	}
	return out
}
