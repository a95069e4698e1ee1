package compile

import (
	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"

	"github.com/sysbench-go/sysbench-go/luajit/parse"
	"github.com/sysbench-go/sysbench-go/luajit/vm"
)

// breakLabel is the label a loop's breaks go to (a keyword: no user label
// can have the name).
const breakLabel = "break"

type label struct {
	name string
	pc   int
	slot int // active locals where the label stands
	seq  int // gotos numbered from seq on come after the label
}

type pendingGoto struct {
	name  string
	pc    int  // its jump
	nop   int  // the NOP before it, made a CLOSE if it leaves captured locals
	slot  int  // active locals where the goto stands
	seq   int  // its number, in source order
	close bool // it left the scope of a captured local
}

// block compiles the statements of a block in the current scope. repeat
// marks the body of a repeat-until, whose trailing labels stay inside the
// scope of its locals (the condition still sees them).
func (fs *funcState) block(stmts []ast.Stmt, repeat bool) {
	for i, s := range stmts {
		if x, ok := s.(*parse.LocalFunctionStmt); ok {
			if call := fs.c.inlineBody(x, stmts[i+1:]); call != nil {
				fs.c.inlinable[x] = call
			}
		}
	}
	for i, s := range stmts {
		fs.stmt(s, trailing(stmts[i+1:]) && !repeat)
		fs.freereg = fs.nactvar
	}
}

// trailing reports whether only labels follow: a label there is outside
// the scope of the block's locals, as in LuaJIT.
func trailing(rest []ast.Stmt) bool {
	for _, s := range rest {
		if _, ok := s.(*ast.LabelStmt); !ok {
			return false
		}
	}
	return true
}

func (fs *funcState) scopedBlock(stmts []ast.Stmt) {
	var bl blockScope
	fs.enterBlock(&bl)
	fs.block(stmts, false)
	fs.leaveBlock()
}

func (fs *funcState) stmt(s ast.Stmt, atEnd bool) {
	fs.line = s.Line()
	switch x := s.(type) {
	case *ast.AssignStmt:
		fs.assignment(x)
	case *ast.LocalAssignStmt:
		fs.localStat(x)
	case *parse.LocalFunctionStmt:
		fs.localFunction(x)
	case *ast.FuncCallStmt:
		var e exp
		fs.expr(x.Expr, &e)
		if e.k != eCall {
			panic("luacomp: call statement without a call")
		}
		setC(&fs.code[e.info], 1)
	case *ast.DoBlockStmt:
		fs.scopedBlock(x.Stmts)
	case *ast.WhileStmt:
		fs.whileStat(x)
	case *ast.RepeatStmt:
		fs.repeatStat(x)
	case *ast.IfStmt:
		fs.ifStat(x)
	case *ast.NumberForStmt:
		fs.forNum(x)
	case *ast.GenericForStmt:
		fs.forIn(x)
	case *ast.FuncDefStmt:
		fs.funcStat(x)
	case *ast.ReturnStmt:
		fs.retStat(x)
	case *ast.BreakStmt:
		fs.gotoStat(breakLabel)
	case *ast.GotoStmt:
		fs.gotoStat(x.Label)
	case *ast.LabelStmt:
		fs.labelStat(x.Name, atEnd)
	default:
		panic("luacomp: unknown statement node " + typeName(s))
	}
}

// explist compiles a list of expressions: all but the last into the next
// registers, the last left in e. It returns how many there are.
func (fs *funcState) explist(list []ast.Expr, e *exp) int {
	for i, x := range list {
		if i > 0 {
			fs.exp2NextReg(e)
		}
		fs.expr(x, e)
	}
	return len(list)
}

// adjustAssign makes nexps values (the last in e) into exactly nvars
// registers: an open call or "..." gives what is missing, else nils do.
func (fs *funcState) adjustAssign(nvars, nexps int, e *exp) {
	extra := nvars - nexps
	if e.multRet() {
		extra = max(extra+1, 0)
		fs.setReturns(e, extra)
		if extra > 1 {
			fs.reserveRegs(extra - 1)
		}
		return
	}
	if e.k != eVoid {
		fs.exp2NextReg(e)
	}
	if extra > 0 {
		reg := fs.freereg
		fs.reserveRegs(extra)
		fs.emitNil(reg, extra)
	}
}

func (fs *funcState) localStat(x *ast.LocalAssignStmt) {
	for _, name := range x.Names {
		fs.newLocal(name)
	}
	var e exp
	e.init(eVoid, 0)
	nexps := 0
	if len(x.Exprs) > 0 {
		nexps = fs.explist(x.Exprs, &e)
	}
	fs.adjustAssign(len(x.Names), nexps, &e)
	fs.activate(len(x.Names))
}

func (fs *funcState) localFunction(x *parse.LocalFunctionStmt) {
	v := fs.newLocal(x.Name)
	v.inline = fs.c.inlinable[x]
	var target exp
	target.init(eLocal, fs.freereg)
	fs.reserveRegs(1)
	fs.activate(1)
	var b exp
	fs.function(x.Func, false, x.Func.Line(), &b)
	fs.storeVar(&target, &b)
	// Debuggers see the local once its value is there.
	fs.proto.DbgLocals[v.debug].StartPc = fs.pc()
}

// assignment compiles "targets = values": the targets' tables and keys
// first, then every value, then the stores from the last target to the
// first.
func (fs *funcState) assignment(x *ast.AssignStmt) {
	lhs := make([]exp, len(x.Lhs))
	for i, t := range x.Lhs {
		fs.expr(t, &lhs[i])
		if lhs[i].k == eLocal {
			fs.checkConflict(lhs[:i], lhs[i].info)
		}
	}
	var e exp
	nexps := fs.explist(x.Rhs, &e)
	nvars := len(lhs)
	fs.line = opLine(x)
	if nexps == nvars {
		fs.setOneRet(&e)
		fs.storeVar(&lhs[nvars-1], &e)
		nvars--
	} else {
		fs.adjustAssign(nvars, nexps, &e)
		if nexps > nvars {
			fs.freereg -= nexps - nvars
		}
	}
	for i := nvars - 1; i >= 0; i-- {
		var v exp
		v.init(eNonReloc, fs.freereg-1)
		fs.storeVar(&lhs[i], &v)
	}
}

// checkConflict copies local reg to a temporary when an earlier target
// of the same assignment indexes with it: the local is stored first.
func (fs *funcState) checkConflict(earlier []exp, reg int) {
	extra := fs.freereg
	conflict := false
	for i := range earlier {
		v := &earlier[i]
		if v.k != eIndexed {
			continue
		}
		if v.info == reg {
			conflict, v.info = true, extra
		}
		if v.aux == reg {
			conflict, v.aux = true, extra
		}
	}
	if conflict {
		fs.emitABC(lua.OP_MOVE, extra, reg, 0)
		fs.reserveRegs(1)
	}
}

// cond compiles a condition and returns the jumps taken when it is false.
func (fs *funcState) cond(x ast.Expr) int {
	var e exp
	fs.expr(x, &e)
	if e.k == eNil {
		e.k = eFalse
	}
	fs.goIfTrue(&e)
	return e.f
}

func (fs *funcState) whileStat(x *ast.WhileStmt) {
	start := fs.label()
	exit := fs.cond(x.Condition)
	var loop blockScope
	loop.loop = true
	fs.enterBlock(&loop)
	fs.scopedBlock(x.Stmts)
	fs.line = x.Line()
	fs.patchList(fs.jump(), start)
	fs.line = x.LastLine()
	fs.leaveBlock()
	fs.patchToHere(exit)
}

func (fs *funcState) repeatStat(x *ast.RepeatStmt) {
	start := fs.label()
	var loop, body blockScope
	loop.loop = true
	fs.enterBlock(&loop)
	fs.enterBlock(&body)
	fs.block(x.Stmts, true)
	fs.line = x.Condition.Line()
	exit := fs.cond(x.Condition)
	if !body.upval {
		fs.leaveBlock()
		fs.patchList(exit, start)
	} else {
		// The body's locals are captured: close them on every way out.
		fs.gotoStat(breakLabel)
		fs.patchToHere(exit)
		fs.leaveBlock()
		fs.patchList(fs.jump(), start)
	}
	fs.leaveBlock()
}

func (fs *funcState) ifStat(x *ast.IfStmt) {
	escape := noJump
	for {
		fs.line = x.Line()
		flist := fs.cond(x.Condition)
		fs.scopedBlock(x.Then)
		if len(x.Else) == 0 {
			fs.concat(&escape, flist)
			break
		}
		fs.concat(&escape, fs.jump())
		fs.patchToHere(flist)
		if elseif, ok := x.Else[0].(*ast.IfStmt); ok && len(x.Else) == 1 {
			x = elseif
			continue
		}
		fs.scopedBlock(x.Else)
		break
	}
	fs.patchToHere(escape)
}

// forNum compiles a numeric for. Values that are not number literals go
// through "x - 0" before the loop starts: LuaJIT takes numeric strings
// there, gopher-lua's FORPREP only numbers.
func (fs *funcState) forNum(x *ast.NumberForStmt) {
	var loop blockScope
	loop.loop = true
	fs.enterBlock(&loop)
	base := fs.freereg
	fs.newLocal("(for index)")
	fs.newLocal("(for limit)")
	fs.newLocal("(for step)")
	fs.newLocal(x.Name)
	var coerce [3]bool
	for i, v := range []ast.Expr{x.Init, x.Limit, x.Step} {
		var e exp
		if v == nil {
			e.init(eNum, 0)
			e.num = 1
		} else {
			fs.expr(v, &e)
		}
		coerce[i] = !e.isNumeral()
		fs.exp2NextReg(&e)
	}
	// LuaJIT checks the values where the loop starts, after "do": the
	// line the last value ends on, as a rule.
	for i, c := range coerce {
		if c {
			fs.emitForCoercion(base + i)
		}
	}
	fs.forBody(x.Stmts, base, 1, true, x.Line())
	fs.leaveBlock()
}

// emitForCoercion emits R(r) = R(r) - 0.
func (fs *funcState) emitForCoercion(r int) {
	zero := fs.numberK(0)
	if zero <= maxIndexRK {
		fs.emitABC(lua.OP_SUB, r, r, rkAsK(zero))
		return
	}
	tmp := fs.freereg
	fs.reserveRegs(1)
	fs.emitK(tmp, zero)
	fs.emitABC(lua.OP_SUB, r, r, tmp)
	fs.freereg--
}

func (fs *funcState) forIn(x *ast.GenericForStmt) {
	var loop blockScope
	loop.loop = true
	fs.enterBlock(&loop)
	base := fs.freereg
	fs.newLocal("(for generator)")
	fs.newLocal("(for state)")
	fs.newLocal("(for control)")
	for _, name := range x.Names {
		fs.newLocal(name)
	}
	var e exp
	n := fs.explist(x.Exprs, &e)
	fs.adjustAssign(3, n, &e)
	fs.checkStack(3) // room for the generator's call
	// LuaJIT reports the iterator's call where the expressions start.
	fs.forBody(x.Stmts, base, len(x.Names), false, x.Exprs[0].Line())
	fs.leaveBlock()
}

func (fs *funcState) forBody(stmts []ast.Stmt, base, nvars int, numeric bool, line int) {
	fs.activate(3)
	var prep int
	if numeric {
		prep = fs.emit(abx(lua.OP_FORPREP, base, noJump+maxSBx), fs.line)
	} else {
		prep = fs.jump()
	}
	var body blockScope
	fs.enterBlock(&body)
	fs.activate(nvars)
	fs.reserveRegs(nvars)
	fs.block(stmts, false)
	fs.leaveBlock()
	fs.patchToHere(prep)
	fs.line = line
	var end int
	if numeric {
		end = fs.emit(abx(lua.OP_FORLOOP, base, noJump+maxSBx), line)
	} else {
		fs.emit(abc(lua.OP_TFORLOOP, base, 0, nvars), line)
		end = fs.jump()
	}
	fs.patchList(end, prep+1)
}

func (fs *funcState) funcStat(x *ast.FuncDefStmt) {
	var v exp
	self := x.Name.Receiver != nil
	if self {
		fs.expr(x.Name.Receiver, &v)
		fs.exp2AnyReg(&v)
		var k exp
		k.init(eK, fs.stringK(x.Name.Method))
		fs.indexed(&v, &k)
	} else {
		fs.expr(x.Name.Func, &v)
	}
	var b exp
	fs.function(x.Func, self, x.Line(), &b)
	fs.line = x.Line()
	fs.storeVar(&v, &b)
}

func (fs *funcState) retStat(x *ast.ReturnStmt) {
	first, n := 0, 0
	if len(x.Exprs) > 0 {
		var e exp
		n = fs.explist(x.Exprs, &e)
		switch {
		case e.multRet():
			fs.setReturns(&e, multRet)
			if e.k == eCall && n == 1 {
				// LuaJIT emits a tail call anew at the end of the return.
				setOp(&fs.code[e.info], lua.OP_TAILCALL)
				if !fs.inlined[e.info] {
					fs.lines[e.info] = endLine(x)
				}
			}
			first, n = fs.nactvar, multRet
		case n == 1:
			first = fs.exp2AnyReg(&e)
		default:
			fs.exp2NextReg(&e)
			first = fs.nactvar
		}
	}
	fs.line = x.Line()
	fs.emitReturn(first, n)
}

// gotoStat jumps to a label, resolved as LuaJIT resolves it: by the next
// label of that name in its block or an enclosing one, else, when the
// block of a label before it ends, by that label. A NOP goes before the
// jump, to become a CLOSE if the jump leaves captured locals: gopher-lua's
// JMP cannot close upvalues.
func (fs *funcState) gotoStat(name string) {
	nop := fs.emitABC(lua.OP_NOP, 0, 0, 0)
	fs.gotos = append(fs.gotos, pendingGoto{name: name, pc: fs.jump(), nop: nop, slot: fs.nactvar, seq: fs.gotoSeq})
	fs.gotoSeq++
}

func (fs *funcState) labelStat(name string, atEnd bool) {
	slot := fs.nactvar
	if atEnd {
		slot = fs.bl.nactvar
	}
	l := label{name: name, pc: fs.label(), slot: slot, seq: fs.gotoSeq}
	bl := fs.bl
	fs.resolveGotos(l, func(g *pendingGoto) bool { return g.seq >= bl.gotoSeq })
	fs.labels = append(fs.labels, l)
}

// resolveGotos lands at l the pending gotos of its name that take says
// it takes. A goto that leaves the scope of a captured local closes the
// locals above the label's first.
func (fs *funcState) resolveGotos(l label, take func(*pendingGoto) bool) {
	keep := fs.gotos[:0]
	for _, g := range fs.gotos {
		if g.name != l.name || !take(&g) {
			keep = append(keep, g)
			continue
		}
		fs.patchList(g.pc, l.pc)
		needClose := g.close
		// Locals the goto leaves that are still active here: those of
		// the block a trailing label ends, or of a backward jump.
		for r := l.slot; r < min(g.slot, fs.nactvar); r++ {
			needClose = needClose || fs.actvars[r].captured
		}
		if needClose {
			fs.code[g.nop] = abc(lua.OP_CLOSE, l.slot, 0, 0)
		}
	}
	fs.gotos = keep
}

// close ends the function and fills its proto.
func (fs *funcState) close(lastLine int) *lua.FunctionProto {
	if lastLine > 0 {
		fs.line = lastLine
	}
	fs.bl.upval = false // the final RETURN closes the function's upvalues
	fs.leaveBlock()
	fs.emitReturn(0, 0)
	p := fs.proto
	p.LastLineDefined = lastLine
	p.Code = fs.code
	p.DbgSourcePositions = fs.lines
	p.Constants = fs.consts
	p.FunctionPrototypes = fs.protos
	p.NumUpvalues = uint8(len(fs.upvals))
	p.DbgUpvalues = make([]string, len(fs.upvals))
	for i, u := range fs.upvals {
		p.DbgUpvalues[i] = u.name
	}
	p.NumUsedRegisters = uint8(fs.maxStack)
	p.DbgCalls = fs.calls
	vm.SetStringConstants(p)
	return p
}
