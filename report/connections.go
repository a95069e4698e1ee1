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
