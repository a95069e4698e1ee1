package parse

import (
	"math/rand/v2"
	"strings"
)

// fragments are what mutations insert: tokens and pieces of tokens that
// reach LuaJIT's error paths.
var fragments = []string{
	"(", ")", "{", "}", "[", "]", "=", "==", ",", ";", ":", "::", ".", "..", "...",
	"end", "local", "function", "if", "then", "else", "elseif", "do", "while", "for",
	"in", "repeat", "until", "return", "break", "goto", "goto x", "::x::", "not", "and",
	"#", "-", "~", "~=", "@", "$", "!", "`", "\\", "\x00", "\x01", "\x7f",
	`"`, `'`, "[[", "]]", "[=[", "]=]", "[=", "--[[", "--[==[", "\n", "\r", "\n\n", " ",
	"0x", "1e", "1e+", "0b2", "1LL", "0x1p", "3..4", "1_0", "0x.p1", "12i",
	`"\x`, `"\z`, `"\u{`, `"\9`, `"\300"`, `"\q"`, "x", "x =", "f()", "(f)",
	"...", "a.b", "a:b", "a:b()", "= 1", "t[", "function()", "local x", "do local x",
}

// mutate derives a broken variant of src.
func mutate(r *rand.Rand, src string) string {
	if len(src) == 0 {
		return fragments[r.IntN(len(fragments))]
	}
	i := r.IntN(len(src) + 1)
	switch r.IntN(6) {
	case 0: // cut the chunk short
		return src[:i]
	case 1: // drop a few bytes
		j := min(len(src), i+1+r.IntN(8))
		return src[:i] + src[j:]
	case 2, 3: // insert a fragment, at a token boundary when one is near
		for k := i; k < len(src) && k < i+12; k++ {
			if strings.ContainsRune(" \n\t(),", rune(src[k])) {
				i = k
				break
			}
		}
		return src[:i] + fragments[r.IntN(len(fragments))] + src[i:]
	case 4: // overwrite a byte
		if i == len(src) {
			i--
		}
		return src[:i] + string([]byte{byte(r.IntN(128))}) + src[i+1:]
	default: // repeat a line
		lines := strings.SplitAfter(src, "\n")
		k := r.IntN(len(lines))
		lines = append(lines[:k+1], lines[k:]...)
		return strings.Join(lines, "")
	}
}
