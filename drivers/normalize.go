package drivers

import "strings"

// Normalize returns a statement's text with its literals replaced by '?'
// (numbers, and strings in single quotes; and, in the MySQL dialect,
// double quotes), whitespace runs made one space, comments dropped, and
// the rows of a multi-row VALUES list after the first made "...": the
// statements a script runs with different values read as one.
// Identifiers (`x`, "x" in the standard dialect) and placeholders stay.
func Normalize(query string, d Dialect) string {
	var b strings.Builder
	b.Grow(len(query))
	space := false
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch {
		case isSpace(c):
			space = b.Len() > 0
			continue
		case c == '-' && i+1 < len(query) && query[i+1] == '-', c == '#' && d.isMySQL():
			i = skipLine(query, i)
			space = b.Len() > 0
			continue
		case c == '/' && i+1 < len(query) && query[i+1] == '*':
			i = skipBlockComment(query, i)
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		switch {
		case c == '\'' || (c == '"' && d.isMySQL()):
			i = skipQuoted(query, i, d)
			b.WriteByte('?')
		case c == '"' || c == '`':
			j := skipQuoted(query, i, d)
			b.WriteString(query[i : j+1])
			i = j
		case isDigit(c) && !inWord(query, i):
			for i+1 < len(query) && (isDigit(query[i+1]) || query[i+1] == '.' || query[i+1] == 'e' || query[i+1] == 'E' ||
				((query[i+1] == '-' || query[i+1] == '+') && (query[i] == 'e' || query[i] == 'E'))) {
				i++
			}
			// A sign is part of the literal after an operator or "(" or
			// ",": "-5" and "5" read the same.
			s := b.String()
			if n := len(s); n > 0 && (s[n-1] == '-' || s[n-1] == '+') && (n == 1 || strings.ContainsRune("(,=<> ", rune(s[n-2]))) {
				t := s[:n-1]
				b.Reset()
				b.WriteString(t)
			}
			b.WriteByte('?')
		default:
			b.WriteByte(c)
		}
	}
	return collapseRows(b.String())
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// inWord reports whether query[i] continues an identifier (t1, x2y).
func inWord(query string, i int) bool {
	if i == 0 {
		return false
	}
	p := query[i-1]
	return p == '_' || p == '$' || isDigit(p) || (p|0x20 >= 'a' && p|0x20 <= 'z')
}

// collapseRows turns "VALUES (?,?),(?,?),(?,?)" into "VALUES (?,?), ...".
func collapseRows(s string) string {
	i := strings.Index(strings.ToUpper(s), "VALUES")
	if i < 0 {
		return s
	}
	j := i + len("VALUES")
	for j < len(s) && s[j] == ' ' {
		j++
	}
	first, ok := groupEnd(s, j)
	if !ok {
		return s
	}
	k, rows := first, 0
	for {
		m := k
		for m < len(s) && s[m] == ' ' {
			m++
		}
		if m >= len(s) || s[m] != ',' {
			break
		}
		m++
		for m < len(s) && s[m] == ' ' {
			m++
		}
		end, ok := groupEnd(s, m)
		if !ok {
			break
		}
		k, rows = end, rows+1
	}
	if rows == 0 {
		return s
	}
	return s[:first] + ", ..." + s[k:]
}

// groupEnd returns the index after the parenthesised group at s[i].
func groupEnd(s string, i int) (int, bool) {
	if i >= len(s) || s[i] != '(' {
		return 0, false
	}
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return j + 1, true
			}
		}
	}
	return 0, false
}
