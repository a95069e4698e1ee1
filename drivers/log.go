package drivers

import (
	"fmt"
	"io"
	"sync"
)

// Priority is a log message's level, numbered as sysbench's levels and
// --verbosity: a message prints when its priority is at most the verbosity.
type Priority int

// Priorities, most important first.
const (
	LogFatal Priority = iota
	LogAlert
	LogWarning
	LogNotice
	LogInfo
	LogDebug
)

var logPrefix = [...]string{LogFatal: "FATAL: ", LogAlert: "ALERT: ", LogWarning: "WARNING: ", LogDebug: "DEBUG: "}

// Log prints the messages of the drivers and of the SQL API the way the
// reference's logger does: one line (or block) per message, prefixed by
// its priority, nothing above the verbosity, and a message equal to the
// one before it counted instead of printed — "(last message repeated N
// times)" comes out before the next different message. One Log is shared
// by all connections of a run; it is only used on error paths.
type Log struct {
	mu        sync.Mutex
	w         io.Writer
	verbosity Priority
	last      string // the last message printed, without its prefix
	repeats   int    // how often it came again since
}

// NewLog returns a Log writing to w (nil: nowhere) the messages of
// priority at most verbosity.
func NewLog(w io.Writer, verbosity Priority) *Log {
	if w == nil {
		w = io.Discard
	}
	return &Log{w: w, verbosity: verbosity}
}

// LogTo returns w itself when it is a *Log, so that the drivers and the
// Lua layer of a run share one, or else a Log printing every priority to w.
func LogTo(w io.Writer) *Log {
	if l, ok := w.(*Log); ok {
		return l
	}
	return NewLog(w, LogDebug)
}

// Printf logs one message; the line end is added.
func (l *Log) Printf(p Priority, format string, args ...any) {
	if p > l.verbosity {
		return
	}
	l.print(p, fmt.Sprintf(format, args...)+"\n")
}

// Write logs b, which ends with its own line end, as one message of
// notice priority, so a *Log can be passed where an io.Writer is asked
// for (Config.Log).
func (l *Log) Write(b []byte) (int, error) {
	if LogNotice <= l.verbosity {
		l.print(LogNotice, string(b))
	}
	return len(b), nil
}

func (l *Log) print(p Priority, text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if text == l.last {
		l.repeats++
		return
	}
	if l.repeats > 0 {
		fmt.Fprintf(l.w, "(last message repeated %d times)\n", l.repeats)
	}
	l.last, l.repeats = text, 0
	prefix := ""
	if p >= 0 && int(p) < len(logPrefix) {
		prefix = logPrefix[p]
	}
	_, _ = io.WriteString(l.w, prefix+text)
}
