package authoring

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/yuin/gopher-lua/ast"
)

// constSQL is the text of a statement the source spells out: a string,
// a local given one string and never another, constants joined with
// .., or string.format of a constant format whose conversions are
// integers only (a number cannot add a '?').
func (w *walker) constSQL(e ast.Expr) (string, bool) {
	switch x := e.(type) {
	case *ast.StringExpr:
		return x.Value, true
	case *ast.NumberExpr:
		return x.Value, true
	case *ast.IdentExpr:
		sym := w.sc.lookup(x.Value)
		if sym == nil || w.reassigned[symKey{sym.decl, sym.idx}] {
			return "", false
		}
		v, ok := w.consts[sym]
		return v, ok
	case *ast.StringConcatOpExpr:
		l, ok1 := w.constSQL(x.Lhs)
		r, ok2 := w.constSQL(x.Rhs)
		return l + r, ok1 && ok2
	case *ast.FuncCallExpr:
		a, ok := x.Func.(*ast.AttrGetExpr)
		if !ok || x.Receiver != nil || len(x.Args) == 0 {
			return "", false
		}
		obj, ok1 := a.Object.(*ast.IdentExpr)
		key, ok2 := a.Key.(*ast.StringExpr)
		f, ok3 := x.Args[0].(*ast.StringExpr)
		if !ok1 || !ok2 || !ok3 || obj.Value != "string" || key.Value != "format" {
			return "", false
		}
		return integerFormat(f.Value)
	}
	return "", false
}

// integerFormat is format with its conversions made 0, when they are all
// integer ones (%d %i %u %x %X %o, with flags and widths) or %%.
func integerFormat(format string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("-+ #0123456789.", format[j]) >= 0 {
			j++
		}
		if j >= len(format) {
			return "", false
		}
		switch format[j] {
		case '%':
			b.WriteByte('%')
		case 'd', 'i', 'u', 'x', 'X', 'o':
			b.WriteByte('0')
		default:
			return "", false
		}
		i = j
	}
	return b.String(), true
}

// placeholders counts the '?' of a statement as the drivers read them:
// outside quotes, backquotes and comments. -1 when the text has what a
// driver may read otherwise (PostgreSQL's ?| ?& ?? operators, $1
// parameters, an unterminated quote).
func placeholders(sql string) int {
	n := 0
	for i := 0; i < len(sql); i++ {
		switch c := sql[i]; c {
		case '\'', '"', '`':
			j := i + 1
			for ; j < len(sql); j++ {
				if sql[j] == '\\' && c != '`' {
					j++
					continue
				}
				if sql[j] == c {
					if j+1 < len(sql) && sql[j+1] == c {
						j++ // a doubled quote
						continue
					}
					break
				}
			}
			if j >= len(sql) {
				return -1
			}
			i = j
		case '-':
			if i+1 < len(sql) && sql[i+1] == '-' {
				for i < len(sql) && sql[i] != '\n' {
					i++
				}
			}
		case '#':
			for i < len(sql) && sql[i] != '\n' {
				i++
			}
		case '/':
			if i+1 < len(sql) && sql[i+1] == '*' {
				end := strings.Index(sql[i+2:], "*/")
				if end < 0 {
					return -1
				}
				i += end + 3
			}
		case '$':
			if i+1 < len(sql) && sql[i+1] >= '0' && sql[i+1] <= '9' {
				return -1
			}
		case '?':
			if i+1 < len(sql) && strings.IndexByte("|&?", sql[i+1]) >= 0 {
				return -1
			}
			n++
		}
	}
	return n
}

// statement is a prepared statement the source spells out.
type statement struct {
	to   varPath
	sql  string
	n    int // its placeholders
	line int
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// parameters: a statement whose binds and placeholders differ.
func (a *analysis) parameters(fx *facts, add addFunc) {
	for _, st := range a.statements() {
		desc := fmt.Sprintf("a statement with %s ('?'; prepared at line %d)", plural(st.n, "placeholder"), st.line)
		on := func(c call, method string) bool {
			return c.method == method && c.recv.kind == srcVar && c.recv.path == st.to
		}
		legacyBind := func(c call) bool {
			return c.path != "" && a.c.surface.Canonical[c.path] == "sysbench.db.bind_param" && c.arg0 == st.to
		}
		bound := false
		for _, f := range a.files {
			for _, c := range f.facts.calls {
				bound = bound || on(c, "bind_param") || legacyBind(c)
			}
		}
		for _, c := range fx.calls {
			switch {
			case on(c, "bind_param"):
				if !a.multi(c) && c.nargs != st.n {
					add(c.at, KindParameterCount, "bind_param binds %s to %s", plural(c.nargs, "parameter"), desc)
				}
			case on(c, "execute"):
				switch {
				case !a.multi(c) && c.nargs > st.n:
					add(c.at, KindParameterCount, "execute gives %s to %s", plural(c.nargs, "value"), desc)
				case bound || st.n == 0 || a.escapes(st.to):
				case c.nargs == 0:
					add(c.at, KindParameterCount, "execute runs %s, none bound (bind_create, bind_param)", desc)
				default:
					add(c.at, KindParameterCount, "execute gives %s to %s, none bound to take them (bind_create, bind_param)",
						plural(c.nargs, "value"), desc)
				}
			case legacyBind(c) && len(c.e.Args) > 1:
				if t, ok := c.e.Args[1].(*ast.TableExpr); ok {
					if k, ok := positional(t); ok && k != st.n {
						add(c.at, KindParameterCount, "%s binds %s to %s", c.path, plural(k, "parameter"), desc)
					}
				}
			}
		}
	}
}

// positional is the number of values a table constructor of positional
// fields holds, when it is fixed.
func positional(t *ast.TableExpr) (int, bool) {
	for i, f := range t.Fields {
		if f.Key != nil || (i == len(t.Fields)-1 && isMulti(f.Value)) {
			return 0, false
		}
	}
	return len(t.Fields), true
}

// statements are the program's prepared statements whose text the source
// spells out, each held by a variable (or a field) that nothing else is
// assigned to.
func (a *analysis) statements() []statement {
	var out []statement
	for _, f := range a.files {
		for _, c := range f.facts.calls {
			if !c.target.v.valid() || len(c.e.Args) != 1 {
				continue
			}
			isPrepare := c.method == "prepare" && a.typeOfSource(*c.recv) == "sql_connection"
			isPrepare = isPrepare || (c.path != "" && a.c.surface.Canonical[c.path] == "sysbench.db.prepare" &&
				!a.globalWrites[c.path])
			if !isPrepare {
				continue
			}
			if !c.sqlOK {
				continue
			}
			sql := c.sql
			n := placeholders(sql)
			if n < 0 || !a.onlyAssignment(c.target, c.e) {
				continue
			}
			out = append(out, statement{to: c.target, sql: sql, n: n, line: c.e.Line()})
		}
	}
	return out
}

// onlyAssignment says the value of the call e is the only one the
// program gives vp (and no container above it is replaced).
func (a *analysis) onlyAssignment(vp varPath, e ast.Expr) bool {
	want := splitSteps(vp.steps)
	for _, as := range a.assigns[vp.v] {
		got := splitSteps(as.to.steps)
		switch {
		case len(got) == len(want) && stepsMatch(got, want):
			if as.rhs != e && as.src.kind != srcNil {
				return false
			}
		case len(got) < len(want) && stepsMatch(got, want[:len(got)]):
			if as.src.kind != srcTable && as.src.kind != srcNil {
				return false
			}
		}
	}
	return true
}

// escapes says the variable of vp is used other than through its fields
// and methods somewhere: passed on, another name given to it.
func (a *analysis) escapes(vp varPath) bool {
	for _, f := range a.files {
		if f.facts.escapes[vp.v] {
			return true
		}
	}
	return false
}
