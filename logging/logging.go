// Package logging is the program's one logger, with sysbench 1.0.20's
// levels: --verbosity=N shows the messages of level N and below. FATAL,
// ALERT, WARNING and DEBUG messages carry their prefix; NOTICE (the banner,
// headers and reports) and INFO lines carry none. What a script prints is
// not a message: it goes to Out, whatever the verbosity.
//
// As the reference's logger, a message equal to the one before it is not
// printed again; "(last message repeated N times)" is printed before the
// next different message instead.
package logging

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
)

// Level is a message's priority; lower is more important.
type Level int

// The reference's levels, in its order.
const (
	Fatal Level = iota
	Alert
	Warning
	Notice
	Info
	Debug
)

// DefaultLevel is --verbosity's default.
const DefaultLevel = Notice

func (l Level) prefix() string {
	switch l {
	case Fatal:
		return "FATAL: "
	case Alert:
		return "ALERT: "
	case Warning:
		return "WARNING: "
	case Debug:
		return "DEBUG: "
	}
	return ""
}

// Logger writes messages at or below its level to one writer. It is safe
// for concurrent use; it is taken per message, never per query.
type Logger struct {
	mu      sync.Mutex
	out     io.Writer
	level   atomic.Int32
	last    string // the last message, for the duplicate check
	repeats int
	fatals  []string // FATAL messages, for the results file
}

// maxFatals bounds the FATAL messages kept (a failing run of many threads
// repeats one message per thread).
const maxFatals = 100

// New returns a logger writing to out.
func New(out io.Writer, level Level) *Logger {
	l := &Logger{out: out}
	l.level.Store(int32(level))
	return l
}

// Discard is a logger that prints nothing (for tests and tools that need
// a logger but no output).
func Discard() *Logger { return New(io.Discard, -1) }

// Level is the logger's verbosity.
func (l *Logger) Level() Level { return Level(l.level.Load()) }

// SetLevel changes the verbosity (once the options are parsed).
func (l *Logger) SetLevel(v Level) { l.level.Store(int32(v)) }

// Enabled reports whether messages of level v are printed. A nil logger
// prints nothing.
func (l *Logger) Enabled(v Level) bool { return l != nil && v <= l.Level() }

// Printf logs one message at level v; a newline is added.
func (l *Logger) Printf(v Level, format string, args ...any) {
	if l == nil {
		return
	}
	if v == Fatal {
		// Kept whatever the verbosity: the results file records them.
		msg := fmt.Sprintf(format, args...)
		l.mu.Lock()
		if len(l.fatals) < maxFatals {
			l.fatals = append(l.fatals, msg)
		}
		l.mu.Unlock()
		if l.Enabled(v) {
			l.message(v, msg, true)
		}
		return
	}
	if !l.Enabled(v) {
		return
	}
	l.message(v, fmt.Sprintf(format, args...), true)
}

// Fatals are the FATAL messages logged so far, without their prefix.
func (l *Logger) Fatals() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string{}, l.fatals...)
}

// Fatalf logs a FATAL message.
func (l *Logger) Fatalf(format string, args ...any) { l.Printf(Fatal, format, args...) }

// Alertf logs an ALERT message.
func (l *Logger) Alertf(format string, args ...any) { l.Printf(Alert, format, args...) }

// Warnf logs a WARNING message.
func (l *Logger) Warnf(format string, args ...any) { l.Printf(Warning, format, args...) }

// Noticef logs a NOTICE message (no prefix).
func (l *Logger) Noticef(format string, args ...any) { l.Printf(Notice, format, args...) }

// Infof logs an INFO message (no prefix).
func (l *Logger) Infof(format string, args ...any) { l.Printf(Info, format, args...) }

// Debugf logs a DEBUG message.
func (l *Logger) Debugf(format string, args ...any) { l.Printf(Debug, format, args...) }

func (l *Logger) message(v Level, text string, dedup bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if dedup {
		if text == l.last {
			l.repeats++
			return
		}
		l.flushRepeats()
		l.last = text
	}
	_, _ = io.WriteString(l.out, v.prefix()+text+"\n")
}

func (l *Logger) flushRepeats() {
	if l.repeats > 0 {
		fmt.Fprintf(l.out, "(last message repeated %d times)\n", l.repeats)
		l.repeats = 0
	}
}

// Out is the output itself, whatever the verbosity: what scripts print.
// It takes no part in the duplicate check.
func (l *Logger) Out() io.Writer {
	if l == nil {
		return io.Discard
	}
	return rawWriter{l: l}
}

// Writer returns a writer for text blocks of level v (the header, a
// report): the output when v is enabled, io.Discard otherwise. A block
// takes no prefix; as a run of messages in the reference, it ends a run
// of repeated messages (the count is printed before it) and is not
// repeated itself, except for a write of a newline alone: that is the
// reference's empty message (a report's blank lines), which repeats when
// one came just before it (a checkpoint report's last line and the next
// report's first).
func (l *Logger) Writer(v Level) io.Writer {
	if !l.Enabled(v) {
		return io.Discard
	}
	return rawWriter{l: l, block: true}
}

// Stamped returns a writer for lines of level v that the reference logs
// with a timestamp (intermediate reports): they take no part in the
// duplicate check at all.
func (l *Logger) Stamped(v Level) io.Writer {
	if !l.Enabled(v) {
		return io.Discard
	}
	return rawWriter{l: l}
}

type rawWriter struct {
	l     *Logger
	block bool
}

// noMessage is never a message's text: after a block, no message is a
// repeat.
const noMessage = "\x00block"

func (w rawWriter) Write(p []byte) (int, error) {
	w.l.mu.Lock()
	defer w.l.mu.Unlock()
	if w.block && len(p) == 1 && p[0] == '\n' {
		if w.l.last == "" {
			w.l.repeats++
			return 1, nil
		}
		w.l.flushRepeats()
		w.l.last = ""
		return w.l.out.Write(p)
	}
	if w.block && len(p) > 0 {
		w.l.flushRepeats()
		w.l.last = noMessage
	}
	return w.l.out.Write(p)
}

// OrDiscard returns l, or a logger that prints nothing when l is nil.
func OrDiscard(l *Logger) *Logger {
	if l == nil {
		return Discard()
	}
	return l
}
