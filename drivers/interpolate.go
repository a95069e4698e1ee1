package drivers

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Dialect selects how Interpolate quotes strings and which comment
// syntaxes it recognises.
type Dialect int

const (
	// DialectMySQL escapes with backslashes inside '...' literals and knows
	// MySQL's '#' comments (MySQL and MariaDB in their default sql_mode).
	DialectMySQL Dialect = iota
	// DialectStandard only doubles quotes, as standard SQL strings want
	// (PostgreSQL, SQLite, MySQL with NO_BACKSLASH_ESCAPES).
	DialectStandard
	// DialectSQLite is DialectStandard with SQLite's forms of the floats
	// that have no literal elsewhere: 9e999 for infinity, NULL for NaN
	// (which SQLite binds as NULL).
	DialectSQLite
	// DialectMySQLNoBackslashEscapes is MySQL under the sql_mode
	// NO_BACKSLASH_ESCAPES: its comments, standard strings.
	DialectMySQLNoBackslashEscapes
)

// isMySQL: MySQL's comments ('#', "-- " with a space) and double-quoted
// strings.
func (d Dialect) isMySQL() bool { return d == DialectMySQL || d == DialectMySQLNoBackslashEscapes }

// ErrParamCount is returned by Interpolate when the number of placeholders
// and of arguments differ.
var ErrParamCount = errors.New("wrong number of parameters")

// ErrNoLiteral is returned (wrapped) by Interpolate for a value the
// dialect has no literal for (NaN or an infinity, but in SQLite): the
// driver then runs the statement as written, prepared on the server, or
// fails with it.
var ErrNoLiteral = errors.New("has no SQL literal")

// Interpolate appends query to dst with every '?' placeholder replaced by
// the SQL literal of the next argument. This is --db-ps-mode=disable:
// parameters substituted on the client. Question marks inside string
// literals, quoted identifiers and comments are left alone.
//
// Each literal reads as the value the prepared statement would bind:
// integers print in decimal; floats, which drivers bind as doubles, in
// the shortest exponent form that reads back as the same double (2.5e+00,
// -0e+00), which MySQL and SQLite read as a double, not as the exact
// decimal that 2.5 would be (2.5 into an integer column rounds to 3 as a
// decimal and to 2 as a double); NULLs as NULL; everything else (strings,
// dates, times) as a quoted, escaped string literal.
func Interpolate(dst []byte, query string, args []Value, d Dialect) ([]byte, error) {
	n := 0
	last := 0
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch c {
		case '\'', '"', '`':
			i = skipQuoted(query, i, d)
		case '-':
			if i+1 < len(query) && query[i+1] == '-' && (!d.isMySQL() || i+2 >= len(query) || isSpace(query[i+2])) {
				i = skipLine(query, i)
			}
		case '#':
			if d.isMySQL() {
				i = skipLine(query, i)
			}
		case '/':
			if i+1 < len(query) && query[i+1] == '*' {
				i = skipBlockComment(query, i)
			}
		case '?':
			if n >= len(args) {
				return dst, fmt.Errorf("%w: query has more than %d placeholders", ErrParamCount, len(args))
			}
			dst = append(dst, query[last:i]...)
			var err error
			if dst, err = AppendLiteral(dst, &args[n], d); err != nil {
				return dst, fmt.Errorf("parameter %d: %w", n+1, err)
			}
			n++
			last = i + 1
		}
	}
	if n != len(args) {
		return dst, fmt.Errorf("%w: query has %d placeholders, %d arguments given", ErrParamCount, n, len(args))
	}
	return append(dst, query[last:]...), nil
}

// AppendLiteral appends the SQL literal for v.
func AppendLiteral(dst []byte, v *Value, d Dialect) ([]byte, error) {
	switch {
	case v.Null:
		return append(dst, "NULL"...), nil
	case v.Type.IsInteger():
		return strconv.AppendInt(dst, v.Int, 10), nil
	case v.Type.IsFloat():
		switch f := v.Float; {
		case d == DialectSQLite && math.IsNaN(f):
			return append(dst, "NULL"...), nil
		case d == DialectSQLite && math.IsInf(f, 1):
			return append(dst, "9e999"...), nil
		case d == DialectSQLite && math.IsInf(f, -1):
			return append(dst, "-9e999"...), nil
		case math.IsNaN(f) || math.IsInf(f, 0):
			return dst, fmt.Errorf("%v %w", f, ErrNoLiteral)
		}
		return strconv.AppendFloat(dst, v.Float, 'e', -1, 64), nil
	}
	return AppendQuoted(dst, v.Str, d), nil
}

// AppendQuoted appends s as a quoted string literal.
func AppendQuoted(dst []byte, s []byte, d Dialect) []byte {
	dst = append(dst, '\'')
	if d != DialectMySQL {
		for _, c := range s {
			if c == '\'' {
				dst = append(dst, '\'')
			}
			dst = append(dst, c)
		}
		return append(dst, '\'')
	}
	// The same set mysql_real_escape_string escapes.
	for _, c := range s {
		switch c {
		case 0:
			dst = append(dst, '\\', '0')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\x1a':
			dst = append(dst, '\\', 'Z')
		case '\\', '\'', '"':
			dst = append(dst, '\\', c)
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '\'')
}

// skipQuoted returns the index of the quote closing the literal that opens
// at query[i] (or the last index when it is unterminated).
func skipQuoted(query string, i int, d Dialect) int {
	q := query[i]
	for j := i + 1; j < len(query); j++ {
		c := query[j]
		if c == '\\' && d == DialectMySQL && q != '`' {
			j++
			continue
		}
		if c == q {
			// A doubled quote is an escaped quote.
			if j+1 < len(query) && query[j+1] == q {
				j++
				continue
			}
			return j
		}
	}
	return len(query) - 1
}

func skipLine(query string, i int) int {
	for j := i; j < len(query); j++ {
		if query[j] == '\n' {
			return j
		}
	}
	return len(query) - 1
}

func skipBlockComment(query string, i int) int {
	for j := i + 2; j+1 < len(query); j++ {
		if query[j] == '*' && query[j+1] == '/' {
			return j + 1
		}
	}
	return len(query) - 1
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}
