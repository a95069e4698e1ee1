package drivers

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
)

func TestLog(t *testing.T) {
	type msg struct {
		p    Priority
		text string
	}
	cases := []struct {
		name      string
		verbosity Priority
		msgs      []msg
		want      string
	}{
		{"prefixes", LogDebug,
			[]msg{{LogFatal, "f"}, {LogAlert, "a"}, {LogWarning, "w"}, {LogNotice, "n"}, {LogInfo, "i"}, {LogDebug, "d"}},
			"FATAL: f\nALERT: a\nWARNING: w\nn\ni\nDEBUG: d\n"},
		{"verbosity", LogAlert,
			[]msg{{LogFatal, "f"}, {LogWarning, "w"}, {LogAlert, "a"}, {LogDebug, "d"}},
			"FATAL: f\nALERT: a\n"},
		{"repeats counted, printed before the next message", LogDebug,
			[]msg{{LogAlert, "x"}, {LogAlert, "x"}, {LogAlert, "x"}, {LogFatal, "y"}, {LogFatal, "y"}, {LogAlert, "x"}},
			"ALERT: x\n(last message repeated 2 times)\nFATAL: y\n(last message repeated 1 times)\nALERT: x\n"},
		{"a trailing repeat is never printed", LogDebug,
			[]msg{{LogAlert, "x"}, {LogAlert, "x"}},
			"ALERT: x\n"},
		{"hidden messages do not count", LogFatal,
			[]msg{{LogFatal, "x"}, {LogAlert, "y"}, {LogFatal, "x"}, {LogFatal, "z"}},
			"FATAL: x\n(last message repeated 1 times)\nFATAL: z\n"},
		{"the text decides, not the priority", LogDebug,
			[]msg{{LogFatal, "x"}, {LogAlert, "x"}, {LogAlert, "z"}},
			"FATAL: x\n(last message repeated 1 times)\nALERT: z\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			l := NewLog(&b, c.verbosity)
			for _, m := range c.msgs {
				l.Printf(m.p, "%s", m.text)
			}
			if b.String() != c.want {
				t.Errorf("got\n%q\nwant\n%q", b.String(), c.want)
			}
		})
	}
}

func TestLogWriteAndLogTo(t *testing.T) {
	var b bytes.Buffer
	l := NewLog(&b, LogNotice)
	if LogTo(l) != l {
		t.Fatal("LogTo of a *Log is not that Log")
	}
	fmt.Fprint(l, "two\nlines\n")
	fmt.Fprint(l, "two\nlines\n")
	l.Printf(LogFatal, "end")
	if want := "two\nlines\n(last message repeated 1 times)\nFATAL: end\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	quiet := NewLog(&b, LogAlert)
	fmt.Fprint(quiet, "notice\n")
	if b.String() != "two\nlines\n(last message repeated 1 times)\nFATAL: end\n" {
		t.Errorf("a notice printed above the verbosity: %q", b.String())
	}
	LogTo(nil).Printf(LogFatal, "nowhere") // a nil writer discards
}

// TestLogConcurrent: messages from many connections come out whole.
func TestLogConcurrent(t *testing.T) {
	var b bytes.Buffer
	l := NewLog(&b, LogDebug)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < 100; j++ {
				l.Printf(LogAlert, "worker %d message %d", i, j)
			}
		}(i)
	}
	wg.Wait()
	if n := bytes.Count(b.Bytes(), []byte("ALERT: worker ")); n != 800 {
		t.Errorf("%d whole messages, want 800", n)
	}
}
