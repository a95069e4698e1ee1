package compile

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// Generated programs, run under LuaJIT and under ours: assignments that
// mix every kind of target and value, and expressions that mix every
// operator, where register allocation goes wrong if it can.

// assignmentProgram is one program of random multiple assignments to
// locals, upvalues, globals and fields, printing everything after each.
func assignmentProgram(r *rand.Rand) string {
	targets := []string{"a", "b", "c", "u", "v", "g", "h", "t[1]", "t[2]", "t.x", "t[a]", "t[b]", "s.t[1]"}
	values := []string{"a", "b", "c", "u", "v", "g", "h", "t[1]", "t[2]", "t.x", "a + b", "b * 2 - c",
		"1", "2.5", "'s'", "f()", "(f())", "g + u", "t[a] or 0", "-a", "a .. ''"}
	var b strings.Builder
	b.WriteString("local u, v = 4, 5\ng, h = 6, 7\nlocal t = {1, 2, 3, x = 8}\nlocal s = {t = t}\n")
	b.WriteString("local function f() return 9, 10, 11 end\n")
	b.WriteString("local function show(...) local o = {} for i = 1, select('#', ...) do o[i] = tostring((select(i, ...))) end print(table.concat(o, ' ')) end\n")
	b.WriteString("local function run()\n  local a, b, c = 1, 2, 3\n")
	for n := 1 + r.IntN(4); n > 0; n-- {
		nl, nr := 1+r.IntN(4), 1+r.IntN(5)
		lhs := make([]string, nl)
		for i := range lhs {
			lhs[i] = targets[r.IntN(len(targets))]
		}
		rhs := make([]string, nr)
		for i := range rhs {
			rhs[i] = values[r.IntN(len(values))]
		}
		fmt.Fprintf(&b, "  %s = %s\n", strings.Join(lhs, ", "), strings.Join(rhs, ", "))
		b.WriteString("  show(a, b, c, u, v, g, h, t[1], t[2], t[3], t.x)\n")
	}
	b.WriteString("end\nrun()\n")
	return b.String()
}

// expression builds a random expression of depth at most d over locals
// x, y, z (numbers), s (a string), n (nil) and k (a table).
func expression(r *rand.Rand, d int) string {
	leaves := []string{"x", "y", "z", "s", "1", "0", "-1", "2.5", "'a'", "'10'", "n", "true", "false", "k.p", "k[1]", "#s"}
	if d == 0 || r.IntN(4) == 0 {
		return leaves[r.IntN(len(leaves))]
	}
	a, c := expression(r, d-1), expression(r, d-1)
	switch r.IntN(13) {
	case 0:
		return "(" + a + " and " + c + ")"
	case 1:
		return "(" + a + " or " + c + ")"
	case 2:
		return "(not " + a + ")"
	case 3:
		return "(" + a + " == " + c + ")"
	case 4:
		return "(" + a + " ~= " + c + ")"
	case 5:
		ops := []string{"<", "<=", ">", ">="}
		return "(" + a + " " + ops[r.IntN(len(ops))] + " " + c + ")"
	case 6:
		ops := []string{"+", "-", "*", "/", "%", "^"}
		return "(" + a + " " + ops[r.IntN(len(ops))] + " " + c + ")"
	case 7:
		return "(- " + a + ")"
	case 8:
		return "(" + a + " .. " + c + ")"
	case 9:
		return "((" + a + ") and (" + c + ") or " + expression(r, d-1) + ")"
	case 10:
		k := []string{"true", "false", "nil", "1"}
		return "(((" + k[r.IntN(4)] + " or " + k[r.IntN(4)] + ") and " + k[r.IntN(4)] + ") or " + a + ")"
	case 11:
		return "id(" + a + ", " + c + ")"
	default:
		return "({" + a + ", " + c + "})[1 + (x % 2)]"
	}
}

func expressionProgram(r *rand.Rand) string {
	var b strings.Builder
	b.WriteString("local x, y, z, s, n = 3, -2, 0.5, 'str', nil\nlocal k = {p = 7, 8}\nlocal function id(...) return ... end\n")
	for i := 0; i < 4; i++ {
		e := expression(r, 4)
		// Each in a pcall of its own: an error in one (comparing a number
		// with a string) does not hide the others. Its wording is the
		// run-time's business, not the compiler's.
		fmt.Fprintf(&b, "do local ok, r = pcall(function() return %s end) if ok then print(r) else print('error') end end\n", e)
		fmt.Fprintf(&b, "do local ok, r = pcall(function() if %s then return 'then' end return 'else' end) print(ok and r or 'error') end\n", e)
	}
	return b.String()
}

func generated(n int, seed uint64, gen func(*rand.Rand) string) (names, srcs []string) {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	for i := 0; i < n; i++ {
		names = append(names, fmt.Sprintf("program %d (seed %d)", i, seed))
		srcs = append(srcs, gen(r))
	}
	return names, srcs
}

// TestGeneratedAssignments: random multiple assignments give LuaJIT's
// values; a program that raises (a nil index) raises in both after the
// same output.
func TestGeneratedAssignments(t *testing.T) {
	names, srcs := generated(400, 1, assignmentProgram)
	compareWithLuaJIT(t, names, srcs, false)
}

// TestGeneratedExpressions: random expressions give LuaJIT's values,
// truth and errors (the error's presence; the wording is the run-time's).
func TestGeneratedExpressions(t *testing.T) {
	names, srcs := generated(300, 2, expressionProgram)
	compareWithLuaJIT(t, names, srcs, false)
}
