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
)

// ErrParamCount is returned by Interpolate when the number of placeholders
// and of arguments differ.
var ErrParamCount = errors.New("wrong number of parameters")

// Interpolate appends query to dst with every '?' placeholder replaced by
// the SQL literal of the next argument. This is --db-ps-mode=disable:
// parameters substituted on the client. Question marks inside string
// literals, quoted identifiers and comments are left alone.
//
// Integers print in decimal, floats in their shortest exact form, NULLs as
// NULL and everything else (strings, dates, times) as a quoted, escaped
// string literal.
func Interpolate(dst []byte, query string, args []Value, d Dialect) ([]byte, error) {
	n := 0
	last := 0
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch c {
		case '\'', '"', '`':
			i = skipQuoted(query, i, d)
		case '-':
			if i+1 < len(query) && query[i+1] == '-' && (d != DialectMySQL || i+2 >= len(query) || isSpace(query[i+2])) {
				i = skipLine(query, i)
			}
		case '#':
			if d == DialectMySQL {
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
		if math.IsNaN(v.Float) || math.IsInf(v.Float, 0) {
			return dst, fmt.Errorf("%v has no SQL literal", v.Float)
		}
		bits := 64
		if v.Type == TypeFloat {
			bits = 32
		}
		return strconv.AppendFloat(dst, v.Float, 'g', -1, bits), nil
	}
	return AppendQuoted(dst, v.Str, d), nil
}

// AppendQuoted appends s as a quoted string literal.
func AppendQuoted(dst []byte, s []byte, d Dialect) []byte {
	dst = append(dst, '\'')
	if d == DialectStandard {
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
