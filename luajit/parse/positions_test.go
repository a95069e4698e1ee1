package parse

import (
	"fmt"
	"strings"
	"testing"

	"github.com/yuin/gopher-lua/ast"
)

func TestPositions(t *testing.T) {
	src := "local x = sysbench.rand.unifrom(1, 'a')\n" +
		"function M.f:g(a) return -a end\n" +
		"\tcon:query [[x]]\n" +
		"t = { name = 1, 2LL }\n"
	chunk, ps, err := ParseWithPositions(strings.NewReader(src), "t.lua")
	if err != nil {
		t.Fatal(err)
	}
	at := func(n any) string {
		line, col, ok := ps.Of(n)
		if !ok {
			return "none"
		}
		return fmt.Sprintf("%d:%d", line, col)
	}
	local := chunk[0].(*ast.LocalAssignStmt)
	call := local.Exprs[0].(*ast.FuncCallExpr)
	fn := call.Func.(*ast.AttrGetExpr)
	def := chunk[1].(*ast.FuncDefStmt)
	ret := def.Func.Stmts[0].(*ast.ReturnStmt)
	method := chunk[2].(*ast.FuncCallStmt).Expr.(*ast.FuncCallExpr)
	table := chunk[3].(*ast.AssignStmt).Rhs[0].(*ast.TableExpr)
	for _, c := range []struct {
		what string
		node any
		want string
	}{
		{"local statement", chunk[0], "1:1"},
		{"field name", fn.Key, "1:25"},
		{"name", fn.Object.(*ast.AttrGetExpr).Object, "1:11"},
		{"number", call.Args[0], "1:33"},
		{"string", call.Args[1], "1:36"},
		{"function statement", def, "2:1"},
		{"function name", def.Name.Receiver.(*ast.AttrGetExpr).Object, "2:10"},
		{"method name", def.Name, "2:14"},
		{"parameters", def.Func, "2:15"},
		{"unary", ret.Exprs[0], "2:26"},
		{"method call", method, "3:6"},
		{"long string argument", method.Args[0], "3:12"},
		{"table", table, "4:5"},
		{"table key", table.Fields[0].Key, "4:7"},
		{"64-bit literal", table.Fields[1].Value, "4:17"},
	} {
		if got := at(c.node); got != c.want {
			t.Errorf("%s at %s, want %s", c.what, got, c.want)
		}
	}
	if ps.Lines() != 4 || ps.Line(3) != "\tcon:query [[x]]" {
		t.Errorf("Lines() = %d, Line(3) = %q", ps.Lines(), ps.Line(3))
	}
	// Parse records nothing, and gives the same tree.
	plain, err := Parse(strings.NewReader(src), "t.lua")
	if err != nil || len(plain) != len(chunk) {
		t.Errorf("Parse: %d statements, %v", len(plain), err)
	}
}
