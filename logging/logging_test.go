package logging

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
)

func TestLevelsPrefixesAndRepeats(t *testing.T) {
	type msg struct {
		v    Level
		text string
	}
	cases := []struct {
		name  string
		level Level
		msgs  []msg
		want  string
	}{
		{"prefixes", Debug,
			[]msg{{Fatal, "f"}, {Alert, "a"}, {Warning, "w"}, {Notice, "n"}, {Info, "i"}, {Debug, "d"}},
			"FATAL: f\nALERT: a\nWARNING: w\nn\ni\nDEBUG: d\n"},
		{"verbosity", Alert,
			[]msg{{Fatal, "f"}, {Warning, "w"}, {Alert, "a"}, {Debug, "d"}},
			"FATAL: f\nALERT: a\n"},
		{"verbosity 0 keeps FATAL only", Fatal,
			[]msg{{Notice, "banner"}, {Fatal, "f"}, {Alert, "a"}},
			"FATAL: f\n"},
		{"below 0 nothing", -1,
			[]msg{{Fatal, "f"}},
			""},
		{"repeats counted, printed before the next message", Debug,
			[]msg{{Alert, "x"}, {Alert, "x"}, {Alert, "x"}, {Fatal, "y"}, {Fatal, "y"}, {Alert, "x"}},
			"ALERT: x\n(last message repeated 2 times)\nFATAL: y\n(last message repeated 1 times)\nALERT: x\n"},
		{"a trailing repeat is never printed", Debug,
			[]msg{{Alert, "x"}, {Alert, "x"}},
			"ALERT: x\n"},
		{"hidden messages do not count", Fatal,
			[]msg{{Fatal, "x"}, {Alert, "y"}, {Fatal, "x"}, {Fatal, "z"}},
			"FATAL: x\n(last message repeated 1 times)\nFATAL: z\n"},
		{"the text decides, not the level", Debug,
			[]msg{{Fatal, "x"}, {Alert, "x"}, {Alert, "z"}},
			"FATAL: x\n(last message repeated 1 times)\nALERT: z\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			l := New(&b, c.level)
			for _, m := range c.msgs {
				l.Printf(m.v, "%s", m.text)
			}
			if b.String() != c.want {
				t.Errorf("got\n%q\nwant\n%q", b.String(), c.want)
			}
		})
	}
}

// TestBlocksAndScriptOutput: a block shows only at its level, prints a
// pending repeat count first and ends the run of repeats; timestamped
// lines and script output leave the duplicate check alone.
func TestBlocksAndScriptOutput(t *testing.T) {
	var b bytes.Buffer
	l := New(&b, Notice)
	l.Alertf("a")
	l.Alertf("a")
	fmt.Fprint(l.Out(), "printed\n")
	fmt.Fprint(l.Stamped(Notice), "[ 1s ] tick\n")
	l.Alertf("a")
	fmt.Fprint(l.Writer(Notice), "report\n")
	l.Alertf("a")
	fmt.Fprint(l.Writer(Info), "hidden block\n")
	l.Alertf("a")
	want := "ALERT: a\nprinted\n[ 1s ] tick\n(last message repeated 2 times)\nreport\nALERT: a\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	var nilLog *Logger
	if nilLog.Enabled(Fatal) || OrDiscard(nil).Enabled(Fatal) {
		t.Error("a nil or discarding logger is enabled")
	}
	fmt.Fprint(nilLog.Out(), "nowhere")
}

// TestConcurrent: messages from many goroutines come out whole.
func TestConcurrent(t *testing.T) {
	var b bytes.Buffer
	l := New(&b, Debug)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < 100; j++ {
				l.Alertf("worker %d message %d", i, j)
				l.Fatalf("worker %d line %d", i, j)
			}
		}(i)
	}
	wg.Wait()
	if n := bytes.Count(b.Bytes(), []byte("ALERT: worker ")); n != 800 {
		t.Errorf("%d whole ALERT messages, want 800", n)
	}
	if n := bytes.Count(b.Bytes(), []byte("FATAL: worker ")); n != 800 {
		t.Errorf("%d whole FATAL lines, want 800", n)
	}
}
