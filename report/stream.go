package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
)

// ResultsStream writes a results document as the run goes, so that a run
// of any length holds none of its intervals in memory: the fields fixed
// when the run starts (headFields) first, then each interval as it is
// reported, then the rest when the run ends. Each interval is flushed as
// it is written. The document goes to the output through CreateAtomic:
// put in place whole at the end, as a document written at once would be.
type ResultsStream struct {
	out  *Output
	p    *Pending
	w    *bufio.Writer
	head *Results // written with the first interval, or at Finish
	n    int      // intervals written
	err  error    // the first write error; nothing is written after it
}

// headFields are the fields written before the intervals: what a run's
// results file says before the run's measured window begins.
var headFields = []string{"schema_version", "tool", "run_id", "host", "start", "command_line", "options", "settings", "instance"}

// NewResultsStream opens o (stdout stands for "-"). head's fixed fields,
// those the run cannot change, are written when the first interval is:
// until the measured window begins head may still be completed (a start
// time given by a start signal).
func NewResultsStream(o *Output, stdout io.Writer, head *Results) (*ResultsStream, error) {
	p, err := o.CreateAtomic(stdout)
	if err != nil {
		return nil, fmt.Errorf("cannot write the results file '%s': %w", o.Path, err)
	}
	return &ResultsStream{out: o, p: p, w: bufio.NewWriterSize(p, 32<<10), head: head}, nil
}

// begin writes the head once.
func (s *ResultsStream) begin() {
	if s.head == nil {
		return
	}
	head := s.head
	s.head = nil
	s.write([]byte("{"))
	s.fields(head, func(k string) bool { return slices.Contains(headFields, k) }, true)
	s.write([]byte(",\n  \"intervals\": ["))
}

// Interval writes one interval.
func (s *ResultsStream) Interval(iv *Interval) {
	s.begin()
	if s.err != nil {
		return
	}
	b, err := json.MarshalIndent(iv, "    ", "  ")
	if err != nil {
		s.err = err
		return
	}
	sep := ",\n    "
	if s.n == 0 {
		sep = "\n    "
	}
	s.n++
	s.write([]byte(sep))
	s.write(b)
	if s.err == nil {
		s.err = s.w.Flush()
	}
}

// Finish writes r's fields other than the head's and the intervals, and
// puts the document in place. The error names the file.
func (s *ResultsStream) Finish(r *Results) error {
	s.begin()
	if s.n > 0 {
		s.write([]byte("\n  "))
	}
	s.write([]byte("]"))
	rest := *r
	rest.Intervals = nil // the stream's own
	s.fields(&rest, func(k string) bool { return k != "intervals" && !slices.Contains(headFields, k) }, false)
	s.write([]byte("\n}\n"))
	if s.err == nil {
		s.err = s.w.Flush()
	}
	if s.err != nil {
		s.p.Abort()
	} else {
		s.err = s.p.Commit()
	}
	if s.err != nil {
		return fmt.Errorf("cannot write the results file '%s': %w", s.out.Path, PathCause(s.err))
	}
	return nil
}

// Abort drops the document (a run that never began): the output stays as
// it was.
func (s *ResultsStream) Abort() { s.p.Abort() }

func (s *ResultsStream) write(b []byte) {
	if s.err == nil {
		_, s.err = s.w.Write(b)
	}
}

// fields writes r's top-level fields that keep selects, in the document's
// order and layout (json.MarshalIndent's, two spaces), each after a comma
// unless first.
func (s *ResultsStream) fields(r *Results, keep func(string) bool, first bool) {
	if s.err != nil {
		return
	}
	b, err := json.Marshal(r)
	if err != nil {
		s.err = fmt.Errorf("results: %w", err)
		return
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil { // {
		s.err = err
		return
	}
	var buf bytes.Buffer
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			s.err = err
			return
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			s.err = err
			return
		}
		key, _ := tok.(string)
		if !keep(key) {
			continue
		}
		buf.Reset()
		if !first {
			buf.WriteByte(',')
		}
		first = false
		k, _ := json.Marshal(key)
		buf.WriteString("\n  ")
		buf.Write(k)
		buf.WriteString(": ")
		if err := json.Indent(&buf, raw, "  ", "  "); err != nil {
			s.err = err
			return
		}
		s.write(buf.Bytes())
	}
}
