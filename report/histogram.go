package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// The printed histogram groups our exact (HDR) buckets into the
// reference's 1024 log-spaced buckets from 0.001 ms to 100 s, so the
// output has the same resolution and shape as sysbench's.
const (
	printBuckets = 1024
	printMinMS   = 0.001
	printMaxMS   = 100000.0
)

// printedBucket is one of the reference's histogram buckets: its value
// in ms and how many latencies fell in it.
type printedBucket struct {
	ms    float64
	count int64
}

// printedBuckets groups h's buckets into the reference's, returning the
// non-empty ones in order and the largest count.
func printedBuckets(h *hdr.Histogram) (out []printedBucket, maxCount int64) {
	deduct := math.Log(printMinMS)
	mult := (printBuckets - 1) / (math.Log(printMaxMS) - deduct)
	counts := make([]int64, printBuckets)
	for _, b := range h.Distribution() {
		if b.Count == 0 {
			continue
		}
		ms := float64(b.From+b.To) / 2 / 1000
		if ms < printMinMS {
			ms = printMinMS
		}
		i := int(math.Floor((math.Log(ms)-deduct)*mult + 0.5))
		if i < 0 {
			i = 0
		} else if i >= printBuckets {
			i = printBuckets - 1
		}
		counts[i] += b.Count
	}
	for i, c := range counts {
		if c == 0 {
			continue
		}
		out = append(out, printedBucket{ms: math.Exp(float64(i)/mult + deduct), count: c})
		maxCount = max(maxCount, c)
	}
	return out, maxCount
}

// WriteHistogram prints the latency histogram in the reference's layout:
// one line per non-empty bucket, value in ms, a 40-column bar, the count.
func WriteHistogram(w io.Writer, h *hdr.Histogram) {
	buckets, maxc := printedBuckets(h)
	if maxc == 0 {
		return
	}
	stars := strings.Repeat("*", 40)
	fmt.Fprintf(w, "       value  ------------- distribution ------------- count\n")
	for _, b := range buckets {
		width := int(math.Floor(float64(b.count)*40/float64(maxc) + 0.5))
		fmt.Fprintf(w, "%12.3f |%-40s %d\n", b.ms, stars[:width], b.count)
	}
}
