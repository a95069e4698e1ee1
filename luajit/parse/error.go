package parse

import "fmt"

// SyntaxError is a Lua chunk that LuaJIT 2.1 would refuse to load, worded
// as LuaJIT words it.
type SyntaxError struct {
	Chunk string // the chunk name given to Parse
	Line  int    // the line LuaJIT reports
	// Column is the 1-based byte column of the offending token on Line
	// (LuaJIT reports none; sysbench-go's check does), 0 when the error
	// names no token or the token starts on another line.
	Column  int
	Message string // e.g. "'=' expected", "unfinished string"
	// Near is the offending token as LuaJIT renders it ("<eof>", a string
	// with its quote, a number's source text, a name). Empty when LuaJIT
	// names no token (limits, goto and label errors).
	Near string
}

// Error returns LuaJIT's text: "chunk:line: message near 'token'".
func (e *SyntaxError) Error() string {
	if e.Near == "" {
		return fmt.Sprintf("%s:%d: %s", e.Chunk, e.Line, e.Message)
	}
	return fmt.Sprintf("%s:%d: %s near '%s'", e.Chunk, e.Line, e.Message, e.Near)
}
