package luajit

import (
	"unsafe"

	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/luajit/number"
)

// Lua patterns as LuaJIT 2.1 matches them (string.find, match, gmatch and
// gsub): Lua 5.1's backtracking matcher with %f frontiers, %b balances,
// position captures and back references, and LuaJIT's limits and
// messages. The pattern is read as C reads it, so it ends at its first NUL
// byte, and the subject has a NUL after its end (what %f sees there).
// The recursion has the shape of LuaJIT's, so "pattern too complex"
// comes at the same depth.

const (
	maxCaptures   = 32  // LUA_MAXCAPTURES
	maxMatchDepth = 200 // LJ_MAX_XLEVEL
	capUnfinished = -1
	capPosition   = -2
)

type matcher struct {
	L       *lua.LState
	src     string
	pat     string
	level   int // captures opened, finished or not
	depth   int
	capture [maxCaptures]struct{ init, len int }
}

func newMatcher(L *lua.LState, src, pat string) *matcher {
	if i := indexByte(pat, 0); i >= 0 {
		pat = pat[:i]
	}
	return &matcher{L: L, src: src, pat: pat}
}

// p reads the pattern at i, 0 past its end.
func (m *matcher) p(i int) byte {
	if i < len(m.pat) {
		return m.pat[i]
	}
	return 0
}

// s reads the subject at i, 0 at its end.
func (m *matcher) s(i int) byte {
	if i < len(m.src) {
		return m.src[i]
	}
	return 0
}

func (m *matcher) fail(msg string) { LibError(m.L, msg) }

func (m *matcher) checkCapture(l int) int {
	l -= '1'
	if l < 0 || l >= m.level || m.capture[l].len == capUnfinished {
		m.fail("invalid capture index")
	}
	return l
}

func (m *matcher) captureToClose() int {
	for level := m.level - 1; level >= 0; level-- {
		if m.capture[level].len == capUnfinished {
			return level
		}
	}
	m.fail("invalid pattern capture")
	return 0
}

// classEnd is the index after the single-character class at p.
func (m *matcher) classEnd(p int) int {
	c := m.p(p)
	p++
	switch c {
	case '%':
		if m.p(p) == 0 {
			m.fail("malformed pattern (ends with '%')")
		}
		return p + 1
	case '[':
		if m.p(p) == '^' {
			p++
		}
		for {
			if m.p(p) == 0 {
				m.fail("malformed pattern (missing ']')")
			}
			c := m.p(p)
			p++
			if c == '%' && m.p(p) != 0 {
				p++
			}
			if m.p(p) == ']' {
				return p + 1
			}
		}
	}
	return p
}

// matchClass reports whether c is in the class %cl.
func matchClass(c, cl byte) bool {
	var in bool
	switch cl | 0x20 {
	case 'a':
		in = isAlpha(c)
	case 'c':
		in = c < 32 || c == 127
	case 'd':
		in = c >= '0' && c <= '9'
	case 'g':
		in = c > 32 && c < 127
	case 'l':
		in = c >= 'a' && c <= 'z'
	case 'p':
		in = isPunct(c)
	case 's':
		in = isSpace(c)
	case 'u':
		in = c >= 'A' && c <= 'Z'
	case 'w':
		in = isAlnum(c)
	case 'x':
		in = c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f'
	case 'z':
		in = c == 0
	default:
		return cl == c
	}
	if cl >= 'A' && cl <= 'Z' {
		return !in
	}
	return in
}

func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isPunct(c byte) bool { return c > 32 && c < 127 && !isAlnum(c) }

// matchBracket reports whether c is in the set [...] from p (its '[') to
// ec (its ']').
func (m *matcher) matchBracket(c byte, p, ec int) bool {
	sig := true
	if m.p(p+1) == '^' {
		sig = false
		p++
	}
	for p++; p < ec; p++ {
		switch {
		case m.p(p) == '%':
			p++
			if matchClass(c, m.p(p)) {
				return sig
			}
		case m.p(p+1) == '-' && p+2 < ec:
			p += 2
			if m.p(p-2) <= c && c <= m.p(p) {
				return sig
			}
		case m.p(p) == c:
			return sig
		}
	}
	return !sig
}

// singleMatch reports whether c matches the class from p to ep.
func (m *matcher) singleMatch(c byte, p, ep int) bool {
	switch m.p(p) {
	case '.':
		return true
	case '%':
		return matchClass(c, m.p(p+1))
	case '[':
		return m.matchBracket(c, p, ep-1)
	}
	return m.p(p) == c
}

func (m *matcher) matchBalance(s, p int) int {
	if m.p(p) == 0 || m.p(p+1) == 0 {
		m.fail("unbalanced pattern")
	}
	if m.s(s) != m.p(p) {
		return -1
	}
	b, e := m.p(p), m.p(p+1)
	cont := 1
	for s++; s < len(m.src); s++ {
		switch m.src[s] {
		case e:
			if cont--; cont == 0 {
				return s + 1
			}
		case b:
			cont++
		}
	}
	return -1
}

func (m *matcher) maxExpand(s, p, ep int) int {
	i := 0
	for s+i < len(m.src) && m.singleMatch(m.src[s+i], p, ep) {
		i++
	}
	for ; i >= 0; i-- {
		if r := m.match(s+i, ep+1); r >= 0 {
			return r
		}
	}
	return -1
}

func (m *matcher) minExpand(s, p, ep int) int {
	for {
		if r := m.match(s, ep+1); r >= 0 {
			return r
		}
		if s < len(m.src) && m.singleMatch(m.src[s], p, ep) {
			s++
		} else {
			return -1
		}
	}
}

func (m *matcher) startCapture(s, p, what int) int {
	level := m.level
	if level >= maxCaptures {
		m.fail("too many captures")
	}
	m.capture[level].init = s
	m.capture[level].len = what
	m.level = level + 1
	r := m.match(s, p)
	if r < 0 {
		m.level--
	}
	return r
}

func (m *matcher) endCapture(s, p int) int {
	l := m.captureToClose()
	m.capture[l].len = s - m.capture[l].init
	r := m.match(s, p)
	if r < 0 {
		m.capture[l].len = capUnfinished
	}
	return r
}

func (m *matcher) matchCapture(s int, l byte) int {
	i := m.checkCapture(int(l))
	c := m.capture[i]
	if len(m.src)-s >= c.len && m.src[c.init:c.init+c.len] == m.src[s:s+c.len] {
		return s + c.len
	}
	return -1
}

// match matches the pattern from p against the subject from s and returns
// the end of the match, or -1.
func (m *matcher) match(s, p int) int {
	if m.depth++; m.depth > maxMatchDepth {
		m.fail("pattern too complex")
	}
	r := m.doMatch(s, p)
	m.depth--
	return r
}

func (m *matcher) doMatch(s, p int) int {
	for {
		switch m.p(p) {
		case '(':
			if m.p(p+1) == ')' {
				return m.startCapture(s, p+2, capPosition)
			}
			return m.startCapture(s, p+1, capUnfinished)
		case ')':
			return m.endCapture(s, p+1)
		case 0:
			return s
		case '$':
			if p+1 == len(m.pat) {
				if s != len(m.src) {
					return -1
				}
				return s
			}
		case '%':
			switch c := m.p(p + 1); {
			case c == 'b':
				if s = m.matchBalance(s, p+2); s < 0 {
					return -1
				}
				p += 4
				continue
			case c == 'f':
				p += 2
				if m.p(p) != '[' {
					m.fail("missing '[' after '%f' in pattern")
				}
				ep := m.classEnd(p)
				var prev byte
				if s > 0 {
					prev = m.src[s-1]
				}
				if m.matchBracket(prev, p, ep-1) || !m.matchBracket(m.s(s), p, ep-1) {
					return -1
				}
				p = ep
				continue
			case c >= '0' && c <= '9':
				if s = m.matchCapture(s, c); s < 0 {
					return -1
				}
				p += 2
				continue
			}
		}
		// A single-character class, maybe with a repetition.
		ep := m.classEnd(p)
		ok := s < len(m.src) && m.singleMatch(m.src[s], p, ep)
		switch m.p(ep) {
		case '?':
			if ok {
				if r := m.match(s+1, ep+1); r >= 0 {
					return r
				}
			}
			p = ep + 1
			continue
		case '*':
			return m.maxExpand(s, p, ep)
		case '+':
			if !ok {
				return -1
			}
			return m.maxExpand(s+1, p, ep)
		case '-':
			return m.minExpand(s, p, ep)
		}
		if !ok {
			return -1
		}
		s++
		p = ep
	}
}

// captureValue is capture i of a match from s to e: its text, its
// position for (), or the whole match when the pattern has no captures.
func (m *matcher) captureValue(i, s, e int) lua.LValue {
	if i >= m.level {
		if i != 0 {
			m.fail("invalid capture index")
		}
		return lua.LString(m.src[s:e])
	}
	c := m.capture[i]
	switch c.len {
	case capUnfinished:
		m.fail("unfinished capture")
	case capPosition:
		return lua.LNumber(c.init + 1)
	}
	return lua.LString(m.src[c.init : c.init+c.len])
}

// pushCaptures pushes the captures of a match from s to e (the whole match
// when there are none and wholeMatch) and returns how many.
func (m *matcher) pushCaptures(s, e int, wholeMatch bool) int {
	n := m.level
	if n == 0 && wholeMatch {
		n = 1
	}
	for i := range n {
		m.L.Push(m.captureValue(i, s, e))
	}
	return n
}

// hasPattern reports whether p has a character that makes it a pattern
// for find; without one find searches for the plain text.
func hasPattern(p string) bool {
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '^', '$', '*', '+', '?', '.', '(', '[', '%', '-':
			return true
		}
	}
	return false
}

// strFindAux is string.find (find) and string.match.
func strFindAux(L *lua.LState, find bool) int {
	s := CheckStr(L, 1)
	pat := CheckStr(L, 2)
	start := int(optInt(L, 3, 1))
	if start < 0 {
		start += len(s)
	} else {
		start--
	}
	start = min(max(start, 0), len(s))
	if find && (lua.LVAsBool(L.Get(4)) || !hasPattern(pat)) {
		if i := indexString(s[start:], pat); i >= 0 {
			L.Push(lua.LNumber(start + i + 1))
			L.Push(lua.LNumber(start + i + len(pat)))
			return 2
		}
		L.Push(lua.LNil)
		return 1
	}
	m := newMatcher(L, s, pat)
	p := 0
	anchor := m.p(0) == '^'
	if anchor {
		p = 1
	}
	for at := start; ; at++ {
		m.level, m.depth = 0, 0
		if e := m.match(at, p); e >= 0 {
			if find {
				L.Push(lua.LNumber(at + 1))
				L.Push(lua.LNumber(e))
				return m.pushCaptures(-1, -1, false) + 2
			}
			return m.pushCaptures(at, e, true)
		}
		if at >= len(s) || anchor {
			break
		}
	}
	L.Push(lua.LNil)
	return 1
}

func indexString(s, sub string) int {
	n := len(sub)
	for i := 0; i+n <= len(s); i++ {
		if s[i:i+n] == sub {
			return i
		}
	}
	return -1
}

func strFind(L *lua.LState) int  { return strFindAux(L, true) }
func strMatch(L *lua.LState) int { return strFindAux(L, false) }

// strGmatch is string.gmatch: an iterator over the matches, with '^'
// an ordinary character as in LuaJIT.
func strGmatch(L *lua.LState) int {
	s := CheckStr(L, 1)
	pat := CheckStr(L, 2)
	pos := 0
	m := newMatcher(L, s, pat)
	L.Push(L.NewFunction(func(L *lua.LState) int {
		m.L = L
		for at := pos; at <= len(s); at++ {
			m.level, m.depth = 0, 0
			if e := m.match(at, 0); e >= 0 {
				pos = e
				if e == at {
					pos++
				}
				return m.pushCaptures(at, e, true)
			}
		}
		pos = len(s) + 1
		return 0
	}))
	return 1
}

// strGsub is string.gsub(s, pattern, repl [, n]) with a string (or
// number) repl and its %0-%9, a table or a function.
func strGsub(L *lua.LState) int {
	src := CheckStr(L, 1)
	pat := CheckStr(L, 2)
	repl := L.Get(3)
	maxN := int(optInt(L, 4, int32(min(len(src)+1, 1<<31-1))))
	switch repl.Type() {
	case lua.LTNumber, lua.LTString, lua.LTFunction, lua.LTTable:
	default:
		argError(L, 3, "string/function/table expected")
	}
	var replStr string
	if repl.Type() != lua.LTFunction && repl.Type() != lua.LTTable {
		replStr = CheckStr(L, 3)
	}
	m := newMatcher(L, src, pat)
	p := 0
	anchor := m.p(0) == '^'
	if anchor {
		p = 1
	}
	var b []byte
	s, n := 0, 0
	for n < maxN {
		m.level, m.depth = 0, 0
		e := m.match(s, p)
		if e >= 0 {
			n++
			b = m.addValue(b, repl, replStr, s, e)
		}
		switch {
		case e > s:
			s = e
		case s < len(src):
			b = append(b, src[s])
			s++
		default:
			goto done
		}
		if anchor {
			break
		}
	}
done:
	if n == 0 {
		L.Push(lua.LString(src))
	} else {
		b = append(b, src[s:]...)
		L.Push(lua.LString(unsafe.String(unsafe.SliceData(b), len(b)))) // b is not used again
	}
	L.Push(lua.LNumber(n))
	return 2
}

// addValue appends the replacement of the match from s to e.
func (m *matcher) addValue(b []byte, repl lua.LValue, replStr string, s, e int) []byte {
	L := m.L
	var v lua.LValue
	switch r := repl.(type) {
	case *lua.LFunction:
		top := L.GetTop()
		L.Push(r)
		n := m.pushCaptures(s, e, true)
		L.Call(n, 1)
		v = L.Get(-1)
		L.SetTop(top)
	case *lua.LTable:
		v = L.GetTable(r, m.captureValue(0, s, e))
	default:
		return m.addString(b, replStr, s, e)
	}
	switch x := v.(type) {
	case lua.LString:
		return append(b, x...)
	case lua.LNumber:
		return number.Append(b, float64(x))
	}
	if !lua.LVAsBool(v) {
		return append(b, m.src[s:e]...)
	}
	LibError(L, "invalid replacement value (a "+luaTypeName(v)+")")
	return b
}

// addString appends a replacement string with its %0-%9 and %%; a '%'
// before any other character stands for that character (for the NUL C
// sees at the end, when the string ends in '%').
func (m *matcher) addString(b []byte, r string, s, e int) []byte {
	for i := 0; i < len(r); i++ {
		c := r[i]
		if c != '%' {
			b = append(b, c)
			continue
		}
		i++
		var d byte
		if i < len(r) {
			d = r[i]
		}
		switch {
		case d < '0' || d > '9':
			b = append(b, d)
		case d == '0':
			b = append(b, m.src[s:e]...)
		default:
			switch v := m.captureValue(int(d-'1'), s, e).(type) {
			case lua.LString:
				b = append(b, v...)
			case lua.LNumber:
				b = number.Append(b, float64(v))
			}
		}
	}
	return b
}
