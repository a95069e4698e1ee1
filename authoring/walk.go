package authoring

import (
	"strings"

	"github.com/yuin/gopher-lua/ast"

	"github.com/sysbench-go/sysbench-go/luajit/parse"
)

// A walk of one file's tree collects the facts the checks need: which
// globals it reads and writes, which paths of the API it reads, writes and
// calls, what it assigns to which variables (for the types of the API's
// objects), its option declarations and reads, and the modules it loads.
// It resolves names to locals or globals as Lua scopes them.

// scope is a block's locals.
type scope struct {
	parent *scope
	names  map[string]*symbol
}

func (s *scope) lookup(name string) *symbol {
	for ; s != nil; s = s.parent {
		if sym, ok := s.names[name]; ok {
			return sym
		}
	}
	return nil
}

func (s *scope) visible() []string {
	var names []string
	seen := map[string]bool{}
	for ; s != nil; s = s.parent {
		for n := range s.names {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	return names
}

// walker walks one file.
type walker struct {
	f     *file
	sc    *scope
	facts *facts
	// aliases are locals that hold a table of a constant path (local
	// opt = sysbench.opt) and are never assigned again; reassigned are
	// the locals assigned after their declaration (a first walk finds
	// them: the second trusts an alias only when it is not).
	aliases    map[*symbol]string
	consts     map[*symbol]string // locals declared with a constant string
	reassigned map[any]bool       // symbol decl/idx pairs, by symKey
	collect    bool
	// fn is the named function being walked (its variable), for what it
	// returns; invalid in the main chunk and anonymous functions.
	fn varKey
}

type symKey struct {
	decl any
	idx  int
}

// walkFile collects the facts of f.
func walkFile(f *file) *facts {
	first := &walker{f: f, reassigned: map[any]bool{}, aliases: map[*symbol]string{}, consts: map[*symbol]string{},
		facts: newFacts()}
	first.block(f.chunk, nil)
	w := &walker{f: f, reassigned: first.reassigned, aliases: map[*symbol]string{}, consts: map[*symbol]string{},
		facts: newFacts(), collect: true}
	w.block(f.chunk, nil)
	return w.facts
}

func newFacts() *facts {
	return &facts{globalWrites: map[string][]ref{}, pathWrites: map[string][]ref{}, openPaths: map[string]bool{},
		optReads: map[string][]ref{}, escapes: map[varKey]bool{}, returns: map[varKey][]returned{}}
}

func (w *walker) at(node any, line int) ref { return ref{f: w.f, node: node, line: line} }

func (w *walker) push() { w.sc = &scope{parent: w.sc, names: map[string]*symbol{}} }
func (w *walker) pop()  { w.sc = w.sc.parent }

func (w *walker) declare(name string, decl any, idx int) *symbol {
	sym := &symbol{name: name, decl: decl, idx: idx}
	w.sc.names[name] = sym
	return sym
}

// block walks statements in a scope of their own; declare, when set,
// declares names first (a function's parameters, a loop's variables).
func (w *walker) block(stmts []ast.Stmt, declare func()) {
	w.push()
	defer w.pop()
	if declare != nil {
		declare()
	}
	for _, st := range stmts {
		w.stmt(st)
	}
}

func (w *walker) stmt(st ast.Stmt) {
	switch s := st.(type) {
	case *ast.AssignStmt:
		for _, e := range s.Rhs {
			w.expr(e, exprUse{})
		}
		for i, lhs := range s.Lhs {
			var rhs ast.Expr
			var src source
			last := len(s.Rhs) - 1
			switch {
			case i <= last:
				rhs = s.Rhs[i]
				src = w.sourceOf(rhs)
			case last >= 0 && isMulti(s.Rhs[last]):
				src = w.resultOf(s.Rhs[last], i-last) // a further result of a call
			default:
				rhs = &ast.NilExpr{}
				src = source{kind: srcNil}
			}
			w.assign(lhs, rhs, src)
		}
	case *ast.LocalAssignStmt:
		for i, e := range s.Exprs {
			use := exprUse{}
			if _, ok := w.staticPath(e); ok && i < len(s.Names) && !w.reassigned[symKey{s, i}] {
				use.indexed = true // an alias (local opt = sysbench.opt): its uses count, not this
			}
			w.expr(e, use)
		}
		for i, name := range s.Names {
			sym := w.declare(name, s, i)
			var rhs ast.Expr
			if i < len(s.Exprs) {
				rhs = s.Exprs[i]
			} else if len(s.Exprs) == 0 || !isMulti(s.Exprs[len(s.Exprs)-1]) {
				rhs = &ast.NilExpr{}
			}
			if rhs == nil {
				// A further result of the last value, a call.
				last := len(s.Exprs) - 1
				w.record(varPath{v: varKey{sym: sym}}, w.resultOf(s.Exprs[last], i-last), nil)
				continue
			}
			if f, ok := rhs.(*ast.FunctionExpr); ok {
				w.record(varPath{v: varKey{sym: sym}}, source{}, rhs)
				w.namedFunction(f, varKey{sym: sym}, false)
				continue
			}
			if p, ok := w.staticPath(rhs); ok && !w.reassigned[symKey{s, i}] {
				w.aliases[sym] = p
			}
			if v, ok := w.constSQL(rhs); ok {
				w.consts[sym] = v
			}
			w.record(varPath{v: varKey{sym: sym}}, w.sourceOf(rhs), rhs)
			if c, ok := rhs.(*ast.FuncCallExpr); ok {
				w.setTarget(c, varPath{v: varKey{sym: sym}})
			}
		}
	case *ast.FuncCallStmt:
		w.expr(s.Expr, exprUse{})
	case *ast.DoBlockStmt:
		w.block(s.Stmts, nil)
	case *ast.WhileStmt:
		w.expr(s.Condition, exprUse{guarded: true})
		w.block(s.Stmts, nil)
	case *ast.RepeatStmt:
		// The condition sees the body's locals.
		w.push()
		for _, b := range s.Stmts {
			w.stmt(b)
		}
		w.expr(s.Condition, exprUse{guarded: true})
		w.pop()
	case *ast.IfStmt:
		w.expr(s.Condition, exprUse{guarded: true})
		w.block(s.Then, nil)
		w.block(s.Else, nil)
	case *ast.NumberForStmt:
		w.expr(s.Init, exprUse{})
		w.expr(s.Limit, exprUse{})
		if s.Step != nil {
			w.expr(s.Step, exprUse{})
		}
		w.block(s.Stmts, func() { w.declare(s.Name, s, 0) })
	case *ast.GenericForStmt:
		for _, e := range s.Exprs {
			w.expr(e, exprUse{})
		}
		w.block(s.Stmts, func() {
			for i, n := range s.Names {
				w.declare(n, s, i)
			}
		})
	case *ast.FuncDefStmt:
		w.funcDef(s)
	case *parse.LocalFunctionStmt:
		sym := w.declare(s.Name, s, 0)
		w.record(varPath{v: varKey{sym: sym}}, source{}, s.Func)
		w.namedFunction(s.Func, varKey{sym: sym}, false)
	case *ast.ReturnStmt:
		for _, e := range s.Exprs {
			w.expr(e, exprUse{})
		}
		if w.collect && w.fn.valid() {
			r := returned{}
			for _, e := range s.Exprs {
				r.srcs = append(r.srcs, w.sourceOf(e))
			}
			r.multi = len(s.Exprs) > 0 && isMulti(s.Exprs[len(s.Exprs)-1])
			w.facts.returns[w.fn] = append(w.facts.returns[w.fn], r)
		}
	}
}

// funcDef is "function a.b.c()" or "function a.b:c()".
func (w *walker) funcDef(s *ast.FuncDefStmt) {
	name := s.Name
	if name.Func != nil {
		var key varKey
		if id, ok := name.Func.(*ast.IdentExpr); ok {
			if sym := w.sc.lookup(id.Value); sym != nil {
				key.sym = sym
			} else {
				key.global = id.Value
				if w.collect {
					w.facts.funcDefs = append(w.facts.funcDefs, funcDef{name: id.Value, at: w.at(id, id.Line())})
				}
			}
		}
		w.assign(name.Func, s.Func, source{})
		w.namedFunction(s.Func, key, false)
		return
	}
	// A method: a field of the receiver's value.
	w.expr(name.Receiver, exprUse{indexed: true})
	key := &ast.StringExpr{Value: name.Method}
	key.SetLine(s.Line())
	if w.f.pos != nil {
		if off, ok := w.f.pos.Offset(name); ok {
			w.f.extra[key] = off
		}
	}
	w.assign(&ast.AttrGetExpr{Object: name.Receiver, Key: key}, s.Func, source{})
	w.namedFunction(s.Func, varKey{}, true)
}

// namedFunction walks a function held by the variable key, noting what
// it returns.
func (w *walker) namedFunction(f *ast.FunctionExpr, key varKey, self bool) {
	outer := w.fn
	w.fn = key
	w.function(f, self)
	w.fn = outer
}

func (w *walker) function(f *ast.FunctionExpr, self bool) {
	w.block(f.Stmts, func() {
		if self {
			w.declare("self", f, -1)
		}
		for i, n := range f.ParList.Names {
			w.declare(n, f, i)
		}
	})
}

// isMulti says e can give several values (a call, ...).
func isMulti(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.FuncCallExpr:
		return !x.AdjustRet
	case *ast.Comma3Expr:
		return !x.AdjustRet
	}
	return false
}

// assign records lhs = rhs, a value made as src says (rhs nil: a value
// the walk cannot see, as the second result of a call).
func (w *walker) assign(lhs, rhs ast.Expr, src source) {
	switch l := lhs.(type) {
	case *ast.IdentExpr:
		if sym := w.sc.lookup(l.Value); sym != nil {
			w.reassigned[symKey{sym.decl, sym.idx}] = true
			delete(w.aliases, sym)
			w.record(varPath{v: varKey{sym: sym}}, src, rhs)
			w.targetCall(rhs, varPath{v: varKey{sym: sym}})
			return
		}
		if w.collect {
			w.facts.globalWrites[l.Value] = append(w.facts.globalWrites[l.Value], w.at(l, l.Line()))
		}
		w.record(varPath{v: varKey{global: l.Value}}, src, rhs)
		w.targetCall(rhs, varPath{v: varKey{global: l.Value}})
	case *ast.AttrGetExpr:
		w.expr(l.Object, exprUse{indexed: true})
		key, constKey := l.Key.(*ast.StringExpr)
		if !constKey {
			w.expr(l.Key, exprUse{})
		}
		if p, ok := w.staticPath(l.Object); ok {
			w.pathWrite(p, key, constKey, rhs)
		}
		if vp, ok := w.varPathOf(lhs); ok {
			w.record(vp, src, rhs)
			w.targetCall(rhs, vp)
		}
	default:
		w.expr(lhs, exprUse{})
	}
}

// pathWrite records a write to a field of a constant path of the globals.
func (w *walker) pathWrite(obj string, key *ast.StringExpr, constKey bool, rhs ast.Expr) {
	if !w.collect {
		return
	}
	fx := w.facts
	if !constKey {
		switch obj {
		case "":
			fx.openGlobals = true
		case "sysbench.cmdline.options":
			fx.optDeclared, fx.optDynamic = true, true
		default:
			fx.openPaths[obj] = true
		}
		return
	}
	full := key.Value
	if obj != "" {
		full = obj + "." + key.Value
	}
	if obj == "" {
		fx.globalWrites[key.Value] = append(fx.globalWrites[key.Value], w.at(key, key.Line()))
		return
	}
	fx.pathWrites[full] = append(fx.pathWrites[full], w.at(key, key.Line()))
	switch {
	case full == "sysbench.cmdline.options":
		fx.optDeclared = true
		w.declareOptions(rhs)
	case obj == "sysbench.cmdline.options":
		fx.optDeclared = true
		fx.optDecls = append(fx.optDecls, optionDecl{name: key.Value, at: w.at(key, key.Line())})
	}
}

// declareOptions reads sysbench.cmdline.options = {...}.
func (w *walker) declareOptions(rhs ast.Expr) {
	t, ok := rhs.(*ast.TableExpr)
	if !ok {
		w.facts.optDynamic = true
		return
	}
	for _, f := range t.Fields {
		k, ok := f.Key.(*ast.StringExpr)
		if !ok {
			w.facts.optDynamic = true
			continue
		}
		w.facts.optDecls = append(w.facts.optDecls, optionDecl{name: k.Value, at: w.at(k, k.Line())})
	}
}

// record notes an assignment for the types of the API's objects.
func (w *walker) record(to varPath, src source, rhs ast.Expr) {
	if w.collect && to.v.valid() {
		w.facts.assigns = append(w.facts.assigns, assignment{to: to, src: src, rhs: rhs})
	}
}

// targetCall notes, for x = con:prepare(sql), that the statement is x.
func (w *walker) targetCall(rhs ast.Expr, to varPath) {
	if c, ok := rhs.(*ast.FuncCallExpr); ok {
		w.setTarget(c, to)
	}
}

func (w *walker) setTarget(c *ast.FuncCallExpr, to varPath) {
	if !w.collect {
		return
	}
	for i := len(w.facts.calls) - 1; i >= 0; i-- {
		if w.facts.calls[i].e == c {
			w.facts.calls[i].target = to
			return
		}
	}
}

// sourceOf says what made the value of e.
func (w *walker) sourceOf(e ast.Expr) source {
	switch x := e.(type) {
	case *ast.NilExpr:
		return source{kind: srcNil}
	case *ast.TableExpr:
		return source{kind: srcTable}
	case *ast.FuncCallExpr:
		if x.Receiver != nil {
			recv := w.sourceOf(x.Receiver)
			if recv.kind == srcVar {
				return source{kind: srcMethod, path: recv.path, method: x.Method}
			}
			if recv.kind == srcUnknown {
				return source{}
			}
			return source{kind: srcMethod, recv: &recv, method: x.Method}
		}
		return w.resultOf(x, 0)
	case *ast.IdentExpr, *ast.AttrGetExpr:
		if vp, ok := w.varPathOf(e); ok {
			return source{kind: srcVar, path: vp}
		}
	}
	return source{}
}

// resultOf is the source of result idx of the call e: an API object
// (the first result of an API function), or a result of the program's
// own function.
func (w *walker) resultOf(e ast.Expr, idx int) source {
	x, ok := e.(*ast.FuncCallExpr)
	if !ok || x.Receiver != nil {
		if ok && idx == 0 {
			return w.sourceOf(e)
		}
		return source{}
	}
	if p, ok := w.staticPath(x.Func); ok && idx == 0 {
		// An API function, or the program's: the checks tell.
		if vp, ok := w.varPathOf(x.Func); ok && vp.steps == "" {
			return source{kind: srcAPI, typ: p, path: vp}
		}
		return source{kind: srcAPI, typ: p}
	}
	if vp, ok := w.varPathOf(x.Func); ok && vp.steps == "" {
		return source{kind: srcCall, path: vp, idx: idx}
	}
	return source{}
}

// varPathOf is e as a variable and the keys taken from it.
func (w *walker) varPathOf(e ast.Expr) (varPath, bool) {
	var steps []string
	for {
		switch x := e.(type) {
		case *ast.IdentExpr:
			var k varKey
			if sym := w.sc.lookup(x.Value); sym != nil {
				k.sym = sym
			} else {
				k.global = x.Value
			}
			for i, j := 0, len(steps)-1; i < j; i, j = i+1, j-1 {
				steps[i], steps[j] = steps[j], steps[i]
			}
			return varPath{v: k, steps: strings.Join(steps, "/")}, true
		case *ast.AttrGetExpr:
			if s, ok := x.Key.(*ast.StringExpr); ok {
				steps = append(steps, s.Value)
			} else {
				steps = append(steps, "*")
			}
			e = x.Object
		default:
			return varPath{}, false
		}
	}
}

// staticPath is e as a constant path from the globals: a global's name,
// its fields by constant names, through _G or a local alias. "" is the
// globals table itself (_G).
func (w *walker) staticPath(e ast.Expr) (string, bool) {
	switch x := e.(type) {
	case *ast.IdentExpr:
		if sym := w.sc.lookup(x.Value); sym != nil {
			p, ok := w.aliases[sym]
			return p, ok
		}
		if x.Value == "_G" {
			return "", true
		}
		return x.Value, true
	case *ast.AttrGetExpr:
		key, ok := x.Key.(*ast.StringExpr)
		if !ok {
			return "", false
		}
		p, ok := w.staticPath(x.Object)
		if !ok {
			return "", false
		}
		if p == "" {
			return key.Value, true
		}
		return p + "." + key.Value, true
	}
	return "", false
}

// exprUse is how an expression's value is used.
type exprUse struct {
	guarded bool // tested: a condition, x or y's x, type(x), x == nil
	called  bool
	indexed bool
}

func (w *walker) expr(e ast.Expr, use exprUse) {
	switch x := e.(type) {
	case *ast.IdentExpr:
		if sym := w.sc.lookup(x.Value); sym != nil {
			if p, ok := w.aliases[sym]; ok {
				w.aliasUse(p, use)
			}
			if !use.indexed && w.collect {
				w.facts.escapes[varKey{sym: sym}] = true
			}
			return
		}
		if !use.indexed && w.collect {
			w.facts.escapes[varKey{global: x.Value}] = true
		}
		if !w.collect {
			return
		}
		if x.Value == "_G" {
			if !use.indexed {
				w.facts.openGlobals = true // handed on: anything may be set through it
			}
			return
		}
		w.facts.globalReads = append(w.facts.globalReads, globalRead{name: x.Value, at: w.at(x, x.Line()),
			guarded: use.guarded, locals: w.sc.visible()})
		if x.Value == "sysbench" && !use.indexed {
			w.facts.optReadAll = true
		}
	case *ast.AttrGetExpr:
		key, constKey := x.Key.(*ast.StringExpr)
		if !constKey {
			w.expr(x.Key, exprUse{})
			if p, ok := w.staticPath(x.Object); ok && p == "sysbench.opt" && w.collect {
				w.facts.optReadAll = true
			}
			w.expr(x.Object, exprUse{indexed: true})
			return
		}
		w.expr(x.Object, exprUse{indexed: true})
		p, ok := w.staticPath(x.Object)
		if !ok || !w.collect {
			return
		}
		if p == "" {
			// _G.name: a global.
			w.facts.globalReads = append(w.facts.globalReads, globalRead{name: key.Value, at: w.at(key, key.Line()),
				guarded: use.guarded, locals: w.sc.visible()})
			return
		}
		full := p + "." + key.Value
		w.facts.pathReads = append(w.facts.pathReads, pathRead{path: full, at: w.at(key, key.Line()),
			guarded: use.guarded, called: use.called})
		if p == "sysbench.opt" {
			name := key.Value
			w.facts.optReads[name] = append(w.facts.optReads[name], w.at(key, key.Line()))
		}
		if full == "sysbench.opt" && !use.indexed {
			w.facts.optReadAll = true
		}
	case *ast.FuncCallExpr:
		w.callExpr(x)
	case *ast.LogicalOpExpr:
		w.expr(x.Lhs, exprUse{guarded: true})
		w.expr(x.Rhs, exprUse{guarded: x.Operator == "and" && use.guarded})
	case *ast.RelationalOpExpr:
		_, lnil := x.Lhs.(*ast.NilExpr)
		_, rnil := x.Rhs.(*ast.NilExpr)
		g := (x.Operator == "==" || x.Operator == "~=") && (lnil || rnil)
		w.expr(x.Lhs, exprUse{guarded: g})
		w.expr(x.Rhs, exprUse{guarded: g})
	case *ast.StringConcatOpExpr:
		w.expr(x.Lhs, exprUse{})
		w.expr(x.Rhs, exprUse{})
	case *ast.ArithmeticOpExpr:
		w.expr(x.Lhs, exprUse{})
		w.expr(x.Rhs, exprUse{})
	case *ast.UnaryNotOpExpr:
		w.expr(x.Expr, exprUse{guarded: true})
	case *ast.UnaryMinusOpExpr:
		w.expr(x.Expr, exprUse{})
	case *ast.UnaryLenOpExpr:
		w.expr(x.Expr, exprUse{})
	case *ast.TableExpr:
		for _, f := range x.Fields {
			if f.Key != nil {
				if _, ok := f.Key.(*ast.StringExpr); !ok {
					w.expr(f.Key, exprUse{})
				}
			}
			w.expr(f.Value, exprUse{})
		}
	case *ast.FunctionExpr:
		w.namedFunction(x, varKey{}, false) // anonymous: its returns are its own
	}
}

// aliasUse is a local alias of a constant path used as a value.
func (w *walker) aliasUse(p string, use exprUse) {
	if !w.collect || use.indexed {
		return
	}
	if p == "sysbench.opt" || p == "sysbench" {
		w.facts.optReadAll = true // handed on or iterated
	}
	if p == "" {
		w.facts.openGlobals = true
	}
}

func (w *walker) callExpr(x *ast.FuncCallExpr) {
	c := call{e: x, nargs: len(x.Args)}
	if n := len(x.Args); n > 0 && isMulti(x.Args[n-1]) {
		c.multi = true
		if _, ok := x.Args[n-1].(*ast.FuncCallExpr); ok {
			c.last = w.sourceOf(x.Args[n-1])
		}
	}
	if x.Receiver != nil {
		w.expr(x.Receiver, exprUse{indexed: true})
		recv := w.sourceOf(x.Receiver)
		c.recv, c.method, c.at = &recv, x.Method, w.at(x, x.Line())
	} else {
		w.expr(x.Func, exprUse{called: true})
		if p, ok := w.staticPath(x.Func); ok {
			c.path = p
			c.at = w.at(calleeNode(x.Func), x.Line())
			w.special(p, x)
			if len(x.Args) > 0 {
				c.arg0, _ = w.varPathOf(x.Args[0])
			}
		}
	}
	if len(x.Args) > 0 {
		c.sql, c.sqlOK = w.constSQL(x.Args[0])
	}
	for i, a := range x.Args {
		use := exprUse{}
		if i == 0 && c.path == "type" {
			use.guarded = true
		}
		w.expr(a, use)
	}
	if w.collect && (c.path != "" || c.method != "") {
		w.facts.calls = append(w.facts.calls, c)
	}
}

// calleeNode is the node naming a called function: its last field.
func calleeNode(e ast.Expr) any {
	if a, ok := e.(*ast.AttrGetExpr); ok {
		return a.Key
	}
	return e
}

// special notes the calls that load code or change what globals exist.
func (w *walker) special(p string, x *ast.FuncCallExpr) {
	if !w.collect {
		return
	}
	fx := w.facts
	first := func() (string, bool) {
		if len(x.Args) == 0 {
			return "", false
		}
		s, ok := x.Args[0].(*ast.StringExpr)
		if !ok {
			return "", false
		}
		return s.Value, true
	}
	switch p {
	case "require":
		if name, ok := first(); ok {
			fx.loads = append(fx.loads, loadRef{name: name, at: w.at(x.Args[0], x.Line())})
			if name == "table.new" || name == "table.clear" {
				// LuaJIT's loaders also set the function in table.
				fx.pathWrites[name] = append(fx.pathWrites[name], w.at(x.Args[0], x.Line()))
			}
		} else {
			fx.openLoads = append(fx.openLoads, w.at(x, x.Line()))
		}
	case "dofile", "loadfile":
		if len(x.Args) > 0 {
			if name, ok := lastConstant(x.Args[0]); ok {
				fx.loads = append(fx.loads, loadRef{name: name, file: true, at: w.at(x.Args[0], x.Line())})
				return
			}
		}
		fx.openLoads = append(fx.openLoads, w.at(x, x.Line()))
	case "loadstring", "load", "setfenv", "getfenv", "module", "debug.setfenv", "debug.getregistry":
		fx.openGlobals = true
	case "rawset":
		if len(x.Args) >= 2 {
			if t, ok := w.staticPath(x.Args[0]); ok && t == "" {
				if k, ok := x.Args[1].(*ast.StringExpr); ok {
					fx.globalWrites[k.Value] = append(fx.globalWrites[k.Value], w.at(k, k.Line()))
				} else {
					fx.openGlobals = true
				}
			}
		}
	case "setmetatable":
		if len(x.Args) >= 1 {
			if t, ok := w.staticPath(x.Args[0]); ok && t == "" {
				fx.openGlobals = true // an __index on _G answers any name
			}
		}
	}
}

// lastConstant is the constant file name a dofile argument ends with:
// dofile(dir .. "common.lua") loads common.lua beside the script.
func lastConstant(e ast.Expr) (string, bool) {
	switch x := e.(type) {
	case *ast.StringExpr:
		return x.Value, true
	case *ast.StringConcatOpExpr:
		return lastConstant(x.Rhs)
	}
	return "", false
}
