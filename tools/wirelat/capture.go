package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// Segment is one TCP segment as the capture saw it. Len is the payload's
// length on the wire; Payload is the part of it the capture kept (the
// snap length may cut it short).
type Segment struct {
	Time               time.Time
	Src, Dst           netip.AddrPort
	Seq, Ack           uint32
	SYN, FIN, RST, ACK bool
	Len                int
	Payload            []byte
}

// packetSource is what pcapgo's two readers have in common.
type packetSource interface {
	ReadPacketData() ([]byte, gopacket.CaptureInfo, error)
	LinkType() layers.LinkType
}

// pcapngMagic opens a pcapng file (its section header block's type);
// anything else is read as classic pcap.
var pcapngMagic = []byte{0x0a, 0x0d, 0x0d, 0x0a}

// ReadSegments calls fn for every TCP segment of a pcap or pcapng capture,
// in the capture's order. Packets that are not TCP over IPv4 or IPv6 are
// skipped.
func ReadSegments(r io.Reader, fn func(Segment)) error {
	br := bufio.NewReaderSize(r, 1<<20)
	head, err := br.Peek(4)
	if err != nil {
		return fmt.Errorf("reading the capture: %w", err)
	}
	var src packetSource
	if bytes.Equal(head, pcapngMagic) {
		src, err = pcapgo.NewNgReader(br, pcapgo.DefaultNgReaderOptions)
	} else {
		src, err = pcapgo.NewReader(br)
	}
	if err != nil {
		return fmt.Errorf("reading the capture: %w", err)
	}

	var (
		eth     layers.Ethernet
		sll     layers.LinuxSLL
		lo      layers.Loopback
		ip4     layers.IPv4
		ip6     layers.IPv6
		tcp     layers.TCP
		decoded []gopacket.LayerType
	)
	first, ok := map[layers.LinkType]gopacket.LayerType{
		layers.LinkTypeEthernet: layers.LayerTypeEthernet,
		layers.LinkTypeLinuxSLL: layers.LayerTypeLinuxSLL,
		layers.LinkTypeNull:     layers.LayerTypeLoopback,
		layers.LinkTypeLoop:     layers.LayerTypeLoopback,
		layers.LinkTypeRaw:      layers.LayerTypeIPv4,
		layers.LinkTypeIPv4:     layers.LayerTypeIPv4,
	}[src.LinkType()]
	if !ok {
		return fmt.Errorf("reading the capture: link type %v is not supported", src.LinkType())
	}
	parser := gopacket.NewDecodingLayerParser(first, &eth, &sll, &lo, &ip4, &ip6, &tcp)
	parser.IgnoreUnsupported = true
	for {
		data, ci, err := src.ReadPacketData()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading the capture: %w", err)
		}
		// A packet the parser cannot finish (a truncated header) is
		// skipped; what was decoded says whether it was TCP.
		_ = parser.DecodeLayers(data, &decoded)
		var (
			isTCP    bool
			src, dst netip.Addr
			ipLen    int // the IP payload's length on the wire
		)
		for _, lt := range decoded {
			switch lt {
			case layers.LayerTypeIPv4:
				src, _ = netip.AddrFromSlice(ip4.SrcIP.To4())
				dst, _ = netip.AddrFromSlice(ip4.DstIP.To4())
				ipLen = int(ip4.Length) - int(ip4.IHL)*4
			case layers.LayerTypeIPv6:
				src, _ = netip.AddrFromSlice(ip6.SrcIP.To16())
				dst, _ = netip.AddrFromSlice(ip6.DstIP.To16())
				ipLen = int(ip6.Length)
			case layers.LayerTypeTCP:
				isTCP = true
			}
		}
		if !isTCP {
			continue
		}
		n := ipLen - int(tcp.DataOffset)*4
		if n < 0 {
			n = 0
		}
		payload := tcp.Payload
		if len(payload) > n { // Ethernet padding of a short frame
			payload = payload[:n]
		}
		fn(Segment{
			Time: ci.Timestamp,
			Src:  netip.AddrPortFrom(src, uint16(tcp.SrcPort)),
			Dst:  netip.AddrPortFrom(dst, uint16(tcp.DstPort)),
			Seq:  tcp.Seq, Ack: tcp.Ack,
			SYN: tcp.SYN, FIN: tcp.FIN, RST: tcp.RST, ACK: tcp.ACK,
			Len:     n,
			Payload: payload,
		})
	}
}
