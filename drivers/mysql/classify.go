package mysql

import "strings"

// The MySQL protocol only tells whether a statement returns rows after it
// ran, and go-sql-driver's driver level makes us choose up front between
// Query (rows, but no affected-row count) and Exec (affected rows, rows
// discarded). These helpers choose from the SQL text: statements that can
// return a result set go through Query, everything else through Exec. The
// reference then classifies a result by its field count, which for these
// statements agrees with the choice made here.

// rowKeywords start statements that return a result set.
var rowKeywords = []string{
	"SELECT", "SHOW", "WITH", "DESC", "DESCRIBE", "EXPLAIN", "CALL", "VALUES",
	"TABLE", "HANDLER", "CHECK", "CHECKSUM", "ANALYZE", "OPTIMIZE", "REPAIR",
	"EXECUTE",
}

// dmlKeywords start statements that return rows only with RETURNING
// (MariaDB 10.5+).
var dmlKeywords = []string{"INSERT", "REPLACE", "DELETE"}

// returnsRows reports whether query should be run as a query with a
// result set.
func returnsRows(query string) bool {
	word, j := firstWord(query)
	for _, k := range rowKeywords {
		if equalFold(word, k) {
			return true
		}
	}
	for _, k := range dmlKeywords {
		if equalFold(word, k) {
			rest := query[j:]
			return containsFold(rest, "RETURNING") && hasWord(rest, "RETURNING")
		}
	}
	return false
}

// firstWord returns the statement's leading keyword, after comments and
// opening parentheses, and the offset just past it.
func firstWord(query string) (string, int) {
	i := skipSpaceAndComments(query, 0)
	for i < len(query) && query[i] == '(' {
		i = skipSpaceAndComments(query, i+1)
	}
	j := i
	for j < len(query) && isLetter(query[j]) {
		j++
	}
	return query[i:j], j
}

// isCall reports whether query calls a stored procedure, which may return
// more than one result.
func isCall(query string) bool {
	word, _ := firstWord(query)
	return equalFold(word, "CALL")
}

// multiStatement reports whether query holds more than one statement.
func multiStatement(query string) bool {
	// Most queries, and every multi-row INSERT of a bulk load (up to
	// 512 KiB), hold no ';' at all: answer those without the scan.
	if strings.IndexByte(query, ';') < 0 {
		return false
	}
	for i := 0; i < len(query); i++ {
		switch c := query[i]; c {
		case '\'', '"', '`':
			i = skipQuoted(query, i)
		case ';':
			return skipSpaceAndComments(query, i+1) < len(query)
		case '-', '#', '/':
			if k := skipComment(query, i); k > i {
				i = k - 1
			}
		}
	}
	return false
}

// containsFold reports whether upper (upper-case ASCII letters) occurs in
// s in any letter case. It finds candidates with IndexByte, so the 512 KiB
// INSERT of a bulk load (digits and dashes in quotes) is passed over at
// memory speed instead of being walked quote by quote.
func containsFold(s, upper string) bool {
	for _, first := range [2]byte{upper[0], upper[0] | 0x20} {
		for i := 0; ; i++ {
			k := strings.IndexByte(s[i:], first)
			if k < 0 {
				break
			}
			i += k
			if i+len(upper) <= len(s) && equalFold(s[i:i+len(upper)], upper) {
				return true
			}
		}
	}
	return false
}

// hasWord reports whether word occurs in s as a whole word outside quotes.
func hasWord(s, word string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			i = skipQuoted(s, i)
		case isLetter(c) || c == '_' || isDigit(c):
			j := i
			for j < len(s) && (isLetter(s[j]) || s[j] == '_' || isDigit(s[j])) {
				j++
			}
			if equalFold(s[i:j], word) {
				return true
			}
			i = j - 1
		}
	}
	return false
}

// skipSpaceAndComments returns the index of the first byte at or after i
// that is neither white space nor inside a comment.
func skipSpaceAndComments(s string, i int) int {
	for i < len(s) {
		if isSpace(s[i]) {
			i++
			continue
		}
		k := skipComment(s, i)
		if k == i {
			return i
		}
		i = k
	}
	return i
}

// skipComment returns the index just past a comment starting at s[i], or i.
func skipComment(s string, i int) int {
	switch {
	case s[i] == '#',
		s[i] == '-' && i+2 < len(s) && s[i+1] == '-' && isSpace(s[i+2]),
		s[i] == '-' && i+2 == len(s) && s[i+1] == '-':
		for j := i; j < len(s); j++ {
			if s[j] == '\n' {
				return j + 1
			}
		}
		return len(s)
	case s[i] == '/' && i+1 < len(s) && s[i+1] == '*':
		if i+2 < len(s) && s[i+2] == '!' {
			// /*! ... */ is executed by MySQL: not a comment.
			return i
		}
		for j := i + 2; j+1 < len(s); j++ {
			if s[j] == '*' && s[j+1] == '/' {
				return j + 2
			}
		}
		return len(s)
	}
	return i
}

// skipQuoted returns the index of the quote that closes the one at s[i].
func skipQuoted(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			if q != '`' {
				j++
			}
		case q:
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j
		}
	}
	return len(s)
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

// equalFold compares an ASCII word with an upper-case keyword.
func equalFold(s, upper string) bool {
	if len(s) != len(upper) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i]&^0x20 != upper[i] {
			return false
		}
	}
	return true
}
