package parse

import (
	"bytes"
	"fmt"
	"strings"
)

// Token kinds: a single character is its own byte value, everything else
// comes after 255 in the order LuaJIT names them.
const (
	tkAnd = 256 + iota
	tkBreak
	tkDo
	tkElse
	tkElseif
	tkEnd
	tkFalse
	tkFor
	tkFunction
	tkGoto
	tkIf
	tkIn
	tkLocal
	tkNil
	tkNot
	tkOr
	tkRepeat
	tkReturn
	tkThen
	tkTrue
	tkUntil
	tkWhile
	tkConcat
	tkDots
	tkEq
	tkGe
	tkLe
	tkNe
	tkLabel
	tkNumber
	tkName
	tkString
	tkEOF
)

var tokenNames = [...]string{
	"and", "break", "do", "else", "elseif", "end", "false", "for", "function",
	"goto", "if", "in", "local", "nil", "not", "or", "repeat", "return", "then",
	"true", "until", "while",
	"..", "...", "==", ">=", "<=", "~=", "::", "<number>", "<name>", "<string>",
	"<eof>",
}

// tokenString renders a token kind as LuaJIT's messages do.
func tokenString(kind int) string {
	if kind >= 256 {
		return tokenNames[kind-256]
	}
	if kind < 32 || kind == 127 {
		return fmt.Sprintf("char(%d)", kind)
	}
	return string(rune(kind))
}

// Number literal kinds beyond a plain float64.
const (
	numFloat = iota
	numInt64
	numUint64
)

type token struct {
	kind int
	line int    // line of the token's first character: gopher-lua's node position
	pos  int    // byte offset of its first character (Positions, SyntaxError.Column)
	s    string // name, string value, or the source text of a number
	// numbers
	num     float64
	bits    uint64 // the 64-bit integer of an LL/ULL literal
	numKind uint8
	// strings: the quote, or the level of a long bracket (-1 when quoted),
	// so an error can show the token as LuaJIT does
	quote byte
	level int
}

// near renders the token as LuaJIT's "near '...'" does; "" for none.
func (t *token) near() string {
	switch t.kind {
	case tkName, tkNumber:
		return t.s
	case tkString:
		var s string
		if t.level < 0 {
			s = string(t.quote) + t.s + string(t.quote)
		} else {
			eq := strings.Repeat("=", t.level)
			s = "[" + eq + "[" + t.s + "]" + eq + "]"
		}
		return cutNUL(s)
	case 0:
		// LuaJIT takes token 0 (a NUL byte in the source) for "no token".
		return ""
	}
	return tokenString(t.kind)
}

// cutNUL ends s at its first NUL byte: LuaJIT prints tokens as C strings.
func cutNUL(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// feature marks source that LuaJIT and gopher-lua's parser legitimately
// read differently; the differential tests use it to tell an expected
// disagreement from a bug.
type feature uint16

const (
	featEscape    feature = 1 << iota // \x, \z or \u{} in a string
	featNumber                        // a number gopher-lua reads otherwise (hex float, 0b, LL, leading 0, hex >= 2^63)
	featGotoName                      // goto used as a name
	featIdentByte                     // a name with bytes >= 0x80
	featSpace                         // \v or \f between tokens
	featComment                       // "--[=" not opening a long comment
	featHeader                        // a "#" first line or a UTF-8 BOM
)

const eof = -1

// Character classes as LuaJIT has them: bytes >= 0x80 are name characters.
const (
	chSpace = 1 << iota
	chDigit
	chXDigit
	chIdent
)

var charClass = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		switch {
		case c == ' ' || c >= '\t' && c <= '\r':
			t[c] = chSpace
		case c >= '0' && c <= '9':
			t[c] = chDigit | chXDigit | chIdent
		case c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F':
			t[c] = chXDigit | chIdent
		case c >= 'g' && c <= 'z' || c >= 'G' && c <= 'Z' || c == '_' || c >= 0x80:
			t[c] = chIdent
		}
	}
	return t
}()

func is(c int, class uint8) bool { return c >= 0 && charClass[c]&class != 0 }

// lexer follows LuaJIT's lexer step for step, so that its line counter
// (the line an error names) and lastLine (the line the previous token
// ended on) mean what they mean in LuaJIT.
type lexer struct {
	chunk    string
	src      []byte
	i        int // index of c in src
	c        int // current byte, eof at the end
	line     int
	lastLine int
	tokPos   int // where the token being scanned starts, for errors inside it

	tok      token
	ahead    token
	hasAhead bool

	sb       []byte
	features feature
	names    map[string]string // one string per distinct name
	strs     map[string]string // and per short string value
}

func (l *lexer) init(chunk string, src []byte) {
	l.chunk, l.src, l.line, l.lastLine = chunk, src, 1, 1
	l.names = make(map[string]string, 64)
	l.strs = make(map[string]string, 64)
	l.i = -1
	l.next()
	if len(src) >= 3 && src[0] == 0xef && src[1] == 0xbb && src[2] == 0xbf {
		l.i = 2
		l.next()
		l.features |= featHeader
	}
	if l.c == '#' { // a "#!" line, as LuaJIT skips it
		l.features |= featHeader
		for {
			if l.next() == eof {
				return
			}
			if l.c == '\n' || l.c == '\r' {
				break
			}
		}
		l.newline()
	}
	if l.c == 0x1b { // LuaJIT would load the chunk as bytecode
		l.fail("LuaJIT bytecode is not supported by sysbench-go", "")
	}
}

func (l *lexer) next() int {
	l.i++
	if l.i < len(l.src) {
		l.c = int(l.src[l.i])
	} else {
		l.i = len(l.src)
		l.c = eof
	}
	return l.c
}

// newline skips "\n", "\r", "\r\n" or "\n\r".
// column is the 1-based byte column of offset off when it lies on line
// (the line an error names), else 0: LuaJIT reports lines only, and an
// error can name a line other than its token's (a string over several).
func (l *lexer) column(off, line int) int {
	off = min(max(off, 0), len(l.src))
	if n := 1 + bytes.Count(l.src[:off], []byte{'\n'}); n != line {
		return 0
	}
	return off - bytes.LastIndexByte(l.src[:off], '\n')
}

func (l *lexer) newline() {
	old := l.c
	l.next()
	if (l.c == '\n' || l.c == '\r') && l.c != old {
		l.next()
	}
	l.line++
}

func (l *lexer) fail(msg, near string) {
	panic(&SyntaxError{Chunk: l.chunk, Line: l.line, Column: l.column(l.tokPos, l.line), Message: msg, Near: near})
}

// advance makes the next token current (LuaJIT's lj_lex_next).
func (l *lexer) advance() {
	l.lastLine = l.line
	if l.hasAhead {
		l.tok, l.hasAhead = l.ahead, false
		return
	}
	l.scan(&l.tok)
}

// lookahead scans the token after the current one (lj_lex_lookahead).
func (l *lexer) lookahead() int {
	l.scan(&l.ahead)
	l.hasAhead = true
	return l.ahead.kind
}

func (l *lexer) scan(t *token) {
	for {
		c := l.c
		t.line, t.pos = l.line, l.i
		l.tokPos = l.i
		if is(c, chIdent) {
			if is(c, chDigit) {
				l.number(t, l.i)
				return
			}
			start, j := l.i, l.i+1
			for j < len(l.src) && charClass[l.src[j]]&chIdent != 0 {
				j++
			}
			l.i = j - 1
			l.next()
			word := l.src[start:j]
			if k := keyword(word); k != 0 {
				t.kind = k
				return
			}
			t.kind = tkName
			t.s = l.intern(word, true)
			return
		}
		switch c {
		case '\n', '\r':
			l.newline()
			continue
		case ' ', '\t':
			l.next()
			continue
		case '\v', '\f':
			l.features |= featSpace
			l.next()
			continue
		case '-':
			if l.next() != '-' {
				t.kind = '-'
				return
			}
			if l.next() == '[' {
				level := l.skipEq()
				if level >= 0 {
					l.longString(level, nil)
					continue
				}
				if level < -1 {
					l.features |= featComment
				}
			}
			j := l.i
			for j < len(l.src) && l.src[j] != '\n' && l.src[j] != '\r' {
				j++
			}
			l.i = j - 1
			l.next()
			continue
		case '[':
			start := l.i
			level := l.skipEq()
			if level >= 0 {
				l.longString(level, t)
				return
			}
			if level == -1 {
				t.kind = '['
				return
			}
			l.fail("invalid long string delimiter", string(l.src[start:l.i]))
		case '=':
			t.kind = l.pair('=', '=', tkEq)
			return
		case '<':
			t.kind = l.pair('<', '=', tkLe)
			return
		case '>':
			t.kind = l.pair('>', '=', tkGe)
			return
		case '~':
			t.kind = l.pair('~', '=', tkNe)
			return
		case ':':
			t.kind = l.pair(':', ':', tkLabel)
			return
		case '"', '\'':
			l.quoted(t)
			return
		case '.':
			start := l.i
			if l.next() == '.' {
				if l.next() == '.' {
					l.next()
					t.kind = tkDots
					return
				}
				t.kind = tkConcat
				return
			}
			if !is(l.c, chDigit) {
				t.kind = '.'
				return
			}
			l.number(t, start)
			return
		case eof:
			t.kind = tkEOF
			return
		default:
			l.next()
			t.kind = c
			return
		}
	}
}

// pair returns two, having consumed it, when c is followed by second.
func (l *lexer) pair(one, second, two int) int {
	if l.next() != second {
		return one
	}
	l.next()
	return two
}

func keyword(w []byte) int {
	if len(w) < 2 || len(w) > 8 || w[0] < 'a' || w[0] > 'w' {
		return 0
	}
	switch string(w) {
	case "and":
		return tkAnd
	case "break":
		return tkBreak
	case "do":
		return tkDo
	case "else":
		return tkElse
	case "elseif":
		return tkElseif
	case "end":
		return tkEnd
	case "false":
		return tkFalse
	case "for":
		return tkFor
	case "function":
		return tkFunction
	case "goto":
		return tkGoto
	case "if":
		return tkIf
	case "in":
		return tkIn
	case "local":
		return tkLocal
	case "nil":
		return tkNil
	case "not":
		return tkNot
	case "or":
		return tkOr
	case "repeat":
		return tkRepeat
	case "return":
		return tkReturn
	case "then":
		return tkThen
	case "true":
		return tkTrue
	case "until":
		return tkUntil
	case "while":
		return tkWhile
	}
	return 0
}

func (l *lexer) intern(b []byte, name bool) string {
	m := l.strs
	if name {
		m = l.names
	}
	if s, ok := m[string(b)]; ok {
		return s
	}
	s := string(b)
	m[s] = s
	if name {
		for _, c := range b {
			if c >= 0x80 {
				l.features |= featIdentByte
				break
			}
		}
	}
	return s
}

// skipEq reads "[" or "]" and the "="s after it. It returns their count
// when the same bracket follows, else -count-1 (LuaJIT's lex_skipeq).
func (l *lexer) skipEq() int {
	s := l.c
	count := 0
	for l.next() == '=' {
		count++
	}
	if l.c == s {
		return count
	}
	return -count - 1
}

// longString reads a long string (t != nil) or a long comment; c is the
// second '['.
func (l *lexer) longString(level int, t *token) {
	l.next()
	if l.c == '\n' || l.c == '\r' {
		l.newline()
	}
	l.sb = l.sb[:0]
	start, plain := l.i, true
	for {
		switch l.c {
		case eof:
			if t == nil {
				l.fail("unfinished long comment", "<eof>")
			}
			l.fail("unfinished long string", "<eof>")
		case ']':
			end := l.i
			if l.skipEq() == level {
				l.next()
				if t != nil {
					t.kind, t.level = tkString, level
					if plain {
						t.s = string(l.src[start:end])
					} else {
						t.s = string(append(l.sb, l.src[start:end]...))
					}
				}
				return
			}
		case '\n', '\r':
			// Any line break is "\n" in the string; only a lone "\n" can
			// stay a slice of the source.
			if t != nil && (l.c == '\r' || l.i+1 < len(l.src) && l.src[l.i+1] == '\r') {
				l.sb = append(append(l.sb, l.src[start:l.i]...), '\n')
				plain = false
				l.newline()
				start = l.i
				continue
			}
			l.newline()
		default:
			l.next()
		}
	}
}

// quoted reads a '...' or "..." string with LuaJIT's escapes.
func (l *lexer) quoted(t *token) {
	delim := l.c
	t.kind, t.level, t.quote = tkString, -1, byte(delim)
	// Most strings have no escapes: take them as a slice of the source.
	j := l.i + 1
	for j < len(l.src) {
		b := l.src[j]
		if int(b) == delim || b == '\\' || b == '\n' || b == '\r' {
			break
		}
		j++
	}
	if j < len(l.src) && int(l.src[j]) == delim {
		t.s = l.short(l.src[l.i+1 : j])
		l.i = j
		l.next()
		return
	}
	l.sb = append(l.sb[:0], l.src[l.i+1:j]...)
	l.i = j - 1
	l.next()
	for l.c != delim {
		switch l.c {
		case eof:
			l.fail("unfinished string", "<eof>")
		case '\n', '\r':
			l.fail("unfinished string", cutNUL(string(rune(delim))+string(l.sb)))
		case '\\':
			l.escape(delim)
		default:
			l.sb = append(l.sb, byte(l.c))
			l.next()
		}
	}
	l.next()
	t.s = l.short(l.sb)
}

// short returns b as a string, sharing the copies of short ones.
func (l *lexer) short(b []byte) string {
	if len(b) > 16 {
		return string(b)
	}
	return l.intern(b, false)
}

// escape reads one escape sequence; c is the backslash.
func (l *lexer) escape(delim int) {
	bad := func() {
		l.fail("invalid escape sequence", cutNUL(string(rune(delim))+string(l.sb)))
	}
	c := l.next()
	switch c {
	case 'a':
		c = '\a'
	case 'b':
		c = '\b'
	case 'f':
		c = '\f'
	case 'n':
		c = '\n'
	case 'r':
		c = '\r'
	case 't':
		c = '\t'
	case 'v':
		c = '\v'
	case 'x':
		l.features |= featEscape
		c = 0
		for k := 0; k < 2; k++ {
			d := l.next()
			if !is(d, chXDigit) {
				bad()
			}
			c = c<<4 | hexValue(d)
		}
	case 'u':
		l.features |= featEscape
		if l.next() != '{' {
			bad()
		}
		l.next()
		r := 0
		for {
			if !is(l.c, chXDigit) {
				bad()
			}
			r = r<<4 | hexValue(l.c)
			if r >= 0x110000 {
				bad()
			}
			if l.next() == '}' {
				break
			}
		}
		if r >= 0xd800 && r < 0xe000 {
			bad() // LuaJIT refuses surrogates
		}
		l.sb = appendUTF8(l.sb, r)
		l.next()
		return
	case 'z':
		l.features |= featEscape
		l.next()
		for is(l.c, chSpace) {
			if l.c == '\n' || l.c == '\r' {
				l.newline()
			} else {
				l.next()
			}
		}
		return
	case '\n', '\r':
		l.sb = append(l.sb, '\n')
		l.newline()
		return
	case '\\', '"', '\'':
	case eof:
		return // the string loop reports it unfinished
	default:
		if !is(c, chDigit) {
			bad()
		}
		v := c - '0'
		if is(l.next(), chDigit) {
			v = v*10 + l.c - '0'
			if is(l.next(), chDigit) {
				v = v*10 + l.c - '0'
				if v > 255 {
					bad()
				}
				l.next()
			}
		}
		l.sb = append(l.sb, byte(v))
		return
	}
	l.sb = append(l.sb, byte(c))
	l.next()
}

func hexValue(c int) int {
	if c <= '9' {
		return c - '0'
	}
	return c | 0x20 - 'a' + 10
}

func appendUTF8(b []byte, r int) []byte {
	switch {
	case r < 0x80:
		return append(b, byte(r))
	case r < 0x800:
		return append(b, byte(0xc0|r>>6), byte(0x80|r&0x3f))
	case r < 0x10000:
		return append(b, byte(0xe0|r>>12), byte(0x80|r>>6&0x3f), byte(0x80|r&0x3f))
	}
	return append(b, byte(0xf0|r>>18), byte(0x80|r>>12&0x3f), byte(0x80|r>>6&0x3f), byte(0x80|r&0x3f))
}

// number reads a numeric literal starting at src[start] (a digit, or the
// '.' before one) the way LuaJIT delimits it, then converts it.
func (l *lexer) number(t *token, start int) {
	prev, exp := l.c, int('e')
	if prev == '0' && l.next()|0x20 == 'x' {
		exp = 'p'
	}
	for is(l.c, chIdent) || l.c == '.' || (l.c == '-' || l.c == '+') && prev|0x20 == exp {
		prev = l.c
		l.next()
	}
	text := string(l.src[start:l.i])
	n, ok := scanNumber(text)
	if !ok {
		l.fail("malformed number", text)
	}
	if n.kind == numImaginary {
		l.fail("imaginary number (complex cdata) literals are not supported by sysbench-go", text)
	}
	if n.odd {
		l.features |= featNumber
	}
	t.kind, t.s, t.num, t.bits = tkNumber, text, n.value, n.bits
	t.numKind = uint8(n.kind)
}
