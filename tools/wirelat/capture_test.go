package main

import (
	"bytes"
	"net"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// packetWriter is what pcapgo's two writers have in common.
type packetWriter interface {
	WritePacket(ci gopacket.CaptureInfo, data []byte) error
}

// frame serializes one Ethernet/IP/TCP packet.
func frame(t *testing.T, src, dst netip.AddrPort, seq uint32, payload []byte) []byte {
	t.Helper()
	eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{0, 0, 0, 0, 0, 0}, DstMAC: net.HardwareAddr{0, 0, 0, 0, 0, 0}}
	tcp := &layers.TCP{SrcPort: layers.TCPPort(src.Port()), DstPort: layers.TCPPort(dst.Port()), Seq: seq, Ack: 77, ACK: true, PSH: true, Window: 512}
	var ip gopacket.SerializableLayer
	if src.Addr().Is4() {
		eth.EthernetType = layers.EthernetTypeIPv4
		ip4 := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: src.Addr().AsSlice(), DstIP: dst.Addr().AsSlice()}
		_ = tcp.SetNetworkLayerForChecksum(ip4)
		ip = ip4
	} else {
		eth.EthernetType = layers.EthernetTypeIPv6
		ip6 := &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: layers.IPProtocolTCP, SrcIP: src.Addr().AsSlice(), DstIP: dst.Addr().AsSlice()}
		_ = tcp.SetNetworkLayerForChecksum(ip6)
		ip = ip6
	}
	buf := gopacket.NewSerializeBuffer()
	opts := gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}
	if err := gopacket.SerializeLayers(buf, opts, eth, ip, tcp, gopacket.Payload(payload)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Both file formats, IPv4 and IPv6, and payloads cut short by the snap
// length: the payload's length comes from the IP header, its first bytes
// from the capture.
func TestReadSegmentsFormats(t *testing.T) {
	const snap = 90
	v4c, v4s := netip.MustParseAddrPort("127.0.0.1:40000"), netip.MustParseAddrPort("127.0.0.1:5432")
	v6c, v6s := netip.MustParseAddrPort("[::1]:40001"), netip.MustParseAddrPort("[::1]:5432")
	packets := []struct {
		src, dst netip.AddrPort
		seq      uint32
		payload  []byte
	}{
		{v4c, v4s, 100, []byte("Q\x00\x00\x00\x0dSELECT 1\x00")},
		{v4s, v4c, 900, bytes.Repeat([]byte("r"), 400)}, // cut to the snap length
		{v6c, v6s, 300, bytes.Repeat([]byte("q"), 30)},
		{v6s, v6c, 700, bytes.Repeat([]byte("s"), 1000)}, // cut
		{v4c, v4s, 123, nil},                             // an acknowledgement
	}
	t0 := time.Unix(1700000000, 123456000)
	for _, format := range []string{"pcap", "pcapng"} {
		t.Run(format, func(t *testing.T) {
			var file bytes.Buffer
			var w packetWriter
			var flush func() error
			if format == "pcap" {
				pw := pcapgo.NewWriter(&file)
				if err := pw.WriteFileHeader(snap, layers.LinkTypeEthernet); err != nil {
					t.Fatal(err)
				}
				w, flush = pw, func() error { return nil }
			} else {
				nw, err := pcapgo.NewNgWriter(&file, layers.LinkTypeEthernet)
				if err != nil {
					t.Fatal(err)
				}
				w, flush = nw, nw.Flush
			}
			for i, p := range packets {
				data := frame(t, p.src, p.dst, p.seq, p.payload)
				ci := gopacket.CaptureInfo{Timestamp: t0.Add(time.Duration(i) * time.Millisecond), Length: len(data), CaptureLength: min(len(data), snap)}
				if err := w.WritePacket(ci, data[:ci.CaptureLength]); err != nil {
					t.Fatal(err)
				}
			}
			if err := flush(); err != nil {
				t.Fatal(err)
			}
			var got []Segment
			err := ReadSegments(&file, func(s Segment) {
				s.Payload = bytes.Clone(s.Payload)
				got = append(got, s)
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(packets) {
				t.Fatalf("got %d segments, want %d", len(got), len(packets))
			}
			for i, p := range packets {
				s := got[i]
				if s.Src != p.src || s.Dst != p.dst || s.Seq != p.seq || s.Ack != 77 || !s.ACK || s.SYN || s.FIN {
					t.Errorf("segment %d: %s > %s seq %d ack %d, want %s > %s seq %d ack 77", i, s.Src, s.Dst, s.Seq, s.Ack, p.src, p.dst, p.seq)
				}
				if s.Len != len(p.payload) {
					t.Errorf("segment %d: length %d, want %d", i, s.Len, len(p.payload))
				}
				if len(s.Payload) == 0 && len(p.payload) > 0 || !bytes.HasPrefix(p.payload, s.Payload) {
					t.Errorf("segment %d: payload %q is not a prefix of what was sent", i, s.Payload)
				}
				if want := t0.Add(time.Duration(i) * time.Millisecond); !s.Time.Equal(want) {
					t.Errorf("segment %d: time %v, want %v", i, s.Time, want)
				}
			}
			if len(got[1].Payload) >= 400 || len(got[3].Payload) >= 1000 {
				t.Errorf("the snap length did not cut the long payloads: %d and %d bytes", len(got[1].Payload), len(got[3].Payload))
			}
		})
	}
}

func TestReadSegmentsNotACapture(t *testing.T) {
	err := ReadSegments(strings.NewReader("this is not a capture file at all"), func(Segment) {})
	if err == nil || !strings.Contains(err.Error(), "reading the capture") {
		t.Fatalf("err = %v, want a reading error", err)
	}
}

// fixture pairs one of the captures in testdata (see testdata/README.md).
func fixture(t *testing.T, name, proto string, port uint16) ([]Exchange, Counts) {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	classify, err := ClassifierFor(proto)
	if err != nil {
		t.Fatal(err)
	}
	p := NewPairer(port, classify)
	if err := ReadSegments(f, p.Add); err != nil {
		t.Fatal(err)
	}
	return p.Finish()
}

// The recorded runs made 20 point-select events each, one prepared
// statement executed per event, two connections each: 40 executes per
// capture, each statement prepared once per connection.
func TestFixtures(t *testing.T) {
	for _, fx := range []struct{ file, proto string }{{"mysql.pcapng", "mysql"}, {"pgsql.pcapng", "pgsql"}} {
		t.Run(fx.proto, func(t *testing.T) {
			port := map[string]uint16{"mysql": fixtureMySQLPort, "pgsql": fixturePgSQLPort}[fx.proto]
			exchanges, counts := fixture(t, fx.file, fx.proto, port)
			if counts.Broken != 0 || counts.Unclosed != 0 || counts.Retrans != 0 {
				t.Errorf("counts = %+v, want nothing broken, unclosed or retransmitted", counts)
			}
			s := Summarize(exchanges, map[Kind]bool{KindExecute: true})
			if s.ByKind[KindExecute] != 40 || s.ByKind[KindPrepare] != 4 {
				t.Errorf("kinds = %v, want 40 executes and 4 prepares", s.ByKind)
			}
			for _, e := range exchanges {
				if e.Latency() <= 0 || e.Latency() > time.Second {
					t.Errorf("%s exchange from %s took %v", e.Kind, e.Client, e.Latency())
				}
			}
			if p50, p99 := s.Percentile(50), s.Percentile(99); p50 <= 0 || p99 < p50 || p99 != s.Latencies[len(s.Latencies)-1] {
				t.Errorf("p50 %v, p99 %v of %v", p50, p99, s.Latencies)
			}
		})
	}
}

const (
	fixtureMySQLPort = 36306
	fixturePgSQLPort = 37432
)

func TestPercentile(t *testing.T) {
	ms := time.Millisecond
	s := Summary{Latencies: []time.Duration{1 * ms, 2 * ms, 3 * ms, 4 * ms}}
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{{1, 1 * ms}, {25, 1 * ms}, {26, 2 * ms}, {50, 2 * ms}, {75, 3 * ms}, {99, 4 * ms}, {100, 4 * ms}} {
		if got := s.Percentile(c.p); got != c.want {
			t.Errorf("p%v = %v, want %v", c.p, got, c.want)
		}
	}
	if got := (Summary{}).Percentile(50); got != 0 {
		t.Errorf("p50 of nothing = %v", got)
	}
}
