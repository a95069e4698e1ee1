package parse

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/yuin/gopher-lua/ast"
	gluaparse "github.com/yuin/gopher-lua/parse"
)

// dump prints an AST with every field and position, telling nil slices
// from empty ones, so two parsers' trees compare as text. A number shows
// the float64 gopher-lua's compiler makes of it, not its spelling.
func dump(chunk []ast.Stmt) string {
	var b strings.Builder
	dumpValue(&b, reflect.ValueOf(chunk), "")
	return b.String()
}

func dumpValue(b *strings.Builder, v reflect.Value, indent string) {
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		dumpValue(b, v.Elem(), indent)
	case reflect.Ptr:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		if lf, ok := v.Interface().(*LocalFunctionStmt); ok {
			// gopher-lua's tree has "local function" as this assignment.
			st := &ast.LocalAssignStmt{Names: []string{lf.Name}, Exprs: []ast.Expr{lf.Func}}
			st.SetLine(lf.Line())
			st.SetLastLine(lf.LastLine())
			dumpValue(b, reflect.ValueOf(st), indent)
			return
		}
		if n, ok := v.Interface().(*ast.NumberExpr); ok {
			fmt.Fprintf(b, "NumberExpr@%d{%s}", n.Line(), compiledNumber(n.Value))
			return
		}
		e := v.Elem()
		if ph, ok := v.Interface().(ast.PositionHolder); ok {
			fmt.Fprintf(b, "%s@%d-%d{", e.Type().Name(), ph.Line(), gopherLastLine(v.Interface(), ph))
		} else {
			fmt.Fprintf(b, "%s{", e.Type().Name())
		}
		for i := 0; i < e.NumField(); i++ {
			f := e.Type().Field(i)
			if f.Anonymous {
				continue
			}
			fmt.Fprintf(b, "\n%s  %s: ", indent, f.Name)
			dumpValue(b, e.Field(i), indent+"  ")
		}
		b.WriteString("}")
	case reflect.Slice:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		b.WriteString("[")
		for i := 0; i < v.Len(); i++ {
			fmt.Fprintf(b, "\n%s  ", indent)
			dumpValue(b, v.Index(i), indent+"  ")
		}
		b.WriteString("]")
	default:
		fmt.Fprintf(b, "%#v", v.Interface())
	}
}

// gopherLastLine is a node's LastLine where gopher-lua's parser sets it
// too (blocks, function bodies), 0 for the nodes whose LastLine is ours
// alone (where LuaJIT places their code).
func gopherLastLine(n any, ph ast.PositionHolder) int {
	switch n.(type) {
	case *ast.AssignStmt, *ast.ReturnStmt:
		return 0
	case *ast.FunctionExpr, ast.Stmt:
		return ph.LastLine()
	}
	return 0
}

// compiledNumber is the value gopher-lua's compiler gives a NumberExpr
// (its parseNumber: strconv.ParseInt base 0, then ParseFloat, else NaN).
func compiledNumber(s string) string {
	s = strings.Trim(s, " \t\n")
	var v float64
	if i, err := strconv.ParseInt(s, 0, 64); err == nil {
		v = float64(i)
	} else if f, err := strconv.ParseFloat(s, 64); err == nil {
		v = f
	} else {
		v = math.NaN()
	}
	return strconv.FormatUint(math.Float64bits(v), 16) + "=" + strconv.FormatFloat(v, 'g', -1, 64)
}

// gopherParse runs gopher-lua's own parser, which may panic on input it
// was not made for; that counts as a refusal.
func gopherParse(src string) (chunk []ast.Stmt, err error) {
	defer func() {
		if e := recover(); e != nil {
			chunk, err = nil, fmt.Errorf("gopher-lua parser panic: %v", e)
		}
	}()
	if strings.HasPrefix(src, "#") {
		src = "--" + src[1:] // gopher-lua has no "#" first line; a comment keeps the lines
	}
	return gluaparse.Parse(strings.NewReader(src), "x.lua")
}

// firstDifference shows where two dumps part.
func firstDifference(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			lo := max(0, i-6)
			return fmt.Sprintf("dump line %d:\nours:   %q\ngopher: %q\ncontext (ours):\n%s", i+1, x, y, strings.Join(al[lo:min(len(al), i+3)], "\n"))
		}
	}
	return ""
}
