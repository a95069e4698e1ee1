package main

import (
	"net/netip"
	"time"
)

// Exchange is one request and its whole response on one connection: from
// the first segment of the client's request to the last segment of the
// server's response before the client spoke again.
//
// The pairing relies on the clients measured here (sysbench, sysbench-go)
// speaking strictly in turn on a connection: a request, then the whole
// response is read, then the next request. So a client segment that
// follows server data starts a new request, and the server data between
// two requests is the first one's response, however the protocol frames
// it.
type Exchange struct {
	Client     netip.AddrPort
	Kind       Kind
	Start, End time.Time
}

// Latency is the exchange's time on the wire.
func (e Exchange) Latency() time.Duration { return e.End.Sub(e.Start) }

// Counts says what the pairing kept and why it dropped the rest.
type Counts struct {
	Exchanges int // paired, of every kind
	Broken    int // dropped: bytes of the request or response missing from the capture
	Unclosed  int // dropped: the capture ended before the client spoke again
	Retrans   int // segments seen twice (retransmissions), ignored
}

type connState int

const (
	idle       connState = iota // no request outstanding
	requesting                  // request seen, no response yet
	responding                  // response under way
)

// direction is one half of a connection: the next sequence number the
// capture expects from that side.
type direction struct {
	next  uint32
	known bool
	// gap is set when bytes went missing before the segment just taken.
	gap bool
}

// take advances the direction past s; it returns false for a segment
// seen before (a retransmission).
func (d *direction) take(s Segment) bool {
	d.gap = false
	if s.SYN {
		d.next, d.known = s.Seq+1, true
		return true
	}
	if d.known {
		diff := int32(s.Seq - d.next)
		if diff < 0 {
			if int32(s.Seq+uint32(s.Len)-d.next) <= 0 {
				return false
			}
		} else if diff > 0 {
			d.gap = true
		}
	}
	d.next, d.known = s.Seq+uint32(s.Len), true
	if s.FIN {
		d.next++
	}
	return true
}

// acks reports whether ack acknowledges exactly what the capture saw of
// this direction: more means bytes the capture missed. It then takes the
// ack as the point to expect next, so that the missing bytes count
// against the exchange they belonged to and not against the next one.
func (d *direction) acks(ack uint32) bool {
	if !d.known || ack == d.next {
		return true
	}
	d.next = ack
	return false
}

type conn struct {
	client, server direction
	state          connState
	cur            Exchange
	broken         bool
}

// Pairer turns a capture's segments into exchanges.
type Pairer struct {
	serverPort uint16
	classify   Classifier
	conns      map[[2]netip.AddrPort]*conn
	out        []Exchange
	counts     Counts
}

// NewPairer pairs the requests and responses of connections to
// serverPort, naming requests with classify.
func NewPairer(serverPort uint16, classify Classifier) *Pairer {
	return &Pairer{serverPort: serverPort, classify: classify, conns: map[[2]netip.AddrPort]*conn{}}
}

// Add takes the capture's next segment. Segments of other ports are
// ignored.
func (p *Pairer) Add(s Segment) {
	fromClient := s.Dst.Port() == p.serverPort
	if !fromClient && s.Src.Port() != p.serverPort {
		return
	}
	key := [2]netip.AddrPort{s.Src, s.Dst}
	if !fromClient {
		key = [2]netip.AddrPort{s.Dst, s.Src}
	}
	c := p.conns[key]
	if c == nil {
		c = &conn{}
		p.conns[key] = c
	}
	if fromClient {
		if !c.client.take(s) {
			p.counts.Retrans++
			return
		}
		if s.Len > 0 || s.FIN || s.RST {
			p.clientSpoke(c, s)
		}
		if s.FIN || s.RST {
			delete(p.conns, key)
		}
		return
	}
	if !c.server.take(s) {
		p.counts.Retrans++
		return
	}
	if s.Len == 0 || c.state == idle {
		return // an acknowledgement, or the server speaking first (a greeting)
	}
	c.state = responding
	c.cur.End = s.Time
	acked := !s.ACK || c.client.acks(s.Ack)
	if c.server.gap || !acked {
		c.broken = true
	}
}

// clientSpoke handles a client segment with data, or its end: it closes
// the exchange whose response is complete and opens the next one.
func (p *Pairer) clientSpoke(c *conn, s Segment) {
	if c.state == responding {
		// The client has read the whole response: its acknowledgement
		// says whether the capture saw all of it.
		acked := !s.ACK || c.server.acks(s.Ack)
		if c.broken || !acked {
			p.counts.Broken++
		} else {
			p.out = append(p.out, c.cur)
			p.counts.Exchanges++
		}
		c.state = idle
	}
	if s.Len == 0 {
		return
	}
	if c.state == requesting {
		if c.client.gap {
			c.broken = true
		}
		return // more of the same request
	}
	kind, reply := p.classify(s.Payload)
	if !reply {
		return
	}
	c.state = requesting
	c.cur = Exchange{Client: s.Src, Kind: kind, Start: s.Time}
	c.broken = c.client.gap
}

// Finish ends the capture: exchanges still open are counted as unclosed.
// It returns the paired exchanges in the order they were closed.
func (p *Pairer) Finish() ([]Exchange, Counts) {
	for _, c := range p.conns {
		if c.state != idle {
			p.counts.Unclosed++
		}
	}
	p.conns = map[[2]netip.AddrPort]*conn{}
	return p.out, p.counts
}
