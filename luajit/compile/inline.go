package compile

import (
	"reflect"
	"sync"

	"github.com/yuin/gopher-lua/ast"

	"github.com/sysbench-go/sysbench-go/luajit/parse"
)

// Inlining small local functions. A script's helpers are often wrappers
// such as
//
//	local function get_id() return sysbench.rand.default(1, sysbench.opt.table_size) end
//
// called on every event: in gopher-lua a Lua call and its return cost
// about as much as two field lookups. Such a function's calls compile to
// its body when the compiler can show the two are the same:
//
//   - it takes no parameters and its body is one "return f(...)", a call
//     whose function and arguments read only globals and constants
//     (fields of them, operators, further calls; no function, table or
//     "..." expressions), so the body has no variables of its own and its
//     call returns what the function would return;
//   - the local is never assigned and never used but called with no
//     arguments: no code holds the function as a value, so no code can
//     give it another environment or replace it (the debug library and
//     setfenv aside: a chunk that names setfenv or debug inlines nothing);
//   - at the call, every global the body reads is still a global (no local
//     of that name in between).
//
// The call site keeps the upvalue it would have had (debug.getupvalue
// sees the same list), the body's instructions keep the body's lines (an
// error in it names the same line), and the body's own call is a plain
// call where the function had a tail call: the stack the called function
// sees is the one LuaJIT gives a tail call, without the wrapper's frame.
// What differs: an error raised while the body reads its globals, before
// its call, is traced back without the wrapper's frame (its line shows in
// the caller's).

// inlineBody returns the body's call of x, a local function statement
// followed by rest in its block, when x's calls may compile to it; nil
// otherwise.
func (c *compiler) inlineBody(x *parse.LocalFunctionStmt, rest []ast.Stmt) *ast.FuncCallExpr {
	if c.noInline {
		return nil
	}
	f := x.Func
	if f.ParList != nil && (len(f.ParList.Names) > 0 || f.ParList.HasVargs) {
		return nil
	}
	if len(f.Stmts) != 1 {
		return nil
	}
	ret, ok := f.Stmts[0].(*ast.ReturnStmt)
	if !ok || len(ret.Exprs) != 1 {
		return nil
	}
	call, ok := ret.Exprs[0].(*ast.FuncCallExpr)
	if !ok || call.AdjustRet || !pureExpr(call, x.Name) {
		return nil
	}
	if !onlyCalled(rest, x.Name) {
		return nil
	}
	return call
}

// pureExpr reports whether e reads only names (other than self), fields,
// constants, operators and calls of those.
func pureExpr(e ast.Expr, self string) bool {
	switch x := e.(type) {
	case *ast.NilExpr, *ast.TrueExpr, *ast.FalseExpr, *ast.NumberExpr, *ast.StringExpr:
		return true
	case *ast.IdentExpr:
		return x.Value != self
	case *ast.AttrGetExpr:
		return pureExpr(x.Object, self) && pureExpr(x.Key, self)
	case *ast.FuncCallExpr:
		if x.Receiver != nil {
			if !pureExpr(x.Receiver, self) {
				return false
			}
		} else if !pureExpr(x.Func, self) {
			return false
		}
		for _, a := range x.Args {
			if !pureExpr(a, self) {
				return false
			}
		}
		return true
	case *ast.ArithmeticOpExpr:
		return pureExpr(x.Lhs, self) && pureExpr(x.Rhs, self)
	case *ast.StringConcatOpExpr:
		return pureExpr(x.Lhs, self) && pureExpr(x.Rhs, self)
	case *ast.RelationalOpExpr:
		return pureExpr(x.Lhs, self) && pureExpr(x.Rhs, self)
	case *ast.LogicalOpExpr:
		return pureExpr(x.Lhs, self) && pureExpr(x.Rhs, self)
	case *ast.UnaryMinusOpExpr:
		return pureExpr(x.Expr, self)
	case *ast.UnaryNotOpExpr:
		return pureExpr(x.Expr, self)
	case *ast.UnaryLenOpExpr:
		return pureExpr(x.Expr, self)
	}
	return false
}

// globalNames appends the names e reads.
func globalNames(e ast.Expr, names []string) []string {
	walkNodes(reflect.ValueOf(e), func(n any) {
		if id, ok := n.(*ast.IdentExpr); ok {
			names = append(names, id.Value)
		}
	})
	return names
}

// onlyCalled reports whether, in stmts, name appears only as the function
// of calls without arguments: never assigned, passed, declared again or
// captured as a value. A name declared again anywhere counts against it
// (the scan does not follow scopes).
func onlyCalled(stmts []ast.Stmt, name string) bool {
	idents, calls, other := 0, 0, false
	walkNodes(reflect.ValueOf(stmts), func(n any) {
		switch x := n.(type) {
		case *ast.IdentExpr:
			if x.Value == name {
				idents++
			}
		case *ast.FuncCallExpr:
			if id, ok := x.Func.(*ast.IdentExpr); ok && x.Receiver == nil && id.Value == name && len(x.Args) == 0 {
				calls++
			}
		case *ast.LocalAssignStmt:
			other = other || contains(x.Names, name)
		case *parse.LocalFunctionStmt:
			other = other || x.Name == name
		case *ast.FunctionExpr:
			other = other || x.ParList != nil && contains(x.ParList.Names, name)
		case *ast.NumberForStmt:
			other = other || x.Name == name
		case *ast.GenericForStmt:
			other = other || contains(x.Names, name)
		}
	})
	return !other && idents == calls
}

// mentions reports whether stmts name any of names (as a variable).
func mentions(stmts []ast.Stmt, names ...string) bool {
	found := false
	walkNodes(reflect.ValueOf(stmts), func(n any) {
		if id, ok := n.(*ast.IdentExpr); ok && contains(names, id.Value) {
			found = true
		}
	})
	return found
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// walkNodes calls fn on every syntax node under v (statements,
// expressions and what they hold), parents first.
func walkNodes(v reflect.Value, fn func(any)) {
	switch v.Kind() {
	case reflect.Interface:
		if !v.IsNil() {
			walkNodes(v.Elem(), fn)
		}
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		// A type assertion, whose answer the runtime caches per type:
		// reflect's Implements looks through the methods every time.
		switch n := v.Interface().(type) {
		case ast.Expr, ast.Stmt:
			fn(n)
		}
		walkNodes(v.Elem(), fn)
	case reflect.Struct:
		for _, i := range exportedFields(v.Type()) {
			walkNodes(v.Field(i), fn)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			walkNodes(v.Index(i), fn)
		}
	}
}

// exportedFields are the indexes of a struct type's exported fields,
// the ones walkNodes follows, worked out once per type.
func exportedFields(t reflect.Type) []int {
	if f, ok := fieldsOf.Load(t); ok {
		return f.([]int)
	}
	var f []int
	for i := 0; i < t.NumField(); i++ {
		if t.Field(i).IsExported() {
			f = append(f, i)
		}
	}
	fieldsOf.Store(t, f)
	return f
}

var fieldsOf sync.Map // reflect.Type -> []int

// inlineCall compiles x, a call of a local function without arguments,
// as that function's body when the function is inlinable (see above) and
// the body's names are globals here too. It reports whether it did.
func (fs *funcState) inlineCall(x *ast.FuncCallExpr, e *exp) bool {
	if x.Receiver != nil || len(x.Args) != 0 {
		return false
	}
	id, ok := x.Func.(*ast.IdentExpr)
	if !ok {
		return false
	}
	v := fs.visibleLocal(id.Value)
	if v == nil || v.inline == nil {
		return false
	}
	for _, n := range globalNames(v.inline, nil) {
		if fs.visibleLocal(n) != nil {
			return false
		}
	}
	// The upvalue the call would have captured stays captured.
	var f exp
	fs.singleVar(id.Value, &f)
	fs.call(v.inline, e)
	if fs.inlined == nil {
		fs.inlined = map[int]bool{}
	}
	fs.inlined[e.info] = true
	fs.line = callLine(x)
	return true
}

// visibleLocal is the local variable name resolves to here, in fs or an
// enclosing function, without capturing it; nil for a global.
func (fs *funcState) visibleLocal(name string) *localVar {
	for f := fs; f != nil; f = f.parent {
		if r := f.findLocal(name); r >= 0 {
			return f.actvars[r]
		}
	}
	return nil
}
