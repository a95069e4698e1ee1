// Command wirelat reads a packet capture of a database client's run on
// loopback, pairs each request with its response on the wire and prints
// the distribution of their latencies: what the server and the network
// took, to set beside the latency the client reports (make bench, section
// wire; docs/performance.md).
//
//	wirelat -proto mysql|pgsql -port 3306 [-kinds execute,query] [-percentiles 50,99] [-list] FILE
//
// FILE is pcap or pcapng (tshark's or tcpdump's -w); the capture must
// keep the first bytes of each request (a snap length of 256 is plenty
// for the bundled workloads) and see the connections in plain text.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

type config struct {
	proto       string
	port        uint16
	kinds       map[Kind]bool
	percentiles []float64
	list        bool
	file        string
}

func parseArgs(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("wirelat", flag.ContinueOnError)
	fs.SetOutput(stderr)
	proto := fs.String("proto", "", "the protocol: mysql or pgsql")
	port := fs.Uint("port", 0, "the server's TCP port")
	kinds := fs.String("kinds", "execute,query", "the kinds of request to measure: execute, query, prepare, other")
	pcts := fs.String("percentiles", "50,99", "the percentiles to print")
	list := fs.Bool("list", false, "print every measured exchange (client, start, latency in µs, kind) before the summary")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	cfg := config{proto: *proto, port: uint16(*port), kinds: map[Kind]bool{}, list: *list}
	if _, err := ClassifierFor(cfg.proto); err != nil {
		return cfg, err
	}
	if *port == 0 || *port > math.MaxUint16 {
		return cfg, errors.New("-port: a TCP port is required")
	}
	for _, k := range strings.Split(*kinds, ",") {
		switch Kind(k) {
		case KindExecute, KindQuery, KindPrepare, KindOther:
			cfg.kinds[Kind(k)] = true
		default:
			return cfg, fmt.Errorf("-kinds: unknown kind %q", k)
		}
	}
	for _, s := range strings.Split(*pcts, ",") {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v <= 0 || v > 100 {
			return cfg, fmt.Errorf("-percentiles: %q is not a percentile", s)
		}
		cfg.percentiles = append(cfg.percentiles, v)
	}
	if fs.NArg() != 1 {
		return cfg, errors.New("one capture file is required")
	}
	cfg.file = fs.Arg(0)
	return cfg, nil
}

func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseArgs(args, stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "wirelat:", err)
		}
		return 2
	}
	f, err := os.Open(cfg.file)
	if err != nil {
		fmt.Fprintln(stderr, "wirelat:", err)
		return 1
	}
	defer f.Close()
	classify, _ := ClassifierFor(cfg.proto)
	p := NewPairer(cfg.port, classify)
	if err := ReadSegments(f, p.Add); err != nil {
		fmt.Fprintf(stderr, "wirelat: %s: %v\n", cfg.file, err)
		return 1
	}
	exchanges, counts := p.Finish()
	s := Summarize(exchanges, cfg.kinds)
	if cfg.list {
		for _, e := range exchanges {
			if cfg.kinds[e.Kind] {
				fmt.Fprintf(stdout, "%s\t%d\t%.1f\t%s\n", e.Client, e.Start.UnixNano(), float64(e.Latency())/float64(time.Microsecond), e.Kind)
			}
		}
	}
	fmt.Fprintln(stdout, s.Line(cfg.percentiles, counts))
	return 0
}

// Summary is the measured exchanges' latencies, sorted, and how many of
// each kind the capture held.
type Summary struct {
	Latencies []time.Duration
	ByKind    map[Kind]int
}

// Summarize keeps the latencies of the exchanges of the given kinds.
func Summarize(exchanges []Exchange, kinds map[Kind]bool) Summary {
	s := Summary{ByKind: map[Kind]int{}}
	for _, e := range exchanges {
		s.ByKind[e.Kind]++
		if kinds[e.Kind] {
			s.Latencies = append(s.Latencies, e.Latency())
		}
	}
	slices.Sort(s.Latencies)
	return s
}

// Percentile is the smallest latency that p percent of the measured
// exchanges do not exceed (nearest rank), as a histogram's running count
// finds it; 0 when nothing was measured.
func (s Summary) Percentile(p float64) time.Duration {
	n := len(s.Latencies)
	if n == 0 {
		return 0
	}
	i := int(math.Ceil(p/100*float64(n))) - 1
	return s.Latencies[max(0, min(i, n-1))]
}

// Line is the one-line summary bench.sh reads: key=value words, latencies
// in milliseconds.
func (s Summary) Line(percentiles []float64, c Counts) string {
	var b strings.Builder
	fmt.Fprintf(&b, "paired=%d", len(s.Latencies))
	for _, p := range percentiles {
		fmt.Fprintf(&b, " p%s=%.3f", strconv.FormatFloat(p, 'f', -1, 64), float64(s.Percentile(p))/float64(time.Millisecond))
	}
	kinds := make([]string, 0, len(s.ByKind))
	for k := range s.ByKind {
		kinds = append(kinds, string(k))
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		fmt.Fprintf(&b, " %s=%d", k, s.ByKind[Kind(k)])
	}
	fmt.Fprintf(&b, " broken=%d unclosed=%d retrans=%d", c.Broken, c.Unclosed, c.Retrans)
	return b.String()
}
