// Package parse owns reading Lua source: a lexer and recursive-descent
// parser for LuaJIT 2.1's dialect (Lua 5.1 with goto and labels, \x, \z
// and \u{} escapes, hex floats, 0b literals and the LL/ULL suffixes) that
// builds the gopher-lua AST gopher-lua's compiler takes.
//
// It refuses what LuaJIT refuses, with LuaJIT's message and line, and
// builds for what it accepts the same nodes as gopher-lua's own parser,
// but for "local function" (LocalFunctionStmt), with their Line() where
// gopher-lua puts it. LastLine() is where LuaJIT would place the node's
// code (its lexer's lastline once the node is read), which is what our
// compiler reports run-time errors by: an expression's last line, a call's
// line where its arguments start, the end of a return's or an
// assignment's values.
//
// The parser follows the structure of LuaJIT's lj_parse.c function by
// function, because LuaJIT's error positions and limits (syntax levels,
// locals, upvalues, goto scopes) are defined by when it looks at which
// token.
package parse

import (
	"fmt"
	"io"
	"strconv"

	"github.com/yuin/gopher-lua/ast"
)

// Int64LiteralFunc is the global a 64-bit literal (123LL, 0x10ULL) calls
// with its value in decimal and "LL" or "ULL": LuaJIT makes those int64_t
// and uint64_t cdata, which gopher-lua has no constant for.
const Int64LiteralFunc = "__sysbench_int64"

// Parse reads a Lua chunk. Its error is a *SyntaxError when the source is
// not a chunk LuaJIT 2.1 would load.
func Parse(r io.Reader, chunkName string) ([]ast.Stmt, error) {
	chunk, _, err := parse(r, chunkName)
	return chunk, err
}

func parse(r io.Reader, chunkName string) (chunk []ast.Stmt, feats feature, err error) {
	src, err := io.ReadAll(r)
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", chunkName, err)
	}
	return parseSource(src, chunkName, nil)
}

// parseSource parses src, recording node positions in pos when it is
// not nil (ParseWithPositions).
func parseSource(src []byte, chunkName string, pos map[any]int) (chunk []ast.Stmt, feats feature, err error) {
	p := parser{pos: pos}
	// Errors unwind the recursion as a panic of *SyntaxError only.
	defer func() {
		if e := recover(); e != nil {
			se, ok := e.(*SyntaxError)
			if !ok {
				panic(e)
			}
			chunk, feats, err = nil, p.features, se
		}
	}()
	p.init(chunkName, src)
	chunk = p.mainChunk()
	return chunk, p.features, nil
}

type parser struct {
	lexer
	fs    *funcState
	level int         // LuaJIT's syntactic nesting level
	vtop  int         // LuaJIT's variable stack height
	pos   map[any]int // node -> offset, for ParseWithPositions only
}

// Kinds of primary expression, which decide what a statement can be.
const (
	kindOther = iota // parenthesised: neither assignable nor a call
	kindVar          // a name or an index: assignable
	kindCall
)

func (p *parser) errSyntax(msg string) {
	panic(&SyntaxError{Chunk: p.chunk, Line: p.line, Column: p.column(p.tok.pos, p.line), Message: msg, Near: p.tok.near()})
}

func (p *parser) errToken(kind int) { p.errSyntax("'" + tokenString(kind) + "' expected") }

func (p *parser) levelBegin() {
	if p.level++; p.level >= maxLevels {
		p.failAt(p.line, "chunk has too many syntax levels")
	}
}

func (p *parser) levelEnd() { p.level-- }

func (p *parser) opt(kind int) bool {
	if p.tok.kind == kind {
		p.advance()
		return true
	}
	return false
}

func (p *parser) check(kind int) {
	if p.tok.kind != kind {
		p.errToken(kind)
	}
	p.advance()
}

// match consumes what, the closer of who opened on line.
func (p *parser) match(what, who, line int) {
	if p.opt(what) {
		return
	}
	if line == p.line {
		p.errToken(what)
	}
	p.errSyntax(fmt.Sprintf("'%s' expected (to close '%s' at line %d)", tokenString(what), tokenString(who), line))
}

// name consumes a name; goto is one where no goto statement can start.
func (p *parser) name() string {
	switch p.tok.kind {
	case tkName:
		s := p.tok.s
		p.advance()
		return s
	case tkGoto:
		p.features |= featGotoName
		p.advance()
		return "goto"
	}
	p.errToken(tkName)
	return ""
}

func isBlockEnd(kind int) bool {
	switch kind {
	case tkElse, tkElseif, tkEnd, tkUntil, tkEOF:
		return true
	}
	return false
}

func (p *parser) mainChunk() []ast.Stmt {
	fs := p.openFunction(0)
	fs.vararg = true
	p.advance()
	stmts := p.chunkBody()
	if p.tok.kind != tkEOF {
		p.errToken(tkEOF)
	}
	p.closeFunction()
	return stmts
}

// chunkBody parses statements up to the end of a block.
func (p *parser) chunkBody() []ast.Stmt {
	p.levelBegin()
	stmts := []ast.Stmt{}
	for last := false; !last && !isBlockEnd(p.tok.kind); {
		stmts, last = p.statement(stmts)
		p.opt(';')
	}
	p.levelEnd()
	return stmts
}

func (p *parser) block() []ast.Stmt {
	p.scopeBegin(0)
	stmts := p.chunkBody()
	p.scopeEnd()
	return stmts
}

// statement appends one statement (a run of labels is parsed as one, as
// LuaJIT does); last says it must end the block.
func (p *parser) statement(stmts []ast.Stmt) ([]ast.Stmt, bool) {
	n, off := len(stmts), p.tok.pos
	stmts, last := p.statementAt(stmts)
	if p.pos != nil && len(stmts) > n {
		if _, ok := p.pos[stmts[n]]; !ok {
			p.pos[stmts[n]] = off
		}
	}
	return stmts, last
}

func (p *parser) statementAt(stmts []ast.Stmt) ([]ast.Stmt, bool) {
	line := p.line // LuaJIT's line of the statement, for "to close" messages
	switch p.tok.kind {
	case tkIf:
		return append(stmts, p.ifStat(line)), false
	case tkWhile:
		return append(stmts, p.whileStat(line)), false
	case tkDo:
		st := &ast.DoBlockStmt{}
		st.SetLine(p.tok.line)
		p.advance()
		st.Stmts = p.block()
		st.SetLastLine(p.tok.line)
		p.match(tkEnd, tkDo, line)
		return append(stmts, st), false
	case tkFor:
		return append(stmts, p.forStat(line)), false
	case tkRepeat:
		return append(stmts, p.repeatStat(line)), false
	case tkFunction:
		return append(stmts, p.functionStat(line)), false
	case tkLocal:
		return append(stmts, p.localStat()), false
	case tkReturn:
		st := &ast.ReturnStmt{}
		st.SetLine(p.tok.line)
		p.advance()
		if !isBlockEnd(p.tok.kind) && p.tok.kind != ';' {
			st.Exprs = p.exprList()
			st.SetLastLine(p.lastLine)
		}
		return append(stmts, st), true
	case tkBreak:
		st := &ast.BreakStmt{}
		st.SetLine(p.tok.line)
		p.advance()
		fs := p.fs
		fs.blocks[len(fs.blocks)-1].flags |= scopeBreak
		p.golaNew(breakName, false, fs.nactvar, p.lastLine)
		return append(stmts, st), true // Lua 5.1: break ends its block
	case tkLabel:
		return p.labelStat(stmts), false
	case tkGoto:
		if p.lookahead() == tkName {
			return append(stmts, p.gotoStat()), false
		}
	}
	return append(stmts, p.exprStat()), false
}

func (p *parser) ifStat(line int) ast.Stmt {
	top := &ast.IfStmt{}
	top.SetLine(p.tok.line)
	p.advance()
	top.Condition = p.expr()
	p.check(tkThen)
	top.Then = p.block()
	cur := top
	for p.tok.kind == tkElseif {
		st := &ast.IfStmt{}
		st.SetLine(p.tok.line)
		p.advance()
		st.Condition = p.expr()
		p.check(tkThen)
		st.Then = p.block()
		cur.Else = []ast.Stmt{st}
		cur = st
	}
	if p.opt(tkElse) {
		cur.Else = p.block()
	}
	top.SetLastLine(p.tok.line)
	p.match(tkEnd, tkIf, line)
	return top
}

func (p *parser) whileStat(line int) ast.Stmt {
	st := &ast.WhileStmt{}
	st.SetLine(p.tok.line)
	p.advance()
	st.Condition = p.expr()
	p.scopeBegin(scopeLoop)
	p.check(tkDo)
	st.Stmts = p.block()
	st.SetLastLine(p.tok.line)
	p.match(tkEnd, tkWhile, line)
	p.scopeEnd()
	return st
}

func (p *parser) repeatStat(line int) ast.Stmt {
	st := &ast.RepeatStmt{}
	st.SetLine(p.tok.line)
	p.scopeBegin(scopeLoop)
	p.scopeBegin(0) // the body, which the condition still sees
	p.advance()
	st.Stmts = p.chunkBody()
	p.match(tkUntil, tkRepeat, line)
	st.Condition = p.expr()
	st.SetLastLine(st.Condition.Line())
	p.scopeEnd()
	p.scopeEnd()
	return st
}

func (p *parser) forStat(line int) ast.Stmt {
	forLine := p.tok.line
	p.scopeBegin(scopeLoop)
	p.advance()
	name := p.name()
	var st ast.Stmt
	switch p.tok.kind {
	case '=':
		st = p.forNum(name)
	case ',', tkIn:
		st = p.forIn(name)
	default:
		p.errSyntax("'=' or 'in' expected")
	}
	st.SetLine(forLine)
	st.SetLastLine(p.tok.line)
	p.match(tkEnd, tkFor, line)
	p.scopeEnd()
	return st
}

func (p *parser) forNum(name string) ast.Stmt {
	p.varNew(0, hiddenName) // index, limit, step
	p.varNew(1, hiddenName)
	p.varNew(2, hiddenName)
	p.varNew(3, name)
	st := &ast.NumberForStmt{Name: name}
	p.check('=')
	st.Init = p.expr()
	p.check(',')
	st.Limit = p.expr()
	if p.opt(',') {
		st.Step = p.expr()
	}
	p.varAdd(3)
	p.check(tkDo)
	p.scopeBegin(0)
	p.varAdd(1)
	st.Stmts = p.block()
	p.scopeEnd()
	return st
}

func (p *parser) forIn(name string) ast.Stmt {
	p.varNew(0, hiddenName) // generator, state, control
	p.varNew(1, hiddenName)
	p.varNew(2, hiddenName)
	p.varNew(3, name)
	st := &ast.GenericForStmt{Names: []string{name}}
	for n := 4; p.opt(','); n++ {
		name := p.name()
		p.varNew(n, name)
		st.Names = append(st.Names, name)
	}
	p.check(tkIn)
	st.Exprs = p.exprList()
	p.varAdd(3)
	p.check(tkDo)
	p.scopeBegin(0)
	p.varAdd(len(st.Names))
	st.Stmts = p.block()
	p.scopeEnd()
	return st
}

func (p *parser) functionStat(line int) ast.Stmt {
	st := &ast.FuncDefStmt{}
	st.SetLine(p.tok.line)
	p.mark(st, p.tok.pos)
	p.advance()
	nameLine, nameOff := p.tok.line, p.tok.pos
	name := p.name()
	p.resolve(p.fs, name)
	fn := &ast.FuncName{Func: p.ident(name, nameLine)}
	p.mark(fn.Func, nameOff)
	for p.tok.kind == '.' {
		p.advance()
		fn.Func = p.field(fn.Func)
	}
	needSelf := p.tok.kind == ':'
	if needSelf {
		p.advance()
		off := p.tok.pos
		fn = &ast.FuncName{Receiver: fn.Func, Method: p.name()}
		p.mark(fn, off) // at the method's name
	}
	st.Name = fn
	st.Func = p.body(needSelf, line)
	st.SetLastLine(st.Func.LastLine())
	return st
}

// field reads the name after a '.' of a function name: gopher-lua puts
// the node on the name's line.
func (p *parser) field(obj ast.Expr) ast.Expr {
	key := &ast.StringExpr{}
	key.SetLine(p.tok.line)
	p.mark(key, p.tok.pos)
	key.Value = p.name()
	e := &ast.AttrGetExpr{Object: obj, Key: key}
	e.SetLine(key.Line())
	return e
}

// LocalFunctionStmt is "local function Name body": unlike "local Name =
// function body", the name is in scope inside the body. gopher-lua's tree
// has no node for it.
type LocalFunctionStmt struct {
	ast.StmtBase
	Name string
	Func *ast.FunctionExpr
}

func (p *parser) localStat() ast.Stmt {
	st := &ast.LocalAssignStmt{}
	st.SetLine(p.tok.line)
	p.advance()
	if p.opt(tkFunction) {
		name := p.name()
		p.varNew(0, name)
		p.varAdd(1)
		body := p.body(false, p.line)
		lf := &LocalFunctionStmt{Name: name, Func: body}
		lf.SetLine(st.Line())
		lf.SetLastLine(body.LastLine())
		return lf
	}
	for n := 0; ; n++ {
		name := p.name()
		p.varNew(n, name)
		st.Names = append(st.Names, name)
		if !p.opt(',') {
			break
		}
	}
	if !p.opt('=') {
		st.Exprs = []ast.Expr{}
	} else {
		st.Exprs = p.exprList()
	}
	p.varAdd(len(st.Names))
	return st
}

// ident makes a name's node.
func (p *parser) ident(name string, line int) *ast.IdentExpr {
	e := &ast.IdentExpr{Value: name}
	e.SetLine(line)
	return e
}

func (p *parser) labelStat(stmts []ast.Stmt) []ast.Stmt {
	fs := p.fs
	b := len(fs.blocks) - 1
	fs.blocks[b].flags |= scopeGoto
	st := &ast.LabelStmt{}
	st.SetLine(p.tok.line)
	p.advance()
	st.Name = p.name()
	if p.findLabel(st.Name) {
		p.failAt(p.line, fmt.Sprintf("duplicate label '%s'", st.Name))
	}
	idx := p.golaNew(st.Name, true, fs.nactvar, 0)
	p.check(tkLabel)
	stmts = append(stmts, st)
	for p.tok.kind == tkLabel {
		p.levelBegin()
		stmts = p.labelStat(stmts)
		p.levelEnd()
	}
	// A label that ends its block is outside the scope of the block's
	// locals (not so before "until", whose condition sees them).
	if isBlockEnd(p.tok.kind) && p.tok.kind != tkUntil {
		fs.golas[idx].slot = fs.blocks[b].nactvar
	}
	p.golaResolve(b, idx)
	return stmts
}

func (p *parser) gotoStat() ast.Stmt {
	st := &ast.GotoStmt{}
	st.SetLine(p.tok.line)
	p.advance()
	st.Label = p.name()
	fs := p.fs
	fs.blocks[len(fs.blocks)-1].flags |= scopeGoto
	p.golaNew(st.Label, false, fs.nactvar, p.lastLine)
	return st
}

// exprStat parses a call statement or an assignment.
func (p *parser) exprStat() ast.Stmt {
	e, kind := p.primary()
	if kind == kindCall {
		st := &ast.FuncCallStmt{Expr: e}
		st.SetLine(e.Line())
		return st
	}
	lhs := []ast.Expr{e}
	for {
		if kind != kindVar {
			p.errSyntax("syntax error")
		}
		if !p.opt(',') {
			break
		}
		e, kind = p.primary()
		if p.level+len(lhs) >= maxLevels {
			p.limit(p.fs, maxLevels, "variable names")
		}
		lhs = append(lhs, e)
	}
	p.check('=')
	st := &ast.AssignStmt{Lhs: lhs, Rhs: p.exprList()}
	st.SetLine(lhs[0].Line())
	st.SetLastLine(p.lastLine)
	return st
}

// body parses a function's parameters and block; line is the line LuaJIT
// reports the function by. The node is gopher-lua's funcbody: from '('
// to 'end'.
func (p *parser) body(needSelf bool, line int) *ast.FunctionExpr {
	fs := p.openFunction(line)
	f := &ast.FunctionExpr{ParList: &ast.ParList{Names: []string{}}}
	f.SetLine(p.tok.line)
	p.mark(f, p.tok.pos)
	p.check('(')
	n := 0
	if needSelf {
		p.varNew(0, "self")
		n++
	}
	if p.tok.kind != ')' {
		for {
			if p.tok.kind == tkName || p.tok.kind == tkGoto {
				name := p.name()
				p.varNew(n, name)
				n++
				f.ParList.Names = append(f.ParList.Names, name)
			} else if p.tok.kind == tkDots {
				p.advance()
				fs.vararg, f.ParList.HasVargs = true, true
				break
			} else {
				p.errSyntax("<name> or '...' expected")
			}
			if !p.opt(',') {
				break
			}
		}
	}
	p.varAdd(n)
	p.check(')')
	f.Stmts = p.chunkBody()
	if p.tok.kind != tkEnd {
		p.match(tkEnd, tkFunction, line)
	}
	f.SetLastLine(p.tok.line)
	p.closeFunction()
	p.advance()
	return f
}

func (p *parser) exprList() []ast.Expr {
	list := []ast.Expr{p.expr()}
	for p.opt(',') {
		list = append(list, p.expr())
	}
	return list
}

// args parses a call's arguments; line is where they start, the line
// LuaJIT puts the call on.
func (p *parser) args() (args []ast.Expr, line int) {
	line = p.line
	switch p.tok.kind {
	case '(':
		if line != p.lastLine {
			p.errSyntax("ambiguous syntax (function call x new statement)")
		}
		p.advance()
		if p.tok.kind == ')' {
			args = []ast.Expr{}
		} else {
			args = p.exprList()
		}
		p.match(')', '(', line)
		return args, line
	case '{':
		return []ast.Expr{p.table()}, line
	case tkString:
		s := p.stringExpr()
		p.advance()
		s.SetLastLine(p.lastLine)
		return []ast.Expr{s}, line
	}
	p.errSyntax("function arguments expected")
	return nil, line
}

func (p *parser) stringExpr() *ast.StringExpr {
	s := &ast.StringExpr{Value: p.tok.s}
	s.SetLine(p.tok.line)
	p.mark(s, p.tok.pos)
	return s
}

func (p *parser) primary() (ast.Expr, int) {
	var e ast.Expr
	kind := kindOther
	switch p.tok.kind {
	case '(':
		parenLine, line := p.tok.line, p.line
		p.advance()
		e = p.expr()
		p.match(')', '(', line)
		e = parenthesised(e, parenLine)
	case tkName, tkGoto:
		line, off := p.tok.line, p.tok.pos
		name := p.name()
		p.resolve(p.fs, name)
		e, kind = p.ident(name, line), kindVar
		p.mark(e, off)
		e.SetLastLine(p.lastLine)
	default:
		p.errSyntax("unexpected symbol")
	}
	for {
		switch p.tok.kind {
		case '.':
			p.advance()
			key := p.stringExpr()
			key.Value = p.name()
			key.SetLastLine(p.lastLine)
			a := &ast.AttrGetExpr{Object: e, Key: key}
			a.SetLine(e.Line())
			a.SetLastLine(p.lastLine)
			e, kind = a, kindVar
		case '[':
			p.advance()
			a := &ast.AttrGetExpr{Object: e, Key: p.expr()}
			p.check(']')
			a.SetLine(e.Line())
			a.SetLastLine(p.lastLine)
			e, kind = a, kindVar
		case ':':
			p.advance()
			off := p.tok.pos
			c := &ast.FuncCallExpr{Receiver: e, Method: p.name()}
			p.mark(c, off)
			var line int
			c.Args, line = p.args()
			c.SetLine(e.Line())
			c.SetLastLine(line)
			e, kind = c, kindCall
		case '(', tkString, '{':
			c := &ast.FuncCallExpr{Func: e}
			var line int
			c.Args, line = p.args()
			c.SetLine(e.Line())
			c.SetLastLine(line)
			e, kind = c, kindCall
		default:
			return e, kind
		}
	}
}

// parenthesised gives (e) gopher-lua's node: a call in parentheses keeps
// one result and its position; anything else moves to the '(' line, and
// "..." keeps one value too.
func parenthesised(e ast.Expr, line int) ast.Expr {
	if c, ok := e.(*ast.FuncCallExpr); ok && !c.AdjustRet {
		c.AdjustRet = true
		return c
	}
	if d, ok := e.(*ast.Comma3Expr); ok {
		d.AdjustRet = true
	}
	e.SetLine(line)
	return e
}

func (p *parser) simple() ast.Expr {
	var e ast.Expr
	switch p.tok.kind {
	case tkNumber:
		e = p.numberExpr()
	case tkString:
		e = p.stringExpr()
	case tkNil:
		e = &ast.NilExpr{}
	case tkTrue:
		e = &ast.TrueExpr{}
	case tkFalse:
		e = &ast.FalseExpr{}
	case tkDots:
		if !p.fs.vararg {
			p.errSyntax("cannot use '...' outside a vararg function")
		}
		e = &ast.Comma3Expr{}
	case '{':
		return p.table()
	case tkFunction:
		line, off := p.tok.line, p.tok.pos
		p.advance()
		f := p.body(false, p.line)
		p.mark(f, off)
		f.SetLine(line) // gopher-lua's function expression starts at the keyword
		return f
	default:
		e, _ = p.primary()
		return e
	}
	e.SetLine(p.tok.line)
	p.mark(e, p.tok.pos)
	p.advance()
	e.SetLastLine(p.lastLine)
	return e
}

// numberExpr is a number's node: a float64 constant, or for a 64-bit
// integer literal a call that makes it at run time.
func (p *parser) numberExpr() ast.Expr {
	t := &p.tok
	if t.numKind == numFloat {
		return &ast.NumberExpr{Value: formatNumber(t.num)}
	}
	value, suffix := strconv.FormatInt(int64(t.bits), 10), "LL"
	if t.numKind == numUint64 {
		value, suffix = strconv.FormatUint(t.bits, 10), "ULL"
	}
	fn := &ast.IdentExpr{Value: Int64LiteralFunc}
	a, b := &ast.StringExpr{Value: value}, &ast.StringExpr{Value: suffix}
	fn.SetLine(t.line)
	a.SetLine(t.line)
	b.SetLine(t.line)
	return &ast.FuncCallExpr{Func: fn, Args: []ast.Expr{a, b}, AdjustRet: true}
}

func (p *parser) table() *ast.TableExpr {
	t := &ast.TableExpr{Fields: []*ast.Field{}}
	t.SetLine(p.tok.line)
	p.mark(t, p.tok.pos)
	line := p.line
	p.check('{')
	for p.tok.kind != '}' {
		f := &ast.Field{}
		switch {
		case p.tok.kind == '[':
			p.advance()
			f.Key = p.expr()
			p.check(']')
			p.check('=')
		case (p.tok.kind == tkName || p.tok.kind == tkGoto) && p.lookahead() == '=':
			key := p.stringExpr()
			key.Value = p.name()
			f.Key = key
			p.check('=')
		}
		f.Value = p.expr()
		t.Fields = append(t.Fields, f)
		if !p.opt(',') && !p.opt(';') {
			break
		}
	}
	p.match('}', '{', line)
	t.SetLastLine(p.lastLine)
	return t
}

// Binary operators, with LuaJIT's left and right priorities.
const (
	opNone = iota
	opAdd
	opSub
	opMul
	opDiv
	opMod
	opPow
	opConcat
	opEq
	opNe
	opLt
	opGe
	opGt
	opLe
	opAnd
	opOr
)

var priority = [...]struct{ left, right int }{
	opAdd: {6, 6}, opSub: {6, 6}, opMul: {7, 7}, opDiv: {7, 7}, opMod: {7, 7},
	opPow: {10, 9}, opConcat: {5, 4}, // right associative
	opEq: {3, 3}, opNe: {3, 3}, opLt: {3, 3}, opGe: {3, 3}, opGt: {3, 3}, opLe: {3, 3},
	opAnd: {2, 2}, opOr: {1, 1},
}

const unaryPriority = 8

var opNames = [...]string{
	opAdd: "+", opSub: "-", opMul: "*", opDiv: "/", opMod: "%", opPow: "^",
	opEq: "==", opNe: "~=", opLt: "<", opGe: ">=", opGt: ">", opLe: "<=",
	opAnd: "and", opOr: "or",
}

func binaryOp(kind int) int {
	switch kind {
	case '+':
		return opAdd
	case '-':
		return opSub
	case '*':
		return opMul
	case '/':
		return opDiv
	case '%':
		return opMod
	case '^':
		return opPow
	case tkConcat:
		return opConcat
	case tkNe:
		return opNe
	case tkEq:
		return opEq
	case '<':
		return opLt
	case tkLe:
		return opLe
	case '>':
		return opGt
	case tkGe:
		return opGe
	case tkAnd:
		return opAnd
	case tkOr:
		return opOr
	}
	return opNone
}

func (p *parser) expr() ast.Expr {
	e, _ := p.binary(0)
	return e
}

// binary parses operators binding tighter than limit and returns the
// first operator it did not take.
func (p *parser) binary(limit int) (ast.Expr, int) {
	p.levelBegin()
	e := p.unary()
	op := binaryOp(p.tok.kind)
	for op != opNone && priority[op].left > limit {
		p.advance()
		rhs, next := p.binary(priority[op].right)
		e = binaryExpr(op, e, rhs)
		e.SetLastLine(p.lastLine)
		op = next
	}
	p.levelEnd()
	return e, op
}

func binaryExpr(op int, lhs, rhs ast.Expr) ast.Expr {
	var e ast.Expr
	switch op {
	case opAnd, opOr:
		e = &ast.LogicalOpExpr{Operator: opNames[op], Lhs: lhs, Rhs: rhs}
	case opEq, opNe, opLt, opLe, opGt, opGe:
		e = &ast.RelationalOpExpr{Operator: opNames[op], Lhs: lhs, Rhs: rhs}
	case opConcat:
		e = &ast.StringConcatOpExpr{Lhs: lhs, Rhs: rhs}
	default:
		e = &ast.ArithmeticOpExpr{Operator: opNames[op], Lhs: lhs, Rhs: rhs}
	}
	e.SetLine(lhs.Line())
	return e
}

func (p *parser) unary() ast.Expr {
	kind := p.tok.kind
	if kind != tkNot && kind != '-' && kind != '#' {
		return p.simple()
	}
	off := p.tok.pos
	p.advance()
	operand, _ := p.binary(unaryPriority)
	var e ast.Expr
	switch kind {
	case tkNot:
		e = &ast.UnaryNotOpExpr{Expr: operand}
	case '-':
		e = &ast.UnaryMinusOpExpr{Expr: operand}
	default:
		e = &ast.UnaryLenOpExpr{Expr: operand}
	}
	e.SetLine(operand.Line()) // gopher-lua's position for unary operations
	p.mark(e, off)
	e.SetLastLine(p.lastLine)
	return e
}
