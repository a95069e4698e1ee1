package drivers

import (
	"context"
	"strings"
)

// BulkLoader is implemented by connections that can load the rows of a
// multi-row INSERT faster another way (PostgreSQL's COPY). BulkInsert
// returns handled=false, with nothing done, when it cannot take the
// statement; the caller then runs it as a query.
type BulkLoader interface {
	BulkInsert(ctx context.Context, query string) (res Result, handled bool, err error)
}

// LiteralKind is the kind of one value that ParseInsert found.
type LiteralKind uint8

// Literal kinds. For a string, raw is the text between the quotes with any
// doubled quote still doubled (see Unquote); for a number, the number as
// written.
const (
	LitString LiteralKind = iota
	LitNumber
	LitNull
	LitTrue
	LitFalse
)

// ParseInsert parses a multi-row INSERT whose values are all literals —
//
//	INSERT INTO t [(a, b, ...)] VALUES (1, 'x', NULL), (2, 'y', TRUE), ...
//
// — and calls value for each literal in order, col being its place in its
// row. target is the table with its column list as written ("t (a, b)" or
// "t"), ncols the number of values in each row. Quoted strings follow SQL
// (a doubled quote is a quote); when backslashEscapes is true (MySQL, or
// PostgreSQL with standard_conforming_strings off) a string holding a
// backslash is refused rather than guessed at. Anything other than
// numbers, strings, NULL, TRUE and FALSE, rows of different lengths, or
// value returning false, makes ok false.
func ParseInsert(query string, backslashEscapes bool, value func(col int, kind LiteralKind, raw string) bool) (target string, rows, ncols int, ok bool) {
	p := &valuesParser{s: query}
	if !p.keyword("INSERT") || !p.keyword("INTO") {
		return "", 0, 0, false
	}
	p.space()
	start := p.i
	if !p.ident() {
		return "", 0, 0, false
	}
	table := query[start:p.i]
	ncols = -1
	target = table
	p.space()
	if p.peek() == '(' {
		cstart := p.i
		n, good := p.tuple(func(int) bool { return p.ident() })
		if !good {
			return "", 0, 0, false
		}
		ncols = n
		target = table + " " + query[cstart:p.i]
	}
	if !p.keyword("VALUES") {
		return "", 0, 0, false
	}
	for {
		p.space()
		n, good := p.tuple(func(col int) bool {
			kind, raw, ok := p.literal(backslashEscapes)
			return ok && value(col, kind, raw)
		})
		if !good || ncols >= 0 && n != ncols {
			return "", 0, 0, false
		}
		ncols = n
		rows++
		p.space()
		if p.peek() == ',' {
			p.i++
			continue
		}
		if p.peek() == ';' {
			p.i++
			p.space()
		}
		if p.i != len(p.s) {
			return "", 0, 0, false
		}
		return target, rows, ncols, true
	}
}

// Unquote appends a string literal's raw text (see LitString) to dst with
// its doubled quotes made single.
func Unquote(dst []byte, raw string) []byte {
	for {
		i := strings.Index(raw, "''")
		if i < 0 {
			return append(dst, raw...)
		}
		dst = append(dst, raw[:i+1]...)
		raw = raw[i+2:]
	}
}

// CopyText converts a multi-row INSERT of literals (see ParseInsert) into
// the COPY target and the rows in COPY's text format (tab-separated
// columns, \N for NULL, backslash escapes), appended to dst.
func CopyText(dst []byte, query string, backslashEscapes bool) (target string, data []byte, rows int, ok bool) {
	data = dst
	started := false
	target, rows, _, ok = ParseInsert(query, backslashEscapes, func(col int, kind LiteralKind, raw string) bool {
		switch {
		case col > 0:
			data = append(data, '\t')
		case started:
			data = append(data, '\n') // the end of the row before
		}
		started = true
		switch kind {
		case LitString:
			for i := 0; i < len(raw); i++ {
				switch ch := raw[i]; ch {
				case '\'':
					i++ // the first of a doubled quote
					data = append(data, '\'')
				case '\\':
					data = append(data, '\\', '\\')
				case '\t':
					data = append(data, '\\', 't')
				case '\n':
					data = append(data, '\\', 'n')
				case '\r':
					data = append(data, '\\', 'r')
				default:
					data = append(data, ch)
				}
			}
		case LitNumber:
			data = append(data, raw...)
		case LitNull:
			data = append(data, '\\', 'N')
		case LitTrue:
			data = append(data, 't')
		case LitFalse:
			data = append(data, 'f')
		}
		return true
	})
	if !ok {
		return "", dst, 0, false
	}
	return target, append(data, '\n'), rows, true
}

type valuesParser struct {
	s string
	i int
}

// tuple parses "(item, item, ...)" starting at '(' and returns the number
// of items; item(i) parses the i-th.
func (p *valuesParser) tuple(item func(i int) bool) (int, bool) {
	if p.peek() != '(' {
		return 0, false
	}
	p.i++
	for n := 0; ; n++ {
		p.space()
		if !item(n) {
			return n, false
		}
		p.space()
		switch p.peek() {
		case ',':
			p.i++
		case ')':
			p.i++
			return n + 1, true
		default:
			return n, false
		}
	}
}

func (p *valuesParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *valuesParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

// keyword consumes a case-insensitive keyword followed by a non-word byte.
func (p *valuesParser) keyword(k string) bool {
	p.space()
	if len(p.s)-p.i < len(k) {
		return false
	}
	for j := 0; j < len(k); j++ {
		c := p.s[p.i+j]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		if c != k[j] {
			return false
		}
	}
	if e := p.i + len(k); e < len(p.s) && isWord(p.s[e]) {
		return false
	}
	p.i += len(k)
	return true
}

func isWord(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// ident consumes a plain or schema-qualified identifier (no quoting).
func (p *valuesParser) ident() bool {
	start := p.i
	for p.i < len(p.s) && (isWord(p.s[p.i]) || p.s[p.i] == '.') {
		p.i++
	}
	return p.i > start && !(p.s[start] >= '0' && p.s[start] <= '9')
}

// literal consumes one literal value.
func (p *valuesParser) literal(backslashEscapes bool) (kind LiteralKind, raw string, ok bool) {
	c := p.peek()
	switch {
	case c == '\'':
		// The closing quote is the first one not doubled; a backslash
		// before it, when it may be an escape, refuses the string (any
		// quote it escapes then ends up inside raw, so the scan that
		// ignored it cannot be trusted and is not).
		start := p.i + 1
		end := start
		for {
			k := strings.IndexByte(p.s[end:], '\'')
			if k < 0 {
				return 0, "", false // unterminated
			}
			end += k + 1
			if end == len(p.s) || p.s[end] != '\'' {
				break
			}
			end++ // a doubled quote
		}
		raw = p.s[start : end-1]
		if backslashEscapes && strings.IndexByte(raw, '\\') >= 0 {
			return 0, "", false
		}
		p.i = end
		return LitString, raw, true
	case c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9':
		start := p.i
		if c == '-' || c == '+' {
			p.i++
		}
		digits := 0
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
			digits++
		}
		if p.peek() == '.' {
			p.i++
			for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
				p.i++
				digits++
			}
		}
		if digits == 0 {
			return 0, "", false
		}
		if e := p.peek(); e == 'e' || e == 'E' {
			p.i++
			if s := p.peek(); s == '-' || s == '+' {
				p.i++
			}
			exp := 0
			for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
				p.i++
				exp++
			}
			if exp == 0 {
				return 0, "", false
			}
		}
		if p.i < len(p.s) && isWord(p.s[p.i]) {
			return 0, "", false
		}
		return LitNumber, p.s[start:p.i], true
	case p.keyword("NULL"):
		return LitNull, "", true
	case p.keyword("TRUE"):
		return LitTrue, "", true
	case p.keyword("FALSE"):
		return LitFalse, "", true
	}
	return 0, "", false
}
