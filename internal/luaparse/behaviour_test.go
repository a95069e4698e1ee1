package luaparse

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// captured makes print collect its lines, and the chunk end by raising
// them, so one program runs the same in gopher-lua and in luajit.
const capturePrelude = `local out = {} print = function(...) local t = {} for i = 1, select('#', ...) do t[i] = tostring((select(i, ...))) end out[#out + 1] = table.concat(t, "\t") end `
const captureEnd = "\nerror(table.concat(out, '\\n'), 0)"

// programs are run by gopher-lua from our tree; want is LuaJIT 2.1's
// output, which TestProgramsAgreeWithLuaJIT re-checks with luajit.
var programs = []struct{ name, src, want string }{
	{"parenthesised call keeps one value",
		"local function f() return 1, 2 end print((f())) print(f()) print(#{(f())}, #{f()})",
		"1\n1\t2\n1\t2"},
	{"parenthesised vararg keeps one value",
		"local function g(...) return select('#', (...)), #{...} end print(g(1, 2, 3))",
		"1\t3"},
	{"local f = function sees the outer f",
		"h = function() return 'global' end local h = function() return h() end print(h())",
		"global"},
	{"local f = function does not see itself",
		"local k = function(n) return k end print(k(1))",
		"nil"},
	{"local function sees itself",
		"local function k(n) if n == 0 then return 'done' end return k(n - 1) end print(k(3))",
		"done"},
	{"goto continue",
		"for i = 1, 3 do if i == 2 then goto continue end print(i) ::continue:: end",
		"1\n3"},
	{"goto backwards",
		"do local i = 1 ::top:: if i <= 2 then print('top', i) i = i + 1 goto top end end",
		"top\t1\ntop\t2"},
	{"escapes",
		"print(\"\\x41\\u{48}\\u{20AC}\", #\"\\u{10FFFF}\", \"a\\z    \n      b\", \"\\65\\066\\0677\")",
		"AH€\t4\tab\tABC7"},
	{"numbers",
		"print(0x7fffffffffffffff == 2^63, 0xffffffffffffffff == 2^64, 1e400 == 1/0, 0x1.8p1, 0b101, 010, 0x.1)",
		"true\ttrue\ttrue\t3\t5\t10\t0.0625"},
	{"operators",
		"print(2^3^2, -2^2, 2^-1, 'a'..'b'..'c', 1 .. 2, not nil == true)",
		"512\t-4\t0.5\tabc\t12\ttrue"},
	{"method on a parenthesised string",
		"print(('x'):rep(3), #'abc' + 1, -(-3))",
		"xxx\t4\t3"},
	{"table constructor",
		"local t = {1, 2, n = 3, [10] = 4; 5} print(t[1], t[2], t.n, t[10], t[3])",
		"1\t2\t3\t4\t5"},
	{"goto as a name",
		"local goto = 5 print(goto)",
		"5"},
}

// runOurs compiles src with our parser and runs it in gopher-lua; the
// result is the message the chunk ends with.
func runOurs(t *testing.T, src string) string {
	t.Helper()
	chunk, err := Parse(strings.NewReader(src), "x.lua")
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	proto, err := lua.Compile(chunk, "x.lua")
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	L := lua.NewState()
	defer L.Close()
	L.Push(L.NewFunctionFromProto(proto))
	if err := L.PCall(0, 0, nil); err != nil {
		if ae, ok := err.(*lua.ApiError); ok {
			return ae.Object.String()
		}
		return err.Error()
	}
	return ""
}

func TestPrograms(t *testing.T) {
	for _, p := range programs {
		t.Run(p.name, func(t *testing.T) {
			if got := runOurs(t, capturePrelude+p.src+captureEnd); got != p.want {
				t.Errorf("got %q, LuaJIT %q", got, p.want)
			}
		})
	}
}

func TestProgramsAgreeWithLuaJIT(t *testing.T) {
	var srcs []string
	for _, p := range programs {
		srcs = append(srcs, capturePrelude+p.src+captureEnd)
	}
	for i, got := range luajitRun(t, srcs) {
		if got != programs[i].want {
			t.Errorf("%s: the table says %q, LuaJIT %q", programs[i].name, programs[i].want, got)
		}
	}
}

// TestInt64LiteralCall: the literal's call reaches the global with the
// decimal value and the suffix, one value in any position.
func TestInt64LiteralCall(t *testing.T) {
	src := Int64LiteralFunc + " = function(v, s) return v .. s, 'extra' end " +
		capturePrelude + "print(1LL, 0xffULL, 18446744073709551615LL, 0x8000000000000000LL, select('#', 2ULL))" + captureEnd
	if got, want := runOurs(t, src), "1LL\t255ULL\t-1LL\t-9223372036854775808LL\t1"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestRuntimeErrorLines: errors raised at run time name the lines they
// name when gopher-lua parses the script itself.
func TestRuntimeErrorLines(t *testing.T) {
	for _, src := range []string{
		"local t = nil\n\nprint(t.x)",
		"x = nil\nx()",
		"local a = {}\nlocal b = a.b\n  .c",
		"function f()\n  return g(\n    1)\nend\nf()",
		"local s = 'a' ..\n{}",
		"for i = 1, 'x' do end",
		"local t = setmetatable({}, {__index = function() error('deep') end})\nlocal v = t\n.x",
	} {
		got := runOurs(t, src)
		chunk, err := gopherParse(src)
		if err != nil {
			t.Fatal(err)
		}
		proto, err := lua.Compile(chunk, "x.lua")
		if err != nil {
			t.Fatal(err)
		}
		L := lua.NewState()
		L.Push(L.NewFunctionFromProto(proto))
		want := ""
		if err := L.PCall(0, 0, nil); err != nil {
			want = err.(*lua.ApiError).Object.String()
		}
		L.Close()
		if got != want || want == "" {
			t.Errorf("%q: ours %q, gopher-lua's parser %q", src, got, want)
		}
	}
}
