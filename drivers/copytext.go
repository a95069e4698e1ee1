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

// ColumnClass is what a column's type makes of the literals of an INSERT,
// as far as the COPY fast path needs to know: the SQL text of a literal
// and its COPY text are read differently by the server for some pairs of
// literal and column (see CopySafe).
type ColumnClass uint8

// Column classes.
const (
	// ColOther is any type not below (text, dates, bytea, ...): a number
	// or boolean literal is first a number or boolean there, and the
	// assignment converts it (or refuses to), while COPY would feed its
	// text to the type's input function.
	ColOther ColumnClass = iota
	// ColInteger is smallint, integer and bigint.
	ColInteger
	// ColDecimal is numeric (decimal).
	ColDecimal
	// ColFloat is real and double precision.
	ColFloat
	// ColBool is boolean.
	ColBool
)

// CopySafe reports whether a literal of the given kind and raw text (see
// ParseInsert) stores the same value, or fails with the same error, when
// its COPY text goes to the input function of a column of class cl as
// when PostgreSQL evaluates it as a literal of an INSERT and assigns it.
//
// A quoted string is an untyped literal, which the assignment turns into
// the column's type with that same input function, and NULL is NULL
// anywhere: both are always safe. A number literal is an integer (when
// it is one that fits 64 bits) or a numeric, then cast: into an integer
// column that rounds a fraction or an exponent form
// (-6.7619484630773e+17) where the integer input refuses it, so only
// plain integers are safe there; a numeric column reads any form alike;
// a float column too, except a negative zero, which the literal loses
// (numeric has none) and the float input keeps. Number literals are not
// assignable to booleans, dates or strings the way their text is read
// there (1 into a boolean column is an error, 20200101 into a date one is
// not; 1e3 into text is "1000"), and TRUE/FALSE only to booleans.
func CopySafe(cl ColumnClass, kind LiteralKind, raw string) bool {
	switch kind {
	case LitString, LitNull:
		return true
	case LitTrue, LitFalse:
		return cl == ColBool
	}
	switch cl {
	case ColInteger:
		return plainInteger(raw)
	case ColDecimal:
		return true
	case ColFloat:
		return !negativeZero(raw)
	}
	return false
}

// plainInteger: an optional sign and decimal digits only.
func plainInteger(raw string) bool {
	if raw != "" && (raw[0] == '-' || raw[0] == '+') {
		raw = raw[1:]
	}
	if raw == "" {
		return false
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] < '0' || raw[i] > '9' {
			return false
		}
	}
	return true
}

// negativeZero: a number literal with a minus sign whose digits are all
// zeros (-0, -0.0, -0e5, -.0).
func negativeZero(raw string) bool {
	if raw == "" || raw[0] != '-' {
		return false
	}
	for i := 1; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == 'e' || c == 'E':
			return true
		case c != '0' && c != '.':
			return false
		}
	}
	return true
}

// InsertTarget parses the start of a multi-row INSERT (see ParseInsert)
// and returns its table as written and the columns of its column list,
// nil when there is none.
func InsertTarget(query string) (table string, columns []string, ok bool) {
	p := &valuesParser{s: query}
	if !p.keyword("INSERT") || !p.keyword("INTO") {
		return "", nil, false
	}
	p.space()
	start := p.i
	if !p.ident() {
		return "", nil, false
	}
	table = query[start:p.i]
	p.space()
	if p.peek() == '(' {
		_, good := p.tuple(func(int) bool {
			s := p.i
			if !p.ident() {
				return false
			}
			columns = append(columns, query[s:p.i])
			return true
		})
		if !good {
			return "", nil, false
		}
	}
	return table, columns, true
}

// CopyText converts a multi-row INSERT of literals (see ParseInsert) into
// the COPY target and the rows in COPY's text format (tab-separated
// columns, \N for NULL, backslash escapes), appended to dst. classes are
// the classes of the columns the rows fill, in order; the statement is
// refused (ok false) when its rows have another number of values, or when
// a value is not CopySafe for its column.
func CopyText(dst []byte, query string, backslashEscapes bool, classes []ColumnClass) (target string, data []byte, rows int, ok bool) {
	data = dst
	started := false
	var ncols int
	target, rows, ncols, ok = ParseInsert(query, backslashEscapes, func(col int, kind LiteralKind, raw string) bool {
		if col >= len(classes) || !CopySafe(classes[col], kind, raw) {
			return false
		}
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
	if !ok || ncols != len(classes) {
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
