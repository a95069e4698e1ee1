package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A streamed document is written as its intervals come, beside the
// target, which it replaces only when finished: the same document as one
// written at once, and nothing left behind when a run never begins.
func TestResultsStream(t *testing.T) {
	whole := sampleResults(t)
	dir := t.TempDir()
	target := filepath.Join(dir, "r.json")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	o, err := CheckOutput(target)
	if err != nil {
		t.Fatal(err)
	}
	at := whole.Start.Add(5 * time.Second)
	whole.Settings.StartAt = &at
	head := *whole
	head.Intervals = nil
	head.Settings.StartAt = nil
	s, err := NewResultsStream(o, nil, &head)
	if err != nil {
		t.Fatal(err)
	}
	// A start time given once the workers are ready (--await-start) is
	// in the head, written with the first interval.
	head.Settings.StartAt = &at
	pending := func() string {
		m, _ := filepath.Glob(filepath.Join(dir, ".r.json.*"))
		if len(m) != 1 {
			t.Fatalf("temporary files %v", m)
		}
		b, _ := os.ReadFile(m[0])
		return string(b)
	}
	for i := range whole.Intervals {
		s.Interval(&whole.Intervals[i])
		if got := strings.Count(pending(), `"tps"`); got != i+1 {
			t.Fatalf("after %d intervals the file holds %d", i+1, got)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "old" {
		t.Fatalf("the target changed before the end: %q", b)
	}
	if err := s.Finish(whole); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(target)
	if want := encode(t, whole); !bytes.Equal(got, want) {
		t.Errorf("streamed:\n%s\nwritten at once:\n%s", got, want)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the replaced file's 0600", fi.Mode().Perm())
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(got, &fields); err != nil || len(fields) != 15 {
		t.Errorf("%d fields (%v)", len(fields), err)
	}

	// A run that never begins: the target stays as it was.
	s, err = NewResultsStream(o, nil, &head)
	if err != nil {
		t.Fatal(err)
	}
	s.Interval(&whole.Intervals[0])
	s.Abort()
	if b, _ := os.ReadFile(target); !bytes.Equal(b, got) {
		t.Error("an aborted stream changed the target")
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".r.json.*")); len(m) != 0 {
		t.Errorf("left behind: %v", m)
	}
}

// A write that fails mid-run is reported once, at the end, naming the
// file; the target is left as it was.
func TestResultsStreamWriteError(t *testing.T) {
	whole := sampleResults(t)
	o, err := CheckOutput("-")
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewResultsStream(o, failingWriter{}, whole)
	if err != nil {
		t.Fatal(err)
	}
	s.Interval(&whole.Intervals[0])
	err = s.Finish(whole)
	if err == nil || err.Error() != "cannot write the results file '-': no space left on device" {
		t.Errorf("error %v", err)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errNoSpace }

var errNoSpace = &os.PathError{Op: "write", Path: "/x", Err: syscall.ENOSPC}
