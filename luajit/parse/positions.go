package parse

import (
	"bytes"
	"fmt"
	"io"
	"sort"

	"github.com/yuin/gopher-lua/ast"
)

// Positions says where in the source a node of a chunk starts, to the
// byte: gopher-lua's nodes carry lines only, and a checker's findings
// (sysbench-go check) name a column too. Parse records none, so a run
// pays nothing for them.
//
// Recorded are a name (IdentExpr), a field name after '.' or in a table
// constructor and every literal (StringExpr and the other constants), a
// method call (FuncCallExpr with a Method: at the method's name), a
// function (FunctionExpr, at its parameters' '('; FuncDefStmt, at the
// function keyword), a table constructor (TableExpr, at '{'), a unary
// operation (at its operator) and a statement (at its first token).
type Positions struct {
	src   []byte
	lines []int // offset of each line's first byte
	at    map[any]int
}

// ParseWithPositions is Parse that also records where nodes start.
func ParseWithPositions(r io.Reader, chunkName string) ([]ast.Stmt, *Positions, error) {
	src, err := io.ReadAll(r)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", chunkName, err)
	}
	ps := &Positions{src: src, at: make(map[any]int, len(src)/8)}
	ps.lines = append(ps.lines, 0)
	for i, c := range src {
		if c == '\n' {
			ps.lines = append(ps.lines, i+1)
		}
	}
	chunk, _, err := parseSource(src, chunkName, ps.at)
	if err != nil {
		return nil, nil, err
	}
	return chunk, ps, nil
}

// Offset is the byte offset where node starts, if it was recorded.
func (ps *Positions) Offset(node any) (int, bool) {
	off, ok := ps.at[node]
	return off, ok
}

// Of is the line and 1-based byte column where node starts, if it was
// recorded.
func (ps *Positions) Of(node any) (line, column int, ok bool) {
	off, ok := ps.at[node]
	if !ok {
		return 0, 0, false
	}
	line, column = ps.LineColumn(off)
	return line, column, true
}

// LineColumn converts a byte offset to a line and 1-based byte column.
func (ps *Positions) LineColumn(off int) (line, column int) {
	i := sort.Search(len(ps.lines), func(i int) bool { return ps.lines[i] > off }) - 1
	return i + 1, off - ps.lines[i] + 1
}

// Lines is the number of lines of the source.
func (ps *Positions) Lines() int {
	n := len(ps.lines)
	if n > 1 && ps.lines[n-1] == len(ps.src) {
		n-- // a final newline ends the last line, it starts none
	}
	return n
}

// Line is the text of line n (1-based), without its end of line.
func (ps *Positions) Line(n int) string {
	if n < 1 || n > len(ps.lines) {
		return ""
	}
	end := len(ps.src)
	if n < len(ps.lines) {
		end = ps.lines[n] - 1
	}
	return string(bytes.TrimRight(ps.src[ps.lines[n-1]:end], "\r"))
}

// mark records where node starts, when positions are asked for.
func (p *parser) mark(node any, off int) {
	if p.pos != nil {
		p.pos[node] = off
	}
}
