package drivers

import "context"

// BulkLoader is implemented by connections that can load the rows of a
// multi-row INSERT faster another way (PostgreSQL's COPY). BulkInsert
// returns handled=false, with nothing done, when it cannot take the
// statement; the caller then runs it as a query.
type BulkLoader interface {
	BulkInsert(ctx context.Context, query string) (res Result, handled bool, err error)
}

// CopyText converts a multi-row INSERT whose values are all literals —
//
//	INSERT INTO t [(a, b, ...)] VALUES (1, 'x', NULL), (2, 'y', TRUE), ...
//
// — into the COPY target ("t (a, b)" or "t") and the rows in COPY's text
// format (tab-separated columns, \N for NULL, backslash escapes), appended
// to dst. Quoted strings follow SQL (a doubled quote is a quote); when
// backslashEscapes is true (MySQL, or PostgreSQL with
// standard_conforming_strings off) a string holding a backslash is refused
// rather than guessed at. Anything other than numbers, strings, NULL, TRUE
// and FALSE makes ok false.
func CopyText(dst []byte, query string, backslashEscapes bool) (target string, data []byte, rows int, ok bool) {
	p := &valuesParser{s: query}
	if !p.keyword("INSERT") || !p.keyword("INTO") {
		return "", dst, 0, false
	}
	p.space()
	start := p.i
	if !p.ident() {
		return "", dst, 0, false
	}
	table := query[start:p.i]
	ncols := -1
	target = table
	p.space()
	if p.peek() == '(' {
		cstart := p.i
		n, good := p.tuple(func(int) bool { return p.ident() })
		if !good {
			return "", dst, 0, false
		}
		ncols = n
		target = table + " " + query[cstart:p.i]
	}
	if !p.keyword("VALUES") {
		return "", dst, 0, false
	}
	data = dst
	for {
		p.space()
		n, good := p.tuple(func(i int) bool {
			if i > 0 {
				data = append(data, '\t')
			}
			var ok bool
			data, ok = p.value(data, backslashEscapes)
			return ok
		})
		if !good || ncols >= 0 && n != ncols {
			return "", dst, 0, false
		}
		data = append(data, '\n')
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
			return "", dst, 0, false
		}
		return target, data, rows, true
	}
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

// value converts one literal into COPY text.
func (p *valuesParser) value(dst []byte, backslashEscapes bool) ([]byte, bool) {
	c := p.peek()
	switch {
	case c == '\'':
		p.i++
		for p.i < len(p.s) {
			ch := p.s[p.i]
			p.i++
			switch ch {
			case '\'':
				if p.peek() == '\'' {
					p.i++
					dst = append(dst, '\'')
					continue
				}
				return dst, true
			case '\\':
				if backslashEscapes {
					return dst, false
				}
				dst = append(dst, '\\', '\\')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			default:
				dst = append(dst, ch)
			}
		}
		return dst, false // unterminated
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
			return dst, false
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
				return dst, false
			}
		}
		if p.i < len(p.s) && isWord(p.s[p.i]) {
			return dst, false
		}
		return append(dst, p.s[start:p.i]...), true
	case p.keyword("NULL"):
		return append(dst, '\\', 'N'), true
	case p.keyword("TRUE"):
		return append(dst, 't'), true
	case p.keyword("FALSE"):
		return append(dst, 'f'), true
	}
	return dst, false
}
