package report

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/sysbench-go/sysbench-go/docs"
)

// A results file is read in three steps, each refusing with one line what
// does not hold: it is JSON of this schema version (Decode), it conforms
// to docs/results.schema.json, and its figures agree with each other
// (check). A file edited by hand or cut short is refused, never printed
// as figures it does not have.

// resultsSchema is the compiled schema; compiling it takes some
// milliseconds, so only the commands that read results files pay for it.
var resultsSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(docs.ResultsSchema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const url = "https://sysbench-go.dev/results.schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
})

// ValidateSchema checks a results document against
// docs/results.schema.json; the error is one line naming the first place
// that does not conform.
func ValidateSchema(b []byte) error {
	sch, err := resultsSchema()
	if err != nil {
		return fmt.Errorf("the results schema does not compile: %v", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("not JSON: %v", err)
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("not a valid results file: %s", schemaCause(err))
	}
	return nil
}

// schemaCause is the innermost reason of a validation error, on one line:
// of several (a value that may be null or an object), the one deepest in
// the document, and not "it is not null".
func schemaCause(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return strings.ReplaceAll(err.Error(), "\n", " ")
	}
	for len(ve.Causes) > 0 {
		best := ve.Causes[0]
		for _, c := range ve.Causes[1:] {
			if causeRank(c) > causeRank(best) {
				best = c
			}
		}
		ve = best
	}
	loc := "/" + strings.Join(ve.InstanceLocation, "/")
	msg := strings.ReplaceAll(ve.Error(), "\n", " ")
	if strings.HasPrefix(msg, "at '") {
		if i := strings.Index(msg, "': "); i >= 0 {
			msg = msg[i+3:]
		}
	}
	return fmt.Sprintf("at %s: %s", loc, msg)
}

// causeRank ranks a cause by how deep in the document its innermost
// reason is, a wrong type last.
func causeRank(ve *jsonschema.ValidationError) int {
	rank := 2 * len(ve.InstanceLocation)
	if _, ok := ve.ErrorKind.(*kind.Type); !ok {
		rank++
	}
	for _, c := range ve.Causes {
		rank = max(rank, causeRank(c))
	}
	return rank
}

// slack is how far apart two times or durations written to the
// microsecond may be and still agree.
const slack = time.Millisecond

// check is the figures' agreement: every window's histogram decodes and
// holds its events, its threads add up to its latency figures, its rates
// are its counters over its time, and the windows lie within the run.
func (r *Results) check() error {
	if r.End.Before(r.Start) {
		return errors.New("inconsistent: the run ends before it starts")
	}
	if r.Total != nil {
		if err := r.Total.check(r.mergedTime()); err != nil {
			return fmt.Errorf("inconsistent total: %w", err)
		}
		if r.Total.Start.Before(r.Start.Add(-slack)) || r.Total.End.After(r.End.Add(slack)) {
			return errors.New("inconsistent total: its window is not within the run's start and end")
		}
	}
	for i := range r.Checkpoints {
		if err := r.Checkpoints[i].check(0); err != nil {
			return fmt.Errorf("inconsistent checkpoint %d: %w", i+1, err)
		}
	}
	for i := range r.Statements {
		s := &r.Statements[i]
		h, err := decodeHistogram(&s.Histogram)
		switch {
		case err != nil:
			return fmt.Errorf("inconsistent statement %q: %w", s.SQL, err)
		case uint64(h.TotalCount()) != s.Timed || s.Timed > s.Count || s.Errors > s.Count:
			return fmt.Errorf("inconsistent statement %q: %d executions, %d timed, %d in its histogram, %d failed",
				s.SQL, s.Count, s.Timed, h.TotalCount(), s.Errors)
		}
		s.hist = h
	}
	if r.Capacity != nil {
		if err := r.Capacity.check(); err != nil {
			return err
		}
	}
	if len(r.Parts) > 0 && len(r.Parts) != len(r.Merged) {
		return fmt.Errorf("inconsistent merge: %d files merged, %d parts", len(r.Merged), len(r.Parts))
	}
	return nil
}

// mergedTime is the measured time of a merged file, as its combination
// of windows says; 0 for a run's own file.
func (r *Results) mergedTime() float64 {
	if r.Combined == nil {
		return 0
	}
	return r.Combined.MeasuredS
}

// check is a window's agreement with itself; merged, when not 0, is the
// time its merge says it measured (rounds forced together may have
// measured more than the span of their windows).
func (w *Window) check(merged float64) error {
	span := w.End.Sub(w.Start)
	if span < 0 {
		return errors.New("it ends before it starts")
	}
	switch d := seconds64(w.Duration); {
	case d <= 0:
		return fmt.Errorf("it lasts %.6f s", w.Duration)
	case merged > 0 && (d < seconds64(merged)-slack || d > seconds64(merged)+slack):
		return fmt.Errorf("it lasts %.6f s, its merge says %.6f s", w.Duration, merged)
	case merged == 0 && d > span+slack:
		return fmt.Errorf("it lasts %.6f s, between a start and end %.6f s apart", w.Duration, span.Seconds())
	}
	l := &w.Latency
	var events uint64
	var sum int64
	for _, t := range w.Threads {
		events, sum = events+t.Events, sum+t.SumNS
	}
	switch {
	case events != l.Events || sum != l.SumNS:
		return fmt.Errorf("its threads hold %d events of %d ns, its latency %d events of %d ns", events, sum, l.Events, l.SumNS)
	case w.Counters.Events < l.Events:
		return fmt.Errorf("%d events counted, %d timed", w.Counters.Events, l.Events)
	case l.Events > 0 && (l.MinNS > l.MaxNS || l.MinNS < 0):
		return fmt.Errorf("latency min %d ns above max %d ns", l.MinNS, l.MaxNS)
	case !near(w.TPS, float64(w.Counters.Events)/w.Duration):
		return fmt.Errorf("%.2f transactions per second, %d over %.6f s", w.TPS, w.Counters.Events, w.Duration)
	}
	h, err := decodeHistogram(&l.Histogram)
	if err != nil {
		return err
	}
	if uint64(h.TotalCount()) != l.Events {
		return fmt.Errorf("the latency histogram holds %d values, the latency %d events", h.TotalCount(), l.Events)
	}
	w.hist = h
	return nil
}

// decodeHistogram decodes a recorded histogram, checking its count.
func decodeHistogram(r *Histogram) (*hdr.Histogram, error) {
	h, err := hdr.Decode([]byte(r.Encoded))
	if err != nil {
		return nil, fmt.Errorf("the latency histogram does not decode: %v", err)
	}
	if h.TotalCount() != r.Count {
		return nil, fmt.Errorf("the latency histogram holds %d values, the file says %d", h.TotalCount(), r.Count)
	}
	return h, nil
}

// near says whether a rate as written agrees with the one computed, to
// the float's last digits.
func near(written, computed float64) bool {
	return math.Abs(written-computed) <= 1e-6*math.Max(1, math.Abs(computed))
}

func seconds64(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }
