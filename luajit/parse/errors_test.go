package parse

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// syntaxErrors are sources and what LuaJIT 2.1 (luajit -e
// 'loadstring(src, "@x.lua")') says of them; "" when it loads them.
// TestSyntaxErrorsAgreeWithLuaJIT re-asks luajit when it is installed.
var syntaxErrors = []struct{ src, want string }{
	// sysbench 1.0.20's own test suite checks the first one
	{"foo\n", `x.lua:2: '=' expected near '<eof>'`},
	{"x = 1\nfoo", `x.lua:2: '=' expected near '<eof>'`},
	{"function f()\n", `x.lua:2: 'end' expected (to close 'function' at line 1) near '<eof>'`},
	{"function f()\n  return 1\n", `x.lua:3: 'end' expected (to close 'function' at line 1) near '<eof>'`},
	{"x = \"abc\n", `x.lua:1: unfinished string near '"abc'`},
	{"x = \"abc", `x.lua:1: unfinished string near '<eof>'`},
	{"x = 'it''s", `x.lua:1: unfinished string near '<eof>'`},
	{"x = 0x", `x.lua:1: malformed number near '0x'`},
	{"x = 0x.p1", `x.lua:1: malformed number near '0x.p1'`},
	{"x = 1e", `x.lua:1: malformed number near '1e'`},
	{"x = 1e+", `x.lua:1: malformed number near '1e+'`},
	{"x = 3..4", `x.lua:1: malformed number near '3..4'`},
	{"x = 1_000", `x.lua:1: malformed number near '1_000'`},
	{"x = 0o7", `x.lua:1: malformed number near '0o7'`},
	{"x = 08.5.1", `x.lua:1: malformed number near '08.5.1'`},
	{"x = 1U", `x.lua:1: malformed number near '1U'`},
	{"x = 1L", `x.lua:1: malformed number near '1L'`},
	{"x = 1.5LL", `x.lua:1: malformed number near '1.5LL'`},
	{"x = 1ULLi", `x.lua:1: malformed number near '1ULLi'`},
	{"x = 0b102", `x.lua:1: malformed number near '0b102'`},
	{"x = 0b1.1", `x.lua:1: malformed number near '0b1.1'`},
	{"x = 1e1048576", `x.lua:1: malformed number near '1e1048576'`},
	{"x = 18446744073709551616ULL", `x.lua:1: malformed number near '18446744073709551616ULL'`},
	{"x = 0x10000000000000000LL", `x.lua:1: malformed number near '0x10000000000000000LL'`},
	{"t = {\nprint", `x.lua:2: '}' expected (to close '{' at line 1) near '<eof>'`},
	{"t = {\n  a = 1,\n  b = 2\n\nprint(t)", `x.lua:5: '}' expected (to close '{' at line 1) near 'print'`},
	{"t = { 1, 2 3 }", `x.lua:1: '}' expected near '3'`},
	{"x =", `x.lua:1: unexpected symbol near '<eof>'`},
	{"x = = 1", `x.lua:1: unexpected symbol near '='`},
	{";", `x.lua:1: unexpected symbol near ';'`},
	{"x = 1;;", `x.lua:1: unexpected symbol near ';'`},
	{"x = 1 2", `x.lua:1: unexpected symbol near '2'`},
	{"(f())", `x.lua:1: syntax error near '<eof>'`},
	{"(f)", `x.lua:1: syntax error near '<eof>'`},
	{"a, (b) = 1, 2", `x.lua:1: syntax error near '='`},
	{"a, f() = 1, 2", `x.lua:1: syntax error near '='`},
	{"f() = 1", `x.lua:1: unexpected symbol near '='`},
	{"a.b:c = 1", `x.lua:1: function arguments expected near '='`},
	{"\"str\" = 1", `x.lua:1: unexpected symbol near '"str"'`},
	{"x = \"\\q\"", `x.lua:1: invalid escape sequence near '"'`},
	{"x = \"ab\\x4\"", `x.lua:1: invalid escape sequence near '"ab'`},
	{"x = \"ab\\xg1\"", `x.lua:1: invalid escape sequence near '"ab'`},
	{"x = \"\\256\"", `x.lua:1: invalid escape sequence near '"'`},
	{"x = \"\\u{110000}\"", `x.lua:1: invalid escape sequence near '"'`},
	{"x = \"\\u{d800}\"", `x.lua:1: invalid escape sequence near '"'`},
	{"x = \"\\u{}\"", `x.lua:1: invalid escape sequence near '"'`},
	{"x = \"\\u1234\"", `x.lua:1: invalid escape sequence near '"'`},
	{"x = \"\\u{12\"", `x.lua:1: invalid escape sequence near '"'`},
	{"x = \"abc\\", `x.lua:1: unfinished string near '<eof>'`},
	{"x = [==[abc", `x.lua:1: unfinished long string near '<eof>'`},
	{"--[==[abc", `x.lua:1: unfinished long comment near '<eof>'`},
	{"x = [=x", `x.lua:1: invalid long string delimiter near '[='`},
	{"x = [==", `x.lua:1: invalid long string delimiter near '[=='`},
	{"x = ]", `x.lua:1: unexpected symbol near ']'`},
	{"x = @", `x.lua:1: unexpected symbol near '@'`},
	{"x = $y", `x.lua:1: unexpected symbol near '$'`},
	{"x = !y", `x.lua:1: unexpected symbol near '!'`},
	{"x = `y`", "x.lua:1: unexpected symbol near '`'"},
	{"x = ~y", `x.lua:1: unexpected symbol near '~'`},
	{"x = a ~ b", `x.lua:1: unexpected symbol near '~'`},
	{"x = \x00", `x.lua:1: unexpected symbol`}, // LuaJIT takes a NUL byte for "no token"
	{"x = \x01", `x.lua:1: unexpected symbol near 'char(1)'`},
	{"x = \x7f", `x.lua:1: unexpected symbol near 'char(127)'`},
	{"x = a & b", `x.lua:1: unexpected symbol near '&'`},
	{"x = a | b", `x.lua:1: unexpected symbol near '|'`},
	{"local function f() return ... end", `x.lua:1: cannot use '...' outside a vararg function near '...'`},
	{"function f(a, b) return ... end", `x.lua:1: cannot use '...' outside a vararg function near '...'`},
	{"f = function(...) return function() return ... end end", `x.lua:1: cannot use '...' outside a vararg function near '...'`},
	{"f\n(g)", `x.lua:2: ambiguous syntax (function call x new statement) near '('`},
	{"a.b\n(1)", `x.lua:2: ambiguous syntax (function call x new statement) near '('`},
	{"f(1)\n(g)()", `x.lua:2: ambiguous syntax (function call x new statement) near '('`},
	{"t = { f\n(1) }", ``},
	{"local x = f\n(\"a\")", `x.lua:2: ambiguous syntax (function call x new statement) near '('`},
	{"f = function(a b) end", `x.lua:1: ')' expected near 'b'`},
	{"f = function(1) end", `x.lua:1: <name> or '...' expected near '1'`},
	{"function f(a,) end", `x.lua:1: <name> or '...' expected near ')'`},
	{"function (a) end", `x.lua:1: '<name>' expected near '('`},
	{"function a.1() end", `x.lua:1: '(' expected near '.1'`},
	{"function a:b.c() end", `x.lua:1: '(' expected near '.'`},
	{"local function () end", `x.lua:1: '<name>' expected near '('`},
	{"local 1 = 2", `x.lua:1: '<name>' expected near '1'`},
	{"local x, = 1", `x.lua:1: '<name>' expected near '='`},
	{"for i do end", `x.lua:1: '=' or 'in' expected near 'do'`},
	{"for i = 1 do end", `x.lua:1: ',' expected near 'do'`},
	{"for i = 1, 2 end", `x.lua:1: 'do' expected near 'end'`},
	{"for i, j = 1, 2 do end", `x.lua:1: 'in' expected near '='`},
	{"for 1 = 1, 2 do end", `x.lua:1: '<name>' expected near '1'`},
	{"for i in do end", `x.lua:1: unexpected symbol near 'do'`},
	{"for i in x end", `x.lua:1: 'do' expected near 'end'`},
	{"if x end", `x.lua:1: 'then' expected near 'end'`},
	{"if x then", `x.lua:1: 'end' expected near '<eof>'`},
	{"if x then\nelse\n", `x.lua:3: 'end' expected (to close 'if' at line 1) near '<eof>'`},
	{"if x then elseif y end", `x.lua:1: 'then' expected near 'end'`},
	{"while x end", `x.lua:1: 'do' expected near 'end'`},
	{"while x do\n", `x.lua:2: 'end' expected (to close 'while' at line 1) near '<eof>'`},
	{"repeat\n", `x.lua:2: 'until' expected (to close 'repeat' at line 1) near '<eof>'`},
	{"repeat x = 1 until", `x.lua:1: unexpected symbol near '<eof>'`},
	{"do\n", `x.lua:2: 'end' expected (to close 'do' at line 1) near '<eof>'`},
	{"x = a.", `x.lua:1: '<name>' expected near '<eof>'`},
	{"x = a:b", `x.lua:1: function arguments expected near '<eof>'`},
	{"x = a:b + 1", `x.lua:1: function arguments expected near '+'`},
	{"x = a[1", `x.lua:1: ']' expected near '<eof>'`},
	{"x = (1", `x.lua:1: ')' expected near '<eof>'`},
	{"x = (1\n", `x.lua:2: ')' expected (to close '(' at line 1) near '<eof>'`},
	{"x = f(1, 2", `x.lua:1: ')' expected near '<eof>'`},
	{"x = f(1, 2\n", `x.lua:2: ')' expected (to close '(' at line 1) near '<eof>'`},
	{"x = {[1 = 2}", `x.lua:1: ']' expected near '='`},
	{"x = {[1] 2}", `x.lua:1: '=' expected near '2'`},
	{"x = {a = }", `x.lua:1: unexpected symbol near '}'`},
	{"return return", `x.lua:1: unexpected symbol near 'return'`},
	{"return 1 2", `x.lua:1: '<eof>' expected near '2'`},
	{"return; x = 1", `x.lua:1: '<eof>' expected near 'x'`},
	{"break x = 1", `x.lua:1: '<eof>' expected near 'x'`},
	{"while true do break x = 1 end", `x.lua:1: 'end' expected near 'x'`},
	{"x = function() end end", `x.lua:1: '<eof>' expected near 'end'`},
	{"x = 1 end", `x.lua:1: '<eof>' expected near 'end'`},
	{"else", `x.lua:1: '<eof>' expected near 'else'`},
	{"until x", `x.lua:1: '<eof>' expected near 'until'`},
	{"elseif", `x.lua:1: '<eof>' expected near 'elseif'`},
	{"goto foo", `x.lua:1: undefined label 'foo'`},
	{"do goto foo end", `x.lua:1: undefined label 'foo'`},
	{"goto continue\nlocal x = 1\n::continue::\nprint(x)", `x.lua:1: <goto continue> jumps into the scope of local 'x'`},
	{"for i = 1, 2 do\n  goto continue\n  local x = i\n  ::continue::\nend", ``},
	{"repeat\n  goto continue\n  local x = 1\n  ::continue::\nuntil x", `x.lua:2: <goto continue> jumps into the scope of local 'x'`},
	{"::a:: ::a::", `x.lua:1: duplicate label 'a'`},
	{"::a::\nlocal x\n::a::", `x.lua:3: duplicate label 'a'`},
	{"::a:: do ::a:: end", ``},
	{"\"a\\0b\" = 1", `x.lua:1: unexpected symbol near '"a'`}, // a token is printed as a C string
	{"[[x\ny]] = 1", "x.lua:2: unexpected symbol near '[[x\ny]]'"},
	{"x = 1 [==[\na]]b]==]", "x.lua:2: unexpected symbol near '[==[a]]b]==]'"},
	{"x = 1\n\"\\x41\\z  \n  q\" = 2", `x.lua:3: unexpected symbol near '"Aq"'`},
	{"do goto e local y = 1 ::e:: ; end", `x.lua:1: <goto e> jumps into the scope of local 'y'`}, // ";" makes the label not the last statement
	{"goto a local x ::a:: print(x)", `x.lua:1: <goto a> jumps into the scope of local 'x'`},
	{"do goto a end local x ::a:: print(x)", `x.lua:1: <goto a> jumps into the scope of local 'x'`},
	{"local function f() goto a end ::a::", `x.lua:1: undefined label 'a'`},
	{"break", `x.lua:1: no loop to break`},
	{"if x then break end", `x.lua:1: no loop to break`},
	{"function f() break end", `x.lua:1: no loop to break`},
	{"while true do local f = function() break end end", `x.lua:1: no loop to break`},
	{":: 1 ::", `x.lua:1: '<name>' expected near '1'`},
	{"::a", `x.lua:1: '::' expected near '<eof>'`},
	{"goto 1", `x.lua:1: '=' expected near '1'`},
	{"goto = 1 print(goto)", ``},
	{"local goto = 1", ``},
	{"x = {goto = 1}", ``},
	{"::goto::", ``},
	{"goto goto", `x.lua:1: '=' expected near 'goto'`},
	{"x.goto = 1", ``},
	{"function goto() end", ``},
	{"x = [[\nabc\n]] y", "x.lua:3: '=' expected near '<eof>'"},
	{"x = \"a\\tb\" y", "x.lua:1: '=' expected near '<eof>'"},
	{"x = \"a\\0b\" y", "x.lua:1: '=' expected near '<eof>'"},
	{"x = 'q' y", "x.lua:1: '=' expected near '<eof>'"},
	{"x = [==[\na]]b]==] y", "x.lua:2: '=' expected near '<eof>'"},
	{"x = 1\r\n\r\nfoo", "x.lua:3: '=' expected near '<eof>'"},
	{"x = 1\r\rfoo", "x.lua:3: '=' expected near '<eof>'"},
	{"x = 1\n\rfoo", "x.lua:2: '=' expected near '<eof>'"},
	{"x = 1\n\r\nfoo", "x.lua:3: '=' expected near '<eof>'"},
	{"#!/usr/bin/lua\nfoo", "x.lua:2: '=' expected near '<eof>'"},
	{"#!/usr/bin/lua", ""},
	{"# comment\nx = = 1", "x.lua:2: unexpected symbol near '='"},
	{"\xef\xbb\xbffoo", "x.lua:1: '=' expected near '<eof>'"},
	{"\xef\xbb\xbf#!x\nfoo", "x.lua:2: '=' expected near '<eof>'"},
	{"x = \"a\\z   \n   b\" y", "x.lua:2: '=' expected near '<eof>'"},
	{"x = \"\\x41\\u{48}\\u{20AC}\\u{10FFFF}\" y", "x.lua:1: '=' expected near '<eof>'"},
	{"x = 1 --[==[ long\ncomment ]==] y", "x.lua:2: '=' expected near '<eof>'"},
	{"x = 1 --[==x\n y", "x.lua:2: '=' expected near '<eof>'"},
	{"x = 1 --[[ x\n]] y", "x.lua:2: '=' expected near '<eof>'"},
	{"f = function() end\n(g)()", ""},
	{"local t = {}\nt.x\n(1)", "x.lua:3: ambiguous syntax (function call x new statement) near '('"},
	{"x = \"s\"\n(f)()", ""},
	{"x = y\n[1]", ""},
	{"x = \v1 y", "x.lua:1: '=' expected near '<eof>'"},
	{"x = \f1 y", "x.lua:1: '=' expected near '<eof>'"},
	{"x = é y", "x.lua:1: '=' expected near '<eof>'"},
	{"x = a.é", ""},
	{"function f(...)\n  local function g() return ... end\nend", "x.lua:2: cannot use '...' outside a vararg function near '...'"},
	{"repeat local x = 1 until y z", "x.lua:1: '=' expected near '<eof>'"},
	{"x = function\n() end end", "x.lua:2: '<eof>' expected near 'end'"},
	{"local function\nf\n() end end", "x.lua:3: '<eof>' expected near 'end'"},
	{"x = function\n(\n)\n\n", "x.lua:5: 'end' expected (to close 'function' at line 2) near '<eof>'"},
	{"local function f\n(\n)\n", "x.lua:4: 'end' expected (to close 'function' at line 2) near '<eof>'"},
	{"function a.b.c\n(\n)\n", "x.lua:4: 'end' expected (to close 'function' at line 1) near '<eof>'"},
	{"x = {\n[1]\n=\n2\n,\nfoo bar", "x.lua:6: '}' expected (to close '{' at line 1) near 'bar'"},
	{"x = [[a\n\nb", "x.lua:3: unfinished long string near '<eof>'"},
	{"x = \"abc\\\ndef", "x.lua:2: unfinished string near '<eof>'"},
	{"x = \"abc\\\r\ndef\nq", "x.lua:2: unfinished string near '\"abc\ndef'"},
	{"goto x\n::x::\n::x::", "x.lua:3: duplicate label 'x'"},
	{"do ::x:: end ::x:: goto y", "x.lua:1: undefined label 'y'"},
	{"x = 08", ""},
	{"x = 1e5x", "x.lua:1: malformed number near '1e5x'"},
	{"x = 0xfg", "x.lua:1: malformed number near '0xfg'"},
	{"x = 1.2.3", "x.lua:1: malformed number near '1.2.3'"},
	{"x = 0x1p", "x.lua:1: malformed number near '0x1p'"},
	{"x = 0x1p+", "x.lua:1: malformed number near '0x1p+'"},
	{"x = 1ee5", "x.lua:1: malformed number near '1ee5'"},
	{"x = 1e5e5", "x.lua:1: malformed number near '1e5e5'"},
	{"x = 0b", "x.lua:1: malformed number near '0b'"},
	{"x = .5e", "x.lua:1: malformed number near '.5e'"},
	{"x = 1--[[c]]2", "x.lua:1: unexpected symbol near '2'"},
}

func names(prefix string, n int, sep string) string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return strings.Join(s, sep)
}

// limitErrors are LuaJIT's limits, met by generated sources.
var limitErrors = []struct{ name, src, want string }{
	{"197 parentheses", "x = " + strings.Repeat("(", 197) + "1" + strings.Repeat(")", 197), ""},
	{"198 parentheses", "x = " + strings.Repeat("(", 198) + "1" + strings.Repeat(")", 198), "x.lua:1: chunk has too many syntax levels"},
	{"197 unary minus", "x = " + strings.Repeat("- ", 197) + "1", ""},
	{"198 unary minus", "x = " + strings.Repeat("- ", 198) + "1", "x.lua:1: chunk has too many syntax levels"},
	{"196 unary minus", "x = " + strings.Repeat("- ", 98) + strings.Repeat("not ", 98) + "1", ""},
	{"197 concatenations", "x = " + strings.Repeat("1 .. ", 197) + "1", ""},
	{"198 concatenations", "x = " + strings.Repeat("1 .. ", 198) + "1", "x.lua:1: chunk has too many syntax levels"},
	{"400 additions", "x = " + strings.Repeat("1 + ", 400) + "1", ""},
	{"198 blocks", strings.Repeat("do ", 198) + strings.Repeat("end ", 198), ""},
	{"199 blocks", strings.Repeat("do ", 199) + strings.Repeat("end ", 199), "x.lua:1: chunk has too many syntax levels"},
	{"198 ifs", strings.Repeat("if x then ", 198) + strings.Repeat("end ", 198), ""},
	{"199 ifs", strings.Repeat("if x then ", 199) + strings.Repeat("end ", 199), "x.lua:1: chunk has too many syntax levels"},
	{"198 tables", "x = " + strings.Repeat("{", 198) + strings.Repeat("}", 198), ""},
	{"98 functions", "x = " + strings.Repeat("function() return ", 98) + "1" + strings.Repeat(" end", 98), ""},
	{"250 labels in a row", names("::a", 250, "::\n") + "::", "x.lua:200: chunk has too many syntax levels"},
	{"199 assigned names", names("a", 199, ", ") + " = 1", ""},
	{"200 assigned names", names("a", 200, ", ") + " = 1", "x.lua:1: main function has more than 200 variable names"},
	{"199 assigned names in a block", "do " + names("a", 199, ", ") + " = 1 end", "x.lua:1: main function has more than 200 variable names"},
	{"assigned names in a function", "function f()\n" + names("a", 199, ", ") + " = 1 end", "x.lua:2: function at line 1 has more than 200 variable names"},
	{"200 locals", "local " + names("a", 200, ", "), ""},
	{"201 locals", "local " + names("a", 201, ", "), "x.lua:1: main function has more than 200 local variables"},
	{"201 local statements", "local " + names("a", 201, "\nlocal "), "x.lua:201: main function has more than 200 local variables"},
	{"197 locals and a for", "local " + names("a", 197, "\nlocal ") + "\nfor i = 1, 2 do end", "x.lua:198: main function has more than 200 local variables"},
	{"196 locals and a for", "local " + names("a", 196, "\nlocal ") + "\nfor i = 1, 2 do end", ""},
	{"196 locals and a for in", "local " + names("a", 196, "\nlocal ") + "\nfor k, v in pairs(t) do end", "x.lua:197: main function has more than 200 local variables"},
	{"201 parameters", "\nfunction f(" + names("a", 201, ", ") + ") end", "x.lua:2: function at line 2 has more than 200 local variables"},
	{"200 parameters and self", "\nfunction t:f(" + names("a", 200, ", ") + ") end", "x.lua:2: function at line 2 has more than 200 local variables"},
	{"local function parameters", "\nlocal function\nf\n(" + names("a", 201, ", ") + ") end", "x.lua:4: function at line 4 has more than 200 local variables"},
	{"60 upvalues", "local " + names("u", 61, "\nlocal ") + "\nfunction f()\n return " + names("u", 60, " + ") + "\nend", ""},
	{"61 upvalues", "local " + names("u", 61, "\nlocal ") + "\nfunction f()\n return " + names("u", 61, " + ") + "\nend", "x.lua:64: function at line 62 has more than 60 upvalues"},
	{"61 upvalues through a function", "local " + names("u", 61, "\nlocal ") + "\nfunction f()\n return function()\n return " + names("u", 61, " + ") + "\nend end", "x.lua:65: function at line 62 has more than 60 upvalues"},
	{"65476 stacked locals", strings.Repeat("do local a end\n", 65476), ""},
	{"65477 stacked locals", strings.Repeat("do local a end\n", 65477), "x.lua:65477: chunk has more than 65476 local variables"},
	{"65474 stacked locals, a goto and a label", strings.Repeat("do local a end\n", 65474) + "goto x ::x::", ""},
	{"65475 stacked locals, a goto and a label", strings.Repeat("do local a end\n", 65475) + "goto x ::x::", "x.lua:65476: chunk has more than 65476 local variables"},
}

func TestSyntaxErrors(t *testing.T) {
	for _, tc := range syntaxErrors {
		if got := ourLoad(tc.src); got != tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.src, got, tc.want)
		}
	}
	for _, tc := range limitErrors {
		if got := ourLoad(tc.src); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// TestSyntaxErrorsAgreeWithLuaJIT keeps the tables above honest.
func TestSyntaxErrorsAgreeWithLuaJIT(t *testing.T) {
	var srcs, wants []string
	for _, tc := range syntaxErrors {
		srcs, wants = append(srcs, tc.src), append(wants, tc.want)
	}
	for _, tc := range limitErrors {
		srcs, wants = append(srcs, tc.src), append(wants, tc.want)
	}
	for i, got := range luajitLoad(t, srcs) {
		if got != wants[i] {
			t.Errorf("%.80q: the table says %q, LuaJIT %q", srcs[i], wants[i], got)
		}
	}
}

func TestBytecodeRefused(t *testing.T) {
	for src, want := range map[string]string{
		"\x1bLJ\x02":                "x.lua:1: LuaJIT bytecode is not supported by sysbench-go",
		"#!/usr/bin/luajit\n\x1bLJ": "x.lua:2: LuaJIT bytecode is not supported by sysbench-go",
	} {
		if got := ourLoad(src); got != want {
			t.Errorf("%q: %q, want %q", src, got, want)
		}
	}
}

func TestSyntaxErrorFields(t *testing.T) {
	_, err := Parse(strings.NewReader("local t = {\n  a = 1\n  b = 2\n}"), "scripts/t.lua")
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("%v is not a *SyntaxError", err)
	}
	want := SyntaxError{Chunk: "scripts/t.lua", Line: 3, Column: 3, Message: "'}' expected (to close '{' at line 1)", Near: "b"}
	if *se != want {
		t.Errorf("got %+v, want %+v", *se, want)
	}
	if got := se.Error(); got != "scripts/t.lua:3: '}' expected (to close '{' at line 1) near 'b'" {
		t.Errorf("Error() = %q", got)
	}
	_, err = Parse(strings.NewReader("goto x"), "t.lua")
	if !errors.As(err, &se) || se.Near != "" || se.Error() != "t.lua:1: undefined label 'x'" {
		t.Errorf("goto error: %#v", err)
	}
	// An error inside a token is at the token's start; one whose token
	// starts on another line than the error's has no column.
	for _, c := range []struct {
		src    string
		column int
	}{
		{"x = 1\ny = 'abc", 5},
		{"x = [[a\nb", 0},
		{"local a = 1 +\n", 1}, // <eof>, on the empty line 2
		{"if x then\n\ty = = 2 end", 6},
	} {
		_, err := Parse(strings.NewReader(c.src), "t.lua")
		if !errors.As(err, &se) || se.Column != c.column {
			t.Errorf("%q: %#v, want column %d", c.src, err, c.column)
		}
	}
}
