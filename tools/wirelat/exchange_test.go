package main

import (
	"net/netip"
	"testing"
	"time"
)

// wire builds the segments of a conversation by hand: each side's
// sequence numbers advance by what it sends, and every segment
// acknowledges all the other side has sent so far, as TCP does.
type wire struct {
	t0             time.Time
	client, server netip.AddrPort
	cseq, sseq     uint32
	segs           []Segment
}

const testPort = 3306

func newWire(clientPort uint16) *wire {
	lo := netip.MustParseAddr("127.0.0.1")
	return &wire{
		t0:     time.Unix(1000, 0),
		client: netip.AddrPortFrom(lo, clientPort), server: netip.AddrPortFrom(lo, testPort),
		cseq: 1000, sseq: 5000,
	}
}

// send appends a segment at µs microseconds: fromClient with payload p
// (n bytes on the wire when n > len(p), as a short snap length keeps).
func (w *wire) send(µs int, fromClient bool, p []byte, n int) *Segment {
	n = max(n, len(p))
	s := Segment{Time: w.t0.Add(time.Duration(µs) * time.Microsecond), ACK: true, Len: n, Payload: p}
	if fromClient {
		s.Src, s.Dst, s.Seq, s.Ack = w.client, w.server, w.cseq, w.sseq
		w.cseq += uint32(n)
	} else {
		s.Src, s.Dst, s.Seq, s.Ack = w.server, w.client, w.sseq, w.cseq
		w.sseq += uint32(n)
	}
	w.segs = append(w.segs, s)
	return &w.segs[len(w.segs)-1]
}

func (w *wire) c(µs int, p []byte) *Segment { return w.send(µs, true, p, 0) }
func (w *wire) s(µs int, n int) *Segment    { return w.send(µs, false, nil, n) }

// lose drops the segment sent last, as a capture that missed it would.
func (w *wire) lose() { w.segs = w.segs[:len(w.segs)-1] }

func mysqlCmd(cmd byte) []byte { return []byte{5, 0, 0, 0, cmd, 1, 0, 0, 0} }

func pair(segs ...[]Segment) ([]Exchange, Counts) {
	p := NewPairer(testPort, classifyMySQL)
	for _, ss := range segs {
		for _, s := range ss {
			p.Add(s)
		}
	}
	return p.Finish()
}

func TestPairerExchanges(t *testing.T) {
	type want struct {
		kind       Kind
		start, end int // µs
	}
	cases := []struct {
		name   string
		build  func(w *wire)
		want   []want
		counts Counts
	}{
		{"greeting ignored, log-in then two executes", func(w *wire) {
			w.s(0, 80)                            // greeting: the server speaks first
			w.c(10, []byte{50, 0, 0, 1, 0x85})    // log-in, sequence 1
			w.s(20, 11)                           // OK
			w.c(30, mysqlCmd(comStmtExecute))     // execute
			w.s(45, 143)                          // result
			w.c(60, mysqlCmd(comStmtExecute))     // next execute closes the first
			w.s(90, 143)                          // result
			w.c(100, []byte{1, 0, 0, 0, comQuit}) // quit closes the second
		}, []want{{KindOther, 10, 20}, {KindExecute, 30, 45}, {KindExecute, 60, 90}}, Counts{Exchanges: 3}},
		{"a request in two segments and a response in three", func(w *wire) {
			w.c(0, mysqlCmd(comQuery))
			w.c(5, []byte("rest of the query"))
			w.s(20, 1000)
			w.s(21, 1000)
			w.s(25, 300)
			w.c(40, mysqlCmd(comQuit))
		}, []want{{KindQuery, 0, 25}}, Counts{Exchanges: 1}},
		{"a command without a reply opens nothing", func(w *wire) {
			w.c(0, mysqlCmd(comStmtClose))
			w.c(10, mysqlCmd(comStmtExecute))
			w.s(30, 100)
			w.c(50, mysqlCmd(comStmtClose))
			w.c(60, mysqlCmd(comStmtPrepare))
			w.s(70, 100)
			w.c(80, mysqlCmd(comQuit))
		}, []want{{KindExecute, 10, 30}, {KindPrepare, 60, 70}}, Counts{Exchanges: 2}},
		{"a response's last segment missing: the client's ack gives it away", func(w *wire) {
			w.c(0, mysqlCmd(comStmtExecute))
			w.s(10, 1000)
			w.s(12, 200)
			w.lose()
			w.c(30, mysqlCmd(comStmtExecute))
			w.s(40, 100)
			w.c(50, mysqlCmd(comQuit))
		}, []want{{KindExecute, 30, 40}}, Counts{Exchanges: 1, Broken: 1}},
		{"a request's first segment missing: a gap in the client's bytes", func(w *wire) {
			w.c(0, mysqlCmd(comStmtExecute))
			w.s(5, 100)
			w.c(10, mysqlCmd(comStmtExecute))
			w.lose()
			w.c(11, []byte("tail of the request"))
			w.s(15, 100)
			w.c(20, mysqlCmd(comStmtExecute))
			w.s(30, 100)
			w.c(50, mysqlCmd(comQuit))
		}, []want{{KindExecute, 0, 5}, {KindExecute, 20, 30}}, Counts{Exchanges: 2, Broken: 1}},
		{"a request's bytes missing that only the server's ack shows", func(w *wire) {
			w.c(0, mysqlCmd(comStmtExecute))
			w.s(5, 100)
			w.c(10, mysqlCmd(comQuery))
			w.c(11, []byte("more of the query"))
			w.lose()
			w.s(15, 100)
			w.c(20, mysqlCmd(comQuit))
		}, []want{{KindExecute, 0, 5}}, Counts{Exchanges: 1, Broken: 1}},
		{"a retransmitted response segment is not a later end", func(w *wire) {
			w.c(0, mysqlCmd(comStmtExecute))
			s := *w.s(10, 100)
			s.Time = s.Time.Add(200 * time.Microsecond)
			w.segs = append(w.segs, s)
			w.c(400, mysqlCmd(comQuit))
		}, []want{{KindExecute, 0, 10}}, Counts{Exchanges: 1, Retrans: 1}},
		{"the capture ends inside an exchange", func(w *wire) {
			w.c(0, mysqlCmd(comStmtExecute))
			w.s(10, 100)
			w.c(20, mysqlCmd(comStmtExecute))
			w.s(30, 100)
		}, []want{{KindExecute, 0, 10}}, Counts{Exchanges: 1, Unclosed: 1}},
		{"the client's FIN closes the last exchange", func(w *wire) {
			w.c(0, mysqlCmd(comStmtExecute))
			w.s(10, 100)
			w.c(20, nil).FIN = true
		}, []want{{KindExecute, 0, 10}}, Counts{Exchanges: 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWire(40000)
			tc.build(w)
			got, counts := pair(w.segs)
			if counts != tc.counts {
				t.Errorf("counts = %+v, want %+v", counts, tc.counts)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d exchanges %+v, want %d", len(got), got, len(tc.want))
			}
			for i, e := range got {
				wt := tc.want[i]
				start, end := int(e.Start.Sub(w.t0)/time.Microsecond), int(e.End.Sub(w.t0)/time.Microsecond)
				if e.Kind != wt.kind || start != wt.start || end != wt.end || e.Client != w.client {
					t.Errorf("exchange %d = %s %d..%d from %s, want %s %d..%d from %s", i, e.Kind, start, end, e.Client, wt.kind, wt.start, wt.end, w.client)
				}
			}
		})
	}
}

// Two connections interleaved on the wire are paired each on its own.
func TestPairerInterleavedConnections(t *testing.T) {
	a, b := newWire(40001), newWire(40002)
	b.cseq, b.sseq = 7777, 9999
	a.c(0, mysqlCmd(comStmtExecute))
	b.c(1, mysqlCmd(comStmtExecute))
	b.s(5, 100)
	b.c(6, mysqlCmd(comStmtExecute))
	a.s(9, 100)
	b.s(12, 100)
	a.c(20, mysqlCmd(comQuit))
	b.c(21, mysqlCmd(comQuit))
	// Merge the two by time, as a capture sees them.
	var all []Segment
	i, j := 0, 0
	for i < len(a.segs) || j < len(b.segs) {
		if j == len(b.segs) || (i < len(a.segs) && a.segs[i].Time.Before(b.segs[j].Time)) {
			all = append(all, a.segs[i])
			i++
		} else {
			all = append(all, b.segs[j])
			j++
		}
	}
	got, counts := pair(all)
	if counts.Exchanges != 3 || counts.Broken != 0 {
		t.Fatalf("counts = %+v, want 3 exchanges, none broken", counts)
	}
	lat := map[netip.AddrPort][]time.Duration{}
	for _, e := range got {
		lat[e.Client] = append(lat[e.Client], e.Latency())
	}
	us := time.Microsecond
	if l := lat[a.client]; len(l) != 1 || l[0] != 9*us {
		t.Errorf("connection a: %v, want [9µs]", l)
	}
	if l := lat[b.client]; len(l) != 2 || l[0] != 4*us || l[1] != 6*us {
		t.Errorf("connection b: %v, want [4µs 6µs]", l)
	}
}

func TestClassify(t *testing.T) {
	msg := func(t byte, body string) []byte {
		n := len(body) + 4
		return append([]byte{t, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}, body...)
	}
	cat := func(ps ...[]byte) (out []byte) {
		for _, p := range ps {
			out = append(out, p...)
		}
		return out
	}
	startup := []byte{0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f} // an SSL request
	cases := []struct {
		name    string
		proto   string
		payload []byte
		kind    Kind
		reply   bool
	}{
		{"mysql execute", "mysql", mysqlCmd(comStmtExecute), KindExecute, true},
		{"mysql query", "mysql", mysqlCmd(comQuery), KindQuery, true},
		{"mysql prepare", "mysql", mysqlCmd(comStmtPrepare), KindPrepare, true},
		{"mysql close has no reply", "mysql", mysqlCmd(comStmtClose), KindOther, false},
		{"mysql quit has no reply", "mysql", mysqlCmd(comQuit), KindOther, false},
		{"mysql log-in packet (sequence 1)", "mysql", []byte{40, 0, 0, 1, 0x17}, KindOther, true},
		{"mysql ping", "mysql", mysqlCmd(0x0e), KindOther, true},
		{"mysql too short", "mysql", []byte{1, 0}, KindOther, true},
		{"pgsql bind execute sync (libpq)", "pgsql", cat(msg('B', "\x00\x00stmt"), msg('E', "\x00\x00\x00\x00\x00"), msg('S', "")), KindExecute, true},
		{"pgsql bind describe execute sync (pgx)", "pgsql", cat(msg('B', "xx"), msg('D', "P\x00"), msg('E', "\x00\x00\x00\x00\x00"), msg('S', "")), KindExecute, true},
		{"pgsql simple query", "pgsql", msg('Q', "SELECT 1\x00"), KindQuery, true},
		{"pgsql parse describe sync", "pgsql", cat(msg('P', "s\x00SELECT 1\x00\x00\x00"), msg('D', "Ss\x00"), msg('S', "")), KindPrepare, true},
		{"pgsql parse bind execute (unnamed)", "pgsql", cat(msg('P', "\x00SELECT 1\x00\x00\x00"), msg('B', "xx"), msg('E', "\x00\x00\x00\x00\x00"), msg('S', "")), KindExecute, true},
		{"pgsql execute cut off by the snap length", "pgsql", cat(msg('B', "xx"), msg('E', "\x00\x00\x00\x00\x00"))[:12], KindExecute, true},
		{"pgsql terminate has no reply", "pgsql", msg('X', ""), KindOther, false},
		{"pgsql ssl request", "pgsql", startup, KindOther, true},
		{"pgsql close sync", "pgsql", cat(msg('C', "Ss\x00"), msg('S', "")), KindOther, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			classify, err := ClassifierFor(tc.proto)
			if err != nil {
				t.Fatal(err)
			}
			kind, reply := classify(tc.payload)
			if kind != tc.kind || reply != tc.reply {
				t.Errorf("classify = %s, %v; want %s, %v", kind, reply, tc.kind, tc.reply)
			}
		})
	}
}
