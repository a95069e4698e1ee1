package drivers

import (
	"context"
	"fmt"
	"strings"
)

// Observable is implemented by drivers whose servers can be watched
// during a run (--server-stats).
type Observable interface {
	// Observe opens a connection of its own to the (first) server, not
	// counted in the run's statistics.
	Observe(ctx context.Context) (Observer, error)
}

// Observer reads a server's settings, counters and sessions.
type Observer interface {
	// Endpoint is where the server listens.
	Endpoint() Endpoint
	// Settings are the durability and sizing settings that explain a
	// result, in a fixed order, and notes on what could not be read.
	Settings(ctx context.Context) ([]Setting, []string, error)
	// Counters are the server's cumulative counters and current gauges
	// by name, and notes on what could not be read (a missing view, a
	// privilege). Counters include the bytes written as WALBytes,
	// BinlogBytes and DataBytes where the server reports them.
	Counters(ctx context.Context) (counters, gauges map[string]float64, notes []string, err error)
	// Waits is one sample of what the benchmark's sessions (every one
	// but the observer's own, of the run's user) are doing: one label
	// per session ("IO:DataFileRead", "CPU", a processlist state).
	Waits(ctx context.Context) ([]string, error)
	Close() error
}

// The counters of bytes written that observers report under these names.
const (
	WALBytes    = "wal_bytes"    // WAL (PostgreSQL) or redo log (InnoDB)
	BinlogBytes = "binlog_bytes" // the binary log
	DataBytes   = "data_bytes"   // data files
)

// Endpoint is a server's address.
type Endpoint struct {
	Host   string // "" for a Unix socket
	Port   int
	Socket string // the socket file (MySQL) or directory (PostgreSQL)
}

func (e Endpoint) String() string {
	if e.Host == "" {
		return e.Socket
	}
	return fmt.Sprintf("%s:%d", e.Host, e.Port)
}

// Setting is one server setting.
type Setting struct {
	Name, Value string
}

// QueryRows runs a query and returns its rows as text ("" for NULL).
func QueryRows(ctx context.Context, c Conn, query string) ([][]string, error) {
	res, err := c.Query(ctx, query)
	if err != nil {
		return nil, err
	}
	defer res.Close()
	return ReadRows(res, ""), nil
}

// ReadRows reads the rest of res as text, null for SQL NULL.
func ReadRows(res Result, null string) [][]string {
	var rows [][]string
	for res.Next() {
		row := make([]string, res.NFields())
		for i := range row {
			if v, ok := res.Value(i); ok {
				row[i] = string(v)
			} else {
				row[i] = null
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// PickSettings returns the values of rows (name, value) for names, in the
// order of names, leaving out those the server does not have.
func PickSettings(rows [][]string, names []string) []Setting {
	got := make(map[string]string, len(rows))
	for _, r := range rows {
		if len(r) >= 2 {
			got[strings.ToLower(r[0])] = r[1]
		}
	}
	var out []Setting
	for _, n := range names {
		if v, ok := got[n]; ok {
			out = append(out, Setting{Name: n, Value: v})
		}
	}
	return out
}
