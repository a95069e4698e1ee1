package parse

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// snippets are valid Lua 5.1 written to reach every production and every
// position rule of gopher-lua's grammar, across line breaks.
var snippets = []string{
	"",
	"-- only a comment",
	"x = 1",
	"x, y.z, t[1] = 1, 2, 3",
	"x,\ny\n=\n1,\n2",
	"local a",
	"local a, b, c",
	"local a = 1",
	"local a, b = f()",
	"local a = function() end",
	"local a = function(x) return x end, 2",
	"local function f() end",
	"local function f(a, b, ...) return ... end",
	"local\nfunction\nf\n(\na\n)\nreturn\na\nend",
	"function f() end",
	"function a.b.c() end",
	"function a.b.c:d(x) return self end",
	"function\na\n.\nb\n:\nc\n(\n)\nend",
	"function f(...) local t = {...} return select('#', ...) end",
	"f()",
	"f(1, 2, 3)",
	"f{1, 2}",
	"f'str'",
	"f\"str\"",
	"f[[long]]",
	"a.b.c:d(1)('x'){y}",
	"a:b():c():d()",
	"a.b[c].d(e)",
	"(f)()",
	"(f)(1)(2)",
	"((f))()",
	"x = (f())",
	"x = (\nf())",
	"x = ((\ng()))",
	"x = (f)\n.y",
	"x = (...)",
	"x = (\n...\n)",
	"x = (1)",
	"x = (a + b) * c",
	"x = (a)\n+\nb",
	"x = ('s'):rep(3)",
	"x = (\"a\" .. b):upper()",
	"x = {(f())}",
	"x = {f(), (f()), ...}",
	"return (f())",
	"return f()",
	"return ...",
	"return (...)",
	"return",
	"return;",
	"return 1, 2;",
	"do end",
	"do local x = 1 end",
	"do\n  x = 1\nend",
	"while x do end",
	"while\nx\ndo\nbreak\nend",
	"while true do x = x + 1 if x > 10 then break end end",
	"repeat until x",
	"repeat\n  local y = f()\nuntil\ny",
	"repeat local x = 1 until x == 1",
	"if x then end",
	"if x then y() end",
	"if x then a() else b() end",
	"if x then a() elseif y then b() end",
	"if x then a() elseif y then b() elseif z then c() else d() end",
	"if x then\nelseif y then\nelse\nend",
	"if a then if b then c() end end",
	"for i = 1, 10 do end",
	"for i = 1, 10, 2 do print(i) end",
	"for\ni\n=\n1\n,\n2\ndo\nend",
	"for k, v in pairs(t) do end",
	"for k in next, t do end",
	"for a, b, c in f() do local d = a end",
	"for _, v in ipairs({1, 2, 3}) do x = x + v end",
	"goto done\n::done::",
	"::top:: x = x + 1 if x < 3 then goto top end",
	"for i = 1, 3 do\n  if i == 2 then goto continue end\n  print(i)\n  ::continue::\nend",
	"do goto a end ::a::",
	"::a:: ::b:: goto a",
	"x = nil",
	"x = true",
	"x = false",
	"x = ...",
	"x = 1, 2.5, .5, 5., 1e10, 1E-3, 0x1F, 0XaB",
	"x = 'single', \"double\", [[long]], [==[long]]==]",
	"x = [[\nskipped first newline]]",
	"x = [[\r\nwindows]]",
	"x = [[a]=]b]]",
	"x = [==[a]]b]=]c]==]",
	"x = [[line1\nline2\n\nline4]] y = 2",
	"x = '\\a\\b\\f\\n\\r\\t\\v\\\\\\'\\\"'",
	"x = '\\0\\1\\12\\123\\255'",
	"x = 'a\\\nb'",
	"x = 'a\\\r\nb'",
	"x = '\\65\\066\\0677'",
	"x = {}",
	"x = {1, 2, 3}",
	"x = {1, 2, 3,}",
	"x = {1; 2; 3;}",
	"x = {a = 1, b = 2}",
	"x = {[1] = 1, [f()] = 2, ['k'] = 3}",
	"x = {a = 1; 2, [3] = 3, f(), ...}",
	"x = {\n  a = 1,\n  b = {\n    c = 2,\n  },\n}",
	"x = {{}, {{}}, {{{}}}}",
	"x = {x}",
	"x = {x.y}",
	"x = {x = y}",
	"x = function() end",
	"x = function(a, b) return a + b end",
	"x = function(...) return ... end",
	"x = function(a, ...) return a, ... end",
	"x = function\n(\n)\nend",
	"x = f(function() return 1 end)",
	"x = a + b - c * d / e % f ^ g",
	"x = a .. b .. c",
	"x = a ^ b ^ c",
	"x = -a ^ b",
	"x = - - a",
	"x = not not a",
	"x = #t + #s",
	"x = -x ^ -y",
	"x = 2 ^ -3 ^ 2",
	"x = a < b and b <= c or c > d and d >= e or e == f and f ~= g",
	"x = not a == b",
	"x = a .. b == c",
	"x = 1 + 2 .. 3 + 4",
	"x = a or b and c or d",
	"x = a\n+\nb\n*\nc",
	"x = -\n1",
	"x = not\nx",
	"x = #\nt",
	"x =\n\"s\"\n..\n[[t]]",
	"x = a.b.c.d",
	"x = a[b][c][d]",
	"x = a\n.\nb\n[\nc\n]",
	"x = a:b()",
	"x = a:b\n'x'",
	"x = f\n{1}",
	"x = f\n'x'",
	"print(\"hello\"); print('world');",
	"local a = 1; local b = 2; a = b;",
	"local t = setmetatable({}, {__index = function(t, k) return k end})",
	"local s = string.format('%d %s', 1, 'x'):rep(2):upper()",
	"return function(...) local a, b = ... return a end",
	"x = 1 -- comment\ny = 2 --[[ long\ncomment ]] z = 3",
	"--[==[\nlong comment\n]==]\nx = 1",
	"x = 1 --[ not long\ny = 2",
	"--[[]] x = 1",
	"x = 1 --",
	"x = 9007199254740993",
	"x = 0x7fffffffffffffff",
	"x = 1e308 * 10",
	"x = 3 % -2",
	"x = 'é'",
	"x = '\\xff'",
	"local a, b, c = 1\nlocal d = a, b, c",
	"a, b = b, a",
	"t[i], t[j] = t[j], t[i]",
	"local x = x",
	"local function f() return f end",
	"local f = function() return 1 end",
	"local f = function() return f end",
	"local f = function() return function() return f end end",
	"local f\nf = function() return f end",
}

// invalid ones, to keep out of snippets by mistake, fail the test.
func TestSnippetsAreValidLuaJIT(t *testing.T) {
	for i, got := range luajitLoad(t, snippets) {
		if got != "" {
			t.Errorf("snippet %q does not load in LuaJIT: %s", snippets[i], got)
		}
	}
}

// randomExpression writes an expression from all of Lua's operators,
// prefixes and atoms, breaking lines at random, to test precedence and
// positions against gopher-lua's grammar.
func randomExpression(r *rand.Rand, depth int) string {
	nl := func() string {
		if r.IntN(4) == 0 {
			return "\n"
		}
		return " "
	}
	if depth <= 0 || r.IntN(5) == 0 {
		atoms := []string{"a", "b", "1", "2.5", "'s'", "[[l]]", "nil", "true", "false", "...", "{}", "{1,x=2}",
			"f()", "t.k", "t[1]", "o:m(1)", "(g())", "(...)", "function() end", "0x10"}
		return atoms[r.IntN(len(atoms))]
	}
	ops := []string{"+", "-", "*", "/", "%", "^", "..", "==", "~=", "<", "<=", ">", ">=", "and", "or"}
	switch r.IntN(6) {
	case 0:
		return []string{"-", "not ", "#"}[r.IntN(3)] + nl() + randomExpression(r, depth-1)
	case 1:
		return "(" + nl() + randomExpression(r, depth-1) + nl() + ")"
	case 2:
		return "f(" + randomExpression(r, depth-1) + "," + nl() + randomExpression(r, depth-1) + ")"
	case 3:
		return "(" + randomExpression(r, depth-1) + ")" + []string{".x", "[1]", ":m()", "()", "{}", "'s'"}[r.IntN(6)]
	default:
		return randomExpression(r, depth-1) + nl() + ops[r.IntN(len(ops))] + nl() + randomExpression(r, depth-1)
	}
}

// generatedSources are random statements built from randomExpression.
func generatedSources(n int) []source {
	r := rand.New(rand.NewPCG(7, 8))
	var out []source
	for i := range n {
		var b strings.Builder
		for range 1 + r.IntN(4) {
			switch r.IntN(5) {
			case 0:
				fmt.Fprintf(&b, "local v = %s\n", randomExpression(r, 4))
			case 1:
				fmt.Fprintf(&b, "return %s, %s\n", randomExpression(r, 3), randomExpression(r, 3))
			case 2:
				fmt.Fprintf(&b, "if %s then\n x = %s\nelseif %s then end\n", randomExpression(r, 3), randomExpression(r, 3), randomExpression(r, 2))
			case 3:
				fmt.Fprintf(&b, "f(%s)\n", randomExpression(r, 4))
			default:
				fmt.Fprintf(&b, "t[ %s ] = {%s, k = %s}\n", randomExpression(r, 2), randomExpression(r, 3), randomExpression(r, 3))
			}
			if strings.Contains(b.String(), "return") {
				break
			}
		}
		out = append(out, source{fmt.Sprintf("generated %d", i), b.String()})
	}
	return out
}

// astCorpus is every valid chunk the AST comparison runs over; skipped
// names the parts that are missing here.
func astCorpus(t *testing.T) (all []source, skipped []string) {
	all = append(all, bundledSources(t)...)
	if s, ok := sysbenchSources(t); ok {
		all = append(all, s...)
	} else {
		skipped = append(skipped, "sysbench's installed scripts (apt-get install sysbench)")
	}
	if s, ok := checkoutSources(t); ok {
		all = append(all, s...)
	} else {
		skipped = append(skipped, "a sysbench 1.0.20 checkout (SYSBENCH_SRC, or /tmp/sysbench-1.0.20)")
	}
	for i, s := range snippets {
		all = append(all, source{fmt.Sprintf("snippet %d", i), s})
	}
	return append(all, generatedSources(3000)...), skipped
}

// The features that explain each kind of disagreement with gopher-lua's
// parser.
const (
	// gopher-lua refuses: LuaJIT syntax it does not know
	gopherRefuses = featGotoName | featIdentByte | featSpace | featComment | featNumber | featEscape | featHeader
	// both accept, with different trees
	gopherDiffers = featEscape | featNumber
)

// compareWithGopher checks one chunk against gopher-lua's parser. It
// returns whether the trees were compared.
func compareWithGopher(t testing.TB, name, src string) bool {
	t.Helper()
	ours, feats, err := parse(strings.NewReader(src), "x.lua")
	theirs, gerr := gopherParse(src)
	switch {
	case err != nil && gerr != nil:
		return false
	case err != nil:
		// LuaJIT refuses more (";;", "(f())" as a statement, "f\n(g)",
		// bad escapes and numbers); whether it refuses this is for the
		// LuaJIT comparisons to say.
		return false
	case gerr != nil:
		if feats&gopherRefuses == 0 {
			t.Errorf("%s: gopher-lua refuses %v, and nothing known explains it:\n%s", name, gerr, src)
		}
		return false
	}
	a, b := dump(ours), dump(theirs)
	if a != b {
		if feats&gopherDiffers == 0 {
			t.Errorf("%s: trees differ: %s\nsource:\n%s", name, firstDifference(a, b), src)
		}
		return false
	}
	return true
}

// TestSameASTAsGopherLua: for every valid chunk at hand, ours and
// gopher-lua's parser build the same tree, positions included.
func TestSameASTAsGopherLua(t *testing.T) {
	corpus, skipped := astCorpus(t)
	for _, s := range skipped {
		t.Logf("not compared (missing): %s", s)
	}
	compared := 0
	for _, s := range corpus {
		if compareWithGopher(t, s.name, s.text) {
			compared++
		}
	}
	t.Logf("%d of %d chunks compared equal", compared, len(corpus))
	if compared < len(corpus)*9/10 {
		t.Errorf("only %d of %d chunks could be compared", compared, len(corpus))
	}
}

// TestCorpusAgreesWithLuaJIT: every chunk of the corpus loads in ours iff
// it loads in LuaJIT, with LuaJIT's message when not.
func TestCorpusAgreesWithLuaJIT(t *testing.T) {
	corpus, _ := astCorpus(t)
	var srcs []string
	for _, s := range corpus {
		srcs = append(srcs, s.text)
	}
	for i, want := range luajitLoad(t, srcs) {
		if got := ourLoad(srcs[i]); got != want {
			t.Errorf("%s: ours %q, LuaJIT %q", corpus[i].name, got, want)
		}
	}
}

// TestMutantsAgreeWithLuaJIT breaks the corpus's chunks at random and
// checks that every message, line and token is LuaJIT's.
func TestMutantsAgreeWithLuaJIT(t *testing.T) {
	corpus := append(bundledSources(t), generatedSources(200)...)
	if s, ok := sysbenchSources(t); ok {
		corpus = append(corpus, s...)
	}
	for _, s := range snippets {
		corpus = append(corpus, source{"", s})
	}
	r := rand.New(rand.NewPCG(9, 10))
	n := 6000
	if testing.Short() {
		n = 1000
	}
	mutants := make([]string, n)
	for i := range mutants {
		m := mutate(r, corpus[r.IntN(len(corpus))].text)
		if r.IntN(3) == 0 {
			m = mutate(r, m)
		}
		mutants[i] = m
	}
	bad := 0
	for i, want := range luajitLoad(t, mutants) {
		got := ourLoad(mutants[i])
		if got != want && !strings.Contains(got, "sysbench-go") {
			if bad++; bad <= 10 {
				t.Errorf("ours %q, LuaJIT %q; source:\n%s", got, want, mutants[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d mutants differ", bad, n)
	}
}

// TestTokenSoupAgreesWithLuaJIT feeds random runs of tokens and pieces of
// tokens, which reach error paths no edit of a valid chunk does.
func TestTokenSoupAgreesWithLuaJIT(t *testing.T) {
	pool := append([]string{"a", "b", "1", "'s'", "t", "f", "=", "(", ")", ",", "end", "\n", " "}, fragments...)
	r := rand.New(rand.NewPCG(42, 43))
	n := 5000
	if testing.Short() {
		n = 1000
	}
	soups := make([]string, n)
	for i := range soups {
		var b strings.Builder
		for range 1 + r.IntN(25) {
			b.WriteString(pool[r.IntN(len(pool))])
			if r.IntN(2) == 0 {
				b.WriteByte(' ')
			}
		}
		soups[i] = b.String()
	}
	bad := 0
	for i, want := range luajitLoad(t, soups) {
		if got := ourLoad(soups[i]); got != want && !strings.Contains(got, "sysbench-go") {
			if bad++; bad <= 10 {
				t.Errorf("ours %q, LuaJIT %q; source: %q", got, want, soups[i])
			}
		}
	}
}
