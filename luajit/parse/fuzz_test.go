package parse

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// lineCount is how many lines LuaJIT counts in src: "\r\n" and "\n\r" are
// one line break, as are "\n" and "\r".
func lineCount(src string) int {
	n := 1
	for i := 0; i < len(src); i++ {
		if c := src[i]; c == '\n' || c == '\r' {
			n++
			if i+1 < len(src) && (src[i+1] == '\n' || src[i+1] == '\r') && src[i+1] != c {
				i++
			}
		}
	}
	return n
}

// FuzzParse: for any input, either ours refuses it with a *SyntaxError
// on a line of the input, or ours accepts it and gopher-lua's parser
// builds the same tree (positions included), or refuses it or builds
// another tree for a reason LuaJIT and gopher-lua are known to disagree
// on (the features the lexer notes). That our compiler compiles every
// tree the parser accepts is luajit/compile's FuzzCompile.
func FuzzParse(f *testing.F) {
	for _, s := range snippets {
		f.Add(s)
	}
	for _, tc := range syntaxErrors {
		f.Add(tc.src)
	}
	if b, err := os.ReadFile("../../lua/oltp_common.lua"); err == nil {
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, src string) {
		_, _, err := parse(strings.NewReader(src), "x.lua")
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a *SyntaxError", err)
			}
			if se.Line < 1 || se.Line > lineCount(src) || se.Message == "" || se.Chunk != "x.lua" {
				t.Fatalf("bad error %+v for %d lines", *se, lineCount(src))
			}
			return
		}
		compareWithGopher(t, "input", src)
	})
}
