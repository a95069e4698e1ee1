package drivers

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
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
	// Waits is one sample of what the run's own sessions (its driver's
	// connections, Sessions) are doing: one label per session
	// ("IO:DataFileRead", "CPU", a processlist state).
	Waits(ctx context.Context) ([]string, error)
	// Own is what the run's connections and the observer itself did, in
	// the terms of server counters, counted by the client: compared with
	// those counters, the rest is other clients' work.
	Own() []Work
	// Absent are what this server does not have (a view of a newer
	// version): facts of the server, said once, not warnings.
	Absent() []string
	Close() error
}

// Work is a count of client work in the terms of one server counter:
// MySQL's Questions (statements), PostgreSQL's transactions.
type Work struct {
	// Scope is what the counter covers: "server" (the whole server), or
	// "database" (the run's database).
	Scope string
	// Counter is the counter's name among Counters' (its delta over the
	// window is the server's count); What is what it counts.
	Counter, What string
	// Prefix marks the counters of this scope ("" for every counter not
	// of a narrower scope, and the server's CPU and memory).
	Prefix string
	// Run and Observer are the counts so far of the run's connections
	// and of the observer's own.
	Run, Observer uint64
}

// Sessions is a driver's record, for --server-stats, of the run's own
// connections: their server session ids, and what they ran in the terms
// of the counter its observer compares (Work). It records nothing until
// Track is called, so that runs without --server-stats pay one nil check.
type Sessions struct {
	mu     sync.Mutex
	on     bool
	live   map[*Session]struct{}
	closed uint64 // the work of closed sessions
}

// Session is one connection's record; its methods do nothing on nil.
type Session struct {
	ID   string
	work atomic.Uint64
	of   *Sessions
}

// Track starts recording the connections opened from now on.
func (s *Sessions) Track() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.on = true
	if s.live == nil {
		s.live = map[*Session]struct{}{}
	}
}

// Tracking says whether connections are recorded.
func (s *Sessions) Tracking() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.on
}

// Open records a connection of server session id; nil when not tracking.
func (s *Sessions) Open(id string) *Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.on {
		return nil
	}
	ss := &Session{ID: id, of: s}
	s.live[ss] = struct{}{}
	return ss
}

// Count adds n to the session's work.
func (ss *Session) Count(n uint64) {
	if ss != nil {
		ss.work.Add(n)
	}
}

// Close records the connection's end, keeping its work.
func (ss *Session) Close() {
	if ss == nil {
		return
	}
	s := ss.of
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.live[ss]; ok {
		delete(s.live, ss)
		s.closed += ss.work.Load()
	}
}

// IDs are the server session ids of the open connections.
func (s *Sessions) IDs() map[string]bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := make(map[string]bool, len(s.live))
	for ss := range s.live {
		ids[ss.ID] = true
	}
	return ids
}

// Work is the work of every connection recorded, open or closed.
func (s *Sessions) Work() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.closed
	for ss := range s.live {
		n += ss.work.Load()
	}
	return n
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
