package compile

import (
	"strconv"
	"strings"
	"testing"

	"github.com/sysbench-go/sysbench-go/luajit/parse"
)

// programs are compiled by ours and run by gopher-lua; want is LuaJIT
// 2.1's output, which TestProgramsAgreeWithLuaJIT re-checks with luajit.
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
	{"swap", "local x, y = 1, 2 x, y = y, x print(x, y)", "2\t1"},
	{"rotate", "local a, b, c = 1, 2, 3 a, b, c = c, a, b print(a, b, c)", "3\t1\t2"},
	{"values use the old values", "local a, b = 1, 2 a, b = a + 1, a + b print(a, b)", "2\t3"},
	{"swap upvalues", "local x, y = 1, 2 local function f() x, y = y, x end f() print(x, y)", "2\t1"},
	{"swap globals", "x, y = 1, 2 x, y = y, x print(x, y)", "2\t1"},
	{"swap fields", "local t = {1, 2} t[1], t[2] = t[2], t[1] print(t[1], t[2])", "2\t1"},
	{"index with a local assigned in the same statement",
		"local t, i = {}, 1 t[i], i = 'a', 2 print(t[1], t[2], i)", "a\tnil\t2"},
	{"table assigned in the same statement",
		"local t, u = {}, {} t.x, t = 1, u print(u.x, t == u)", "nil\ttrue"},
	{"same target twice", "local a a, a = 1, 2 print(a)", "1"},
	{"more values than targets", "local n = 0 local function f() n = n + 1 return n end local a, b = f(), f(), f() print(a, b, n)", "1\t2\t3"},
	{"fewer values than targets", "local a, b, c = 1 print(a, b, c) a, b, c = (function() return 4, 5 end)() print(a, b, c)", "1\tnil\tnil\n4\t5\tnil"},
	{"closures in a loop", "local fs = {} for i = 1, 3 do local j = i * 10 fs[i] = function() return i, j end end print(fs[1]()) print(fs[3]())", "1\t10\n3\t30"},
	{"closures over a while body", "local fs, i = {}, 0 while i < 3 do i = i + 1 local v = i fs[i] = function() return v end end print(fs[1](), fs[2](), fs[3]())", "1\t2\t3"},
	{"closure over a repeat body", "local fs, i = {}, 0 repeat i = i + 1 local v = i fs[i] = function() return v end until v >= 3 print(fs[1](), fs[3]())", "1\t3"},
	{"break out of a captured scope", "local fs = {} for i = 1, 5 do local v = i fs[i] = function() return v end if i == 2 then break end end print(fs[1](), fs[2](), fs[3])", "1\t2\tnil"},
	{"goto out of a captured scope", "local fs = {} do local i = 1 ::top:: local v = i fs[i] = function() return v end i = i + 1 if i <= 3 then goto top end end print(fs[1](), fs[2](), fs[3]())", "1\t2\t3"},
	{"continue with a captured local", "local fs = {} for i = 1, 3 do local v = i * 2 fs[i] = function() return v end if i == 2 then goto continue end v = v + 1 ::continue:: end print(fs[1](), fs[2](), fs[3]())", "3\t4\t7"},
	{"shared upvalue", "local function counter() local n = 0 return function() n = n + 1 return n end, function() return n end end local inc, get = counter() inc() inc() print(get())", "2"},
	{"varargs", "local function f(...) local a, b = ... return select('#', ...), a, b, ... end print(f(1, nil, 3))", "3\t1\tnil\t1\tnil\t3"},
	{"varargs in a table", "local function f(...) local t = {...} return #t, t[2] end print(f(5, 6, 7))", "3\t6"},
	{"varargs in the middle", "local function f(...) return ..., 'x' end print(f(1, 2))", "1\tx"},
	{"long table constructor", "local function f() local t = {} for i = 1, 60 do t[i] = i end return unpack(t) end local t = {0, f()} print(#t, t[1], t[61], t[30]) local u = {f(), f()} print(#u, u[2], u[61])", "61\t0\t60\t29\n61\t1\t60"},
	{"120 list items", "local t = {" + strings.Repeat("1, ", 119) + "2} print(#t, t[120])", "120\t2"},
	{"and or values", "print(nil or false, false and nil, 1 and 2, nil or 3, (1 == 1) and 'y' or 'n', nil and 1 or 2)", "false\tfalse\t2\t3\ty\t2"},
	{"constant operands of and/or", "local x = ((1 or false) and true) or false print(x, (nil and 1) or (false or 2), ((false or nil) and 1) or 3)", "true\t2\t3"},
	{"not", "local a, b = nil, 0 print(not a, not b, not not a, not (a == b))", "true\tfalse\tfalse\ttrue"},
	{"comparisons", "local a, b = 1, 2 print(a < b, a > b, a <= b, a >= b, a == b, a ~= b, 'a' < 'b', 2 >= 2)", "true\tfalse\ttrue\tfalse\tfalse\ttrue\ttrue\ttrue"},
	{"conditions", "local x = 5 if x > 3 and x < 10 then print('in') elseif x == 0 then print('zero') else print('out') end if not (x > 3) or x == 5 then print('five') end", "in\nfive"},
	{"elseif chain", "for i = 1, 4 do if i == 1 then print('a') elseif i == 2 then print('b') elseif i == 3 then print('c') else print('d') end end", "a\nb\nc\nd"},
	{"concatenation of numbers", "local z = 0 print(1 .. '', 1.5 .. '', 2^53 .. '', -z .. '', 1/3 .. '', 1e15 .. 'x', 10/0 .. '', 123456789012 .. '')", "1\t1.5\t9.007199254741e+15\t-0\t0.33333333333333\t1e+15x\tinf\t123456789012"},
	{"concatenation chains", "local a, b = 'x', 2 local s = a .. b .. a .. (b + 1) print(s, #s, a .. (a .. b) .. a)", "x2x3\t4\txx2x"},
	{"numeric for", "local s = '' for i = 3, 1, -1 do s = s .. i end for i = 0, 1, 0.25 do s = s .. ',' .. i end print(s)", "321,0,0.25,0.5,0.75,1"},
	{"numeric for with strings", "local s = 0 for i = '1', '3' do s = s + i end for i = 1, 2, '1' do s = s + i end print(s)", "9"},
	{"numeric for variable is a copy", "for i = 1, 3 do local j = i i = 10 print(j, i) end", "1\t10\n2\t10\n3\t10"},
	{"generic for", "local t = {10, 20, 30} local s = 0 for i, v in ipairs(t) do s = s + i * v end for k, v in pairs({a = 1}) do s = s + v end print(s)", "141"},
	{"method calls", "local o = {n = 2} function o:add(k) self.n = self.n + k return self end o:add(3):add(4) print(o.n, ('%d-%s'):format(5, 'x'), ('abc'):upper())", "9\t5-x\tABC"},
	{"nested functions and upvalues of upvalues", "local a = 1 local function f() local function g() a = a + 1 return a end return g() end print(f(), f(), a)", "2\t3\t3"},
	{"tail calls do not grow the stack", "local function f(n) if n == 0 then return 'done' end return f(n - 1) end print(f(100000))", "done"},
	{"recursion", "local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end print(fib(20))", "6765"},
	{"constant folding keeps -0 and NaN at run time", "print(-0, 0/0 ~= 0/0, 1/0, -1/0, 2^10, 7 % 3, -7 % 3, 7 % -3, 5.5 % 2)", "-0\ttrue\tinf\t-inf\t1024\t1\t2\t-2\t1.5"},
	{"globals and fields", "t = {x = {y = {}}} t.x.y.z = 5 function t.x.f(a) return a * 2 end print(t.x.y.z, t.x.f(4))", "5\t8"},
	{"long strings and keys", "local t = {['a b'] = 1, [1.5] = 2, [true] = 3} print(t['a b'], t[1.5], t[true])", "1\t2\t3"},
	{"assignment evaluates tables and keys first", "local t = {} local i = 1 local function f() i = i + 1 return i end t[i], t[f()] = 'a', 'b' print(t[1], t[2], i)", "nil\ta\t2"},
	{"while with break", "local i = 0 while true do i = i + 1 if i > 3 then break end end print(i)", "4"},
	{"repeat sees its locals", "local i = 0 repeat local j = i i = i + 1 until j >= 2 print(i)", "3"},
	{"many locals and registers", manyLocals(150), "150\t11325"},
	{"inlined wrapper returns all its call's results",
		"g = function(a) return a, a + 1 end local function f() return g(1) end print(f()) print((f())) local t = {f(), f()} print(#t)",
		"1\t2\n1\n3"},
	{"inlined wrapper reads globals when called",
		"x = 1 local function f() return tostring(x) end x = 2 print(f()) local function h() return f() end x = 3 print(h())",
		"2\n3"},
	{"reassigned local function is called, not inlined",
		"local function f() return tostring(1) end f = function() return 'new' end print(f())",
		"new"},
	{"wrapper's global shadowed at the call",
		"x = 'global' local function f() return tostring(x) end do local x = 'local' print(f()) end",
		"global"},
	{"wrapper's environment stays its own under setfenv",
		"x = 'global' local function f() return tostring(x) end local function g() setfenv(1, {tostring = tostring, x = 'env'}) return f() end print(g())",
		"global"},
	{"error in an inlined wrapper",
		"local function f()\n  return nofunc()\nend\nlocal ok, e = pcall(function() return f() end) print(ok, e:match('^[^:]*:%d+:'))",
		"false\tx.lua:2:"},
}

// manyLocals declares n locals and sums them: registers near the limit.
func manyLocals(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString("local v" + strconv.Itoa(i) + " = " + strconv.Itoa(i) + "\n")
	}
	b.WriteString("local s = 0\n")
	for i := 1; i <= n; i++ {
		b.WriteString("s = s + v" + strconv.Itoa(i) + "\n")
	}
	b.WriteString("print(" + strconv.Itoa(n) + ", s)\n")
	return b.String()
}

func TestPrograms(t *testing.T) {
	for _, p := range programs {
		t.Run(p.name, func(t *testing.T) {
			if got := runOurs(t, p.src); got != p.want+"\n" {
				t.Errorf("got %q, LuaJIT %q", got, p.want+"\n")
			}
		})
	}
}

func TestProgramsAgreeWithLuaJIT(t *testing.T) {
	var srcs []string
	for _, p := range programs {
		srcs = append(srcs, p.src)
	}
	for i, got := range runLuaJIT(t, srcs) {
		if got != programs[i].want+"\n" {
			t.Errorf("%s: the table says %q, LuaJIT %q", programs[i].name, programs[i].want+"\n", got)
		}
	}
}

// TestInt64LiteralCall: the literal's call reaches the global with the
// decimal value and the suffix, one value in any position.
func TestInt64LiteralCall(t *testing.T) {
	src := parse.Int64LiteralFunc + " = function(v, s) return v .. s, 'extra' end " +
		"print(1LL, 0xffULL, 18446744073709551615LL, 0x8000000000000000LL, select('#', 2ULL))"
	if got, want := runOurs(t, src), "1LL\t255ULL\t-1LL\t-9223372036854775808LL\t1\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// errorLines are chunks that fail at run time across line breaks: the
// error is reported on LuaJIT's line (TestErrorLinesAsLuaJIT).
var errorLines = []string{
	"local t = nil\n\nprint(t.x)",
	"x = nil\nx()",
	"local a = {}\nlocal b = a.b\n  .c",
	"function f()\n  return g(\n    1)\nend\nf()",
	"local s = 'a' ..\n{}",
	"local a = 1 +\n\n{}",
	"local a = {}\nlocal b = a\n[\n1\n]\n.x",
	"local t = {}\nt.x\n.y\n= 1",
	"local x = nil\nlocal y = -\nx",
	"local t = {\n1,\n2,\nnil + 1\n}",
	"local a, b = 1, nil\nlocal c = a <\nb",
	"return #\nnil",
	"local o = {}\no:m(\n1\n)",
	"local n\nif n\n.x then end",
	"while\nnil > 1 do end",
	"local t = {}\nfor k, v in\nnil do end",
	"local a = 'x'\nlocal b = a\n..\nnil",
	"local x = g(\n1\n)",
	"local x = g\n{\n1\n}",
	"local x = g\n'a'",
	"local t = {}\nt\n.a\n.b = 1",
	"local t\nt[\n1\n] = 2",
	"g = nil\nlocal y\n= g\n.x",
	"local a\nlocal b\n= a\n+\n1",
	"local t = {}\nlocal x = t.a(\n)",
	"for i = 1, 2 do\nlocal x = nil\nx\n.y = 1\nend",
	"local x\nx =\nx\n..\n'a'",
	"local t = {}\nreturn t.x\n.y",
	"local t = {} t.f = 1\nt\n:f()",
	"for i = 1,\n'x' do end",
	"local t = {}\nlocal _ = t.a.b.c",
}

// TestErrorLinesAsLuaJIT: a run-time error names LuaJIT's line. (The
// message itself is the run-time's business: luaapi translates it.)
func TestErrorLinesAsLuaJIT(t *testing.T) {
	want := runLuaJIT(t, errorLines)
	for i, src := range errorLines {
		got := runOurs(t, src)
		if errorPosition(got) != errorPosition(want[i]) || errorPosition(got) == "" {
			t.Errorf("%q:\nours:   %s\nLuaJIT: %s", src, got, want[i])
		}
	}
}

// errorPosition is the "x.lua:N:" a result's error starts with.
func errorPosition(result string) string {
	_, msg, ok := strings.Cut(result, "error: ")
	if !ok {
		return ""
	}
	pos, _, _ := strings.Cut(msg, " ")
	return pos
}
