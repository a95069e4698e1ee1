package pgsql

import (
	"strconv"
)

// placeholders returns the byte offsets of the '?' placeholders in query,
// skipping those inside string literals ('...', E'...'), quoted identifiers,
// dollar-quoted strings and comments. (sysbench replaces every '?'.)
func placeholders(query string) []int {
	var marks []int
	q := query
	for i := 0; i < len(q); i++ {
		switch c := q[i]; c {
		case '?':
			marks = append(marks, i)
		case '\'':
			// E'...' strings take backslash escapes.
			esc := i > 0 && (q[i-1] == 'E' || q[i-1] == 'e') && (i < 2 || !isIdent(q[i-2]))
			i++
			for ; i < len(q); i++ {
				if esc && q[i] == '\\' {
					i++
					continue
				}
				if q[i] == '\'' {
					if i+1 < len(q) && q[i+1] == '\'' {
						i++
						continue
					}
					break
				}
			}
		case '"':
			for i++; i < len(q) && q[i] != '"'; i++ {
			}
		case '-':
			if i+1 < len(q) && q[i+1] == '-' {
				for i += 2; i < len(q) && q[i] != '\n'; i++ {
				}
			}
		case '/':
			if i+1 < len(q) && q[i+1] == '*' {
				depth := 1 // PostgreSQL block comments nest
				for i += 2; i < len(q) && depth > 0; i++ {
					if q[i] == '*' && i+1 < len(q) && q[i+1] == '/' {
						depth--
						i++
					} else if q[i] == '/' && i+1 < len(q) && q[i+1] == '*' {
						depth++
						i++
					}
				}
				i--
			}
		case '$':
			if i > 0 && isIdent(q[i-1]) {
				continue // part of an identifier such as a$b
			}
			// $tag$ ... $tag$; "$1" is a parameter, not a quote.
			j := i + 1
			for j < len(q) && isIdent(q[j]) && !(j == i+1 && q[j] >= '0' && q[j] <= '9') {
				j++
			}
			if j < len(q) && q[j] == '$' {
				tag := q[i : j+1]
				end := indexFrom(q, tag, j+1)
				if end < 0 {
					i = len(q)
				} else {
					i = end + len(tag) - 1
				}
			}
		}
	}
	return marks
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

func indexFrom(s, sub string, from int) int {
	for i := from; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// numberPlaceholders rewrites the placeholders at marks as $1..$n.
func numberPlaceholders(query string, marks []int) string {
	if len(marks) == 0 {
		return query
	}
	b := make([]byte, 0, len(query)+3*len(marks))
	prev := 0
	for n, m := range marks {
		b = append(b, query[prev:m]...)
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(n+1), 10)
		prev = m + 1
	}
	b = append(b, query[prev:]...)
	return string(b)
}
