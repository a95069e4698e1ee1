package compile

import (
	"math"
	"strconv"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
)

// expKind is where an expression's value is while it is compiled, as in
// Lua 5.1's code generator: values are discharged into registers only
// when and where they are needed.
type expKind uint8

const (
	eVoid     expKind = iota // no value (an empty list)
	eNil                     // nil
	eTrue                    // true
	eFalse                   // false
	eK                       // constant: info is its index
	eNum                     // a number not yet in the constants: num
	eLocal                   // a local: info is its register
	eUpval                   // an upvalue: info is its index
	eGlobal                  // a global: info is the constant index of its name
	eIndexed                 // t[k]: info is t's register, aux is k as RK
	eJmp                     // a comparison: info is the pc of its jump
	eReloc                   // info is the pc of an instruction whose A is still to be set
	eNonReloc                // in register info
	eCall                    // info is the pc of an open call (results not yet fixed)
	eVararg                  // info is the pc of an open "..."
)

type exp struct {
	k    expKind
	info int
	aux  int
	num  float64
	t, f int // jumps taken when the value is true / false
}

func (e *exp) init(k expKind, info int) { *e = exp{k: k, info: info, t: noJump, f: noJump} }
func (e *exp) hasJumps() bool           { return e.t != e.f }
func (e *exp) multRet() bool            { return e.k == eCall || e.k == eVararg }
func (e *exp) isNumeral() bool          { return e.k == eNum && e.t == noJump && e.f == noJump }

func (fs *funcState) freeExp(e *exp) {
	if e.k == eNonReloc {
		fs.freeReg(e.info)
	}
}

// setReturns makes an open call or "..." give n values (multRet: all).
func (fs *funcState) setReturns(e *exp, n int) {
	switch e.k {
	case eCall:
		setC(&fs.code[e.info], n+1)
	case eVararg:
		setB(&fs.code[e.info], n+1)
		setA(&fs.code[e.info], fs.freereg)
		fs.reserveRegs(1)
	}
}

// setOneRet truncates an open call or "..." to its first value.
func (fs *funcState) setOneRet(e *exp) {
	switch e.k {
	case eCall:
		e.k, e.info = eNonReloc, argA(fs.code[e.info])
	case eVararg:
		setB(&fs.code[e.info], 2)
		e.k = eReloc
	}
}

// dischargeVars turns a variable into a value: an instruction still to be
// placed, or a register.
func (fs *funcState) dischargeVars(e *exp) {
	switch e.k {
	case eLocal:
		e.k = eNonReloc
	case eUpval:
		e.info, e.k = fs.emitABC(lua.OP_GETUPVAL, 0, e.info, 0), eReloc
	case eGlobal:
		e.info, e.k = fs.emitABx(lua.OP_GETGLOBAL, 0, e.info), eReloc
	case eIndexed:
		fs.freeReg(e.aux)
		fs.freeReg(e.info)
		op := lua.OP_GETTABLE
		if fs.isStringK(e.aux) {
			op = lua.OP_GETTABLEKS
		}
		e.info, e.k = fs.emitABC(op, 0, e.info, e.aux), eReloc
	case eCall, eVararg:
		fs.setOneRet(e)
	}
}

// isStringK reports whether RK operand x is a string constant, which
// gopher-lua's *KS instructions take.
func (fs *funcState) isStringK(x int) bool {
	if !isK(x) {
		return false
	}
	_, ok := fs.consts[indexK(x)].(lua.LString)
	return ok
}

func (fs *funcState) discharge2Reg(e *exp, reg int) {
	fs.dischargeVars(e)
	switch e.k {
	case eNil:
		fs.emitNil(reg, 1)
	case eTrue, eFalse:
		fs.emitABC(lua.OP_LOADBOOL, reg, b2i(e.k == eTrue), 0)
	case eK:
		fs.emitK(reg, e.info)
	case eNum:
		fs.emitK(reg, fs.numberK(e.num))
	case eReloc:
		setA(&fs.code[e.info], reg)
	case eNonReloc:
		if reg != e.info {
			fs.emitABC(lua.OP_MOVE, reg, e.info, 0)
		}
	default: // eVoid, eJmp: nothing to place
		return
	}
	e.info, e.k = reg, eNonReloc
}

func (fs *funcState) discharge2AnyReg(e *exp) {
	if e.k != eNonReloc {
		fs.reserveRegs(1)
		fs.discharge2Reg(e, fs.freereg-1)
	}
}

// loadBool emits a LOADBOOL that jumps may land on.
func (fs *funcState) loadBool(a, b, jump int) int {
	fs.label()
	return fs.emitABC(lua.OP_LOADBOOL, a, b, jump)
}

// exp2Reg places e's value in reg, turning its pending jumps into the
// booleans they stand for.
func (fs *funcState) exp2Reg(e *exp, reg int) {
	fs.discharge2Reg(e, reg)
	if e.k == eJmp {
		fs.concat(&e.t, e.info)
	}
	if e.hasJumps() {
		pf, pt := noJump, noJump
		if fs.needValue(e.t) || fs.needValue(e.f) {
			fj := noJump
			if e.k != eJmp {
				fj = fs.jump()
			}
			pf = fs.loadBool(reg, 0, 1)
			pt = fs.loadBool(reg, 1, 0)
			fs.patchToHere(fj)
		}
		final := fs.label()
		fs.patchListAux(e.f, final, reg, pf)
		fs.patchListAux(e.t, final, reg, pt)
	}
	e.f, e.t = noJump, noJump
	e.info, e.k = reg, eNonReloc
}

func (fs *funcState) exp2NextReg(e *exp) {
	fs.dischargeVars(e)
	fs.freeExp(e)
	fs.reserveRegs(1)
	fs.exp2Reg(e, fs.freereg-1)
}

func (fs *funcState) exp2AnyReg(e *exp) int {
	fs.dischargeVars(e)
	if e.k == eNonReloc {
		if !e.hasJumps() {
			return e.info
		}
		if e.info >= fs.nactvar {
			fs.exp2Reg(e, e.info)
			return e.info
		}
	}
	fs.exp2NextReg(e)
	return e.info
}

func (fs *funcState) exp2Val(e *exp) {
	if e.hasJumps() {
		fs.exp2AnyReg(e)
	} else {
		fs.dischargeVars(e)
	}
}

// exp2RK returns e as an RK operand: a constant when it fits, else a
// register.
func (fs *funcState) exp2RK(e *exp) int {
	fs.exp2Val(e)
	switch e.k {
	case eNum, eTrue, eFalse, eNil:
		if len(fs.consts) <= maxIndexRK {
			switch e.k {
			case eNil:
				e.info = fs.nilK()
			case eNum:
				e.info = fs.numberK(e.num)
			default:
				e.info = fs.boolK(e.k == eTrue)
			}
			e.k = eK
			return rkAsK(e.info)
		}
	case eK:
		if e.info <= maxIndexRK {
			return rkAsK(e.info)
		}
	}
	return fs.exp2AnyReg(e)
}

// storeVar assigns e to the variable v.
func (fs *funcState) storeVar(v, e *exp) {
	switch v.k {
	case eLocal:
		fs.freeExp(e)
		fs.exp2Reg(e, v.info)
		return
	case eUpval:
		fs.emitABC(lua.OP_SETUPVAL, fs.exp2AnyReg(e), v.info, 0)
	case eGlobal:
		fs.emitABx(lua.OP_SETGLOBAL, fs.exp2AnyReg(e), v.info)
	case eIndexed:
		op := lua.OP_SETTABLE
		if fs.isStringK(v.aux) {
			op = lua.OP_SETTABLEKS
		}
		fs.emitABC(op, v.info, v.aux, fs.exp2RK(e))
	default:
		panic("luacomp: assignment to a value")
	}
	fs.freeExp(e)
}

// self compiles obj:key for a method call: the method and obj in two
// consecutive registers.
func (fs *funcState) self(e *exp, key string) {
	fs.exp2AnyReg(e)
	fs.freeExp(e)
	fn := fs.freereg
	fs.reserveRegs(2)
	k := exp{}
	k.init(eK, fs.stringK(key))
	fs.emitABC(lua.OP_SELF, fn, e.info, fs.exp2RK(&k))
	fs.freeExp(&k)
	e.info, e.k = fn, eNonReloc
}

func (fs *funcState) invertJump(e *exp) {
	i := fs.jumpControl(e.info)
	setA(i, b2i(argA(*i) == 0))
}

func (fs *funcState) jumpOnCond(e *exp, cond int) int {
	if e.k == eReloc {
		if ie := fs.code[e.info]; opOf(ie) == lua.OP_NOT {
			fs.code, fs.lines = fs.code[:len(fs.code)-1], fs.lines[:len(fs.lines)-1]
			return fs.condJump(lua.OP_TEST, argB(ie), 0, 1-cond)
		}
	}
	fs.discharge2AnyReg(e)
	fs.freeExp(e)
	return fs.condJump(lua.OP_TESTSET, noReg, e.info, cond)
}

// goIfTrue falls through when e is true and jumps (e.f) when it is false.
func (fs *funcState) goIfTrue(e *exp) {
	fs.dischargeVars(e)
	var pc int
	// A constant false goes through a register like any value: a plain
	// jump here would carry jumps waiting for this pc that stand for
	// other values (Lua 5.1.4's ((1 or false) and true) or false gave 1).
	switch e.k {
	case eK, eNum, eTrue:
		pc = noJump
	case eJmp:
		fs.invertJump(e)
		pc = e.info
	default:
		pc = fs.jumpOnCond(e, 0)
	}
	fs.concat(&e.f, pc)
	fs.patchToHere(e.t)
	e.t = noJump
}

// goIfFalse falls through when e is false and jumps (e.t) when it is true.
func (fs *funcState) goIfFalse(e *exp) {
	fs.dischargeVars(e)
	var pc int
	switch e.k { // as in goIfTrue, a constant true has no shortcut
	case eNil, eFalse:
		pc = noJump
	case eJmp:
		pc = e.info
	default:
		pc = fs.jumpOnCond(e, 1)
	}
	fs.concat(&e.t, pc)
	fs.patchToHere(e.f)
	e.f = noJump
}

func (fs *funcState) codeNot(e *exp) {
	fs.dischargeVars(e)
	switch e.k {
	case eNil, eFalse:
		e.k = eTrue
	case eK, eNum, eTrue:
		e.k = eFalse
	case eJmp:
		fs.invertJump(e)
	case eReloc, eNonReloc:
		fs.discharge2AnyReg(e)
		fs.freeExp(e)
		e.info, e.k = fs.emitABC(lua.OP_NOT, 0, e.info, 0), eReloc
	default:
		panic("luacomp: not of a non-value")
	}
	e.f, e.t = e.t, e.f
	fs.removeValues(e.f)
	fs.removeValues(e.t)
}

// indexed makes t the variable t[k].
func (fs *funcState) indexed(t, k *exp) {
	t.aux = fs.exp2RK(k)
	t.k = eIndexed
}

var arithOps = map[string]int{
	"+": lua.OP_ADD, "-": lua.OP_SUB, "*": lua.OP_MUL, "/": lua.OP_DIV, "%": lua.OP_MOD, "^": lua.OP_POW,
}

// foldArith computes op on two numerals at compile time, except where the
// result would be NaN or -0, which LuaJIT never makes constants of.
func foldArith(op int, e1, e2 *exp) bool {
	if !e1.isNumeral() || !e2.isNumeral() {
		return false
	}
	a, b := e1.num, e2.num
	var r float64
	switch op {
	case lua.OP_ADD:
		r = a + b
	case lua.OP_SUB:
		r = a - b
	case lua.OP_MUL:
		r = a * b
	case lua.OP_DIV:
		r = a / b
	case lua.OP_MOD:
		r = a - math.Floor(a/b)*b
	case lua.OP_POW:
		r = math.Pow(a, b)
	case lua.OP_UNM:
		r = -a
	default:
		return false
	}
	if math.IsNaN(r) || (r == 0 && math.Signbit(r)) {
		return false
	}
	e1.num = r
	return true
}

func (fs *funcState) codeArith(op int, e1, e2 *exp) {
	if foldArith(op, e1, e2) {
		return
	}
	o2 := 0
	if op != lua.OP_UNM && op != lua.OP_LEN {
		o2 = fs.exp2RK(e2)
	}
	o1 := fs.exp2RK(e1)
	if o1 > o2 {
		fs.freeExp(e1)
		fs.freeExp(e2)
	} else {
		fs.freeExp(e2)
		fs.freeExp(e1)
	}
	e1.info, e1.k = fs.emitABC(op, 0, o1, o2), eReloc
}

func (fs *funcState) codeComp(op, cond int, e1, e2 *exp) {
	o1 := fs.exp2RK(e1)
	o2 := fs.exp2RK(e2)
	fs.freeExp(e2)
	fs.freeExp(e1)
	if cond == 0 && op != lua.OP_EQ {
		o1, o2, cond = o2, o1, 1 // a > b is b < a
	}
	e1.info, e1.k = fs.condJump(op, cond, o1, o2), eJmp
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// expr compiles an expression into e, without discharging it. What is
// emitted after it, until the next node ends, goes on the line where it
// ends: LuaJIT's lastline there.
func (fs *funcState) expr(node ast.Expr, e *exp) {
	fs.exprNode(node, e)
	fs.line = endLine(node)
}

// endLine is the line a node ends on as the parser records it.
func endLine(n ast.PositionHolder) int {
	if l := n.LastLine(); l > 0 {
		return l
	}
	return n.Line()
}

func (fs *funcState) exprNode(node ast.Expr, e *exp) {
	switch x := node.(type) {
	case *ast.NilExpr:
		e.init(eNil, 0)
	case *ast.TrueExpr:
		e.init(eTrue, 0)
	case *ast.FalseExpr:
		e.init(eFalse, 0)
	case *ast.NumberExpr:
		e.init(eNum, 0)
		e.num = parseNumber(x.Value)
	case *ast.StringExpr:
		e.init(eK, fs.stringK(x.Value))
	case *ast.Comma3Expr:
		fs.line = x.Line()
		e.init(eVararg, fs.emitABC(lua.OP_VARARG, 0, 1, 0))
		if x.AdjustRet {
			fs.dischargeVars(e)
		}
	case *ast.IdentExpr:
		fs.singleVar(x.Value, e)
	case *ast.AttrGetExpr:
		fs.expr(x.Object, e)
		fs.line = x.Line()
		fs.exp2AnyReg(e)
		var k exp
		fs.expr(x.Key, &k)
		fs.indexed(e, &k)
	case *ast.FuncCallExpr:
		fs.call(x, e)
		if x.AdjustRet {
			fs.dischargeVars(e)
		}
	case *ast.FunctionExpr:
		fs.function(x, false, x.Line(), e)
	case *ast.TableExpr:
		fs.table(x, e)
	case *ast.LogicalOpExpr:
		fs.expr(x.Lhs, e)
		fs.line = opLine(x)
		if x.Operator == "and" {
			fs.goIfTrue(e)
		} else {
			fs.goIfFalse(e)
		}
		var e2 exp
		fs.expr(x.Rhs, &e2)
		fs.dischargeVars(&e2)
		if x.Operator == "and" {
			fs.concat(&e2.f, e.f)
		} else {
			fs.concat(&e2.t, e.t)
		}
		*e = e2
	case *ast.RelationalOpExpr:
		fs.expr(x.Lhs, e)
		fs.exp2RK(e)
		var e2 exp
		fs.expr(x.Rhs, &e2)
		fs.line = opLine(x)
		switch x.Operator {
		case "==":
			fs.codeComp(lua.OP_EQ, 1, e, &e2)
		case "~=":
			fs.codeComp(lua.OP_EQ, 0, e, &e2)
		case "<":
			fs.codeComp(lua.OP_LT, 1, e, &e2)
		case "<=":
			fs.codeComp(lua.OP_LE, 1, e, &e2)
		case ">":
			fs.codeComp(lua.OP_LT, 0, e, &e2)
		case ">=":
			fs.codeComp(lua.OP_LE, 0, e, &e2)
		}
	case *ast.ArithmeticOpExpr:
		op := arithOps[x.Operator]
		fs.expr(x.Lhs, e)
		if !e.isNumeral() {
			fs.exp2RK(e)
		}
		var e2 exp
		fs.expr(x.Rhs, &e2)
		fs.line = opLine(x)
		fs.codeArith(op, e, &e2)
	case *ast.StringConcatOpExpr:
		fs.concatenation(x, e)
	case *ast.UnaryMinusOpExpr:
		fs.expr(x.Expr, e)
		fs.line = opLine(x)
		if !e.isNumeral() {
			fs.exp2AnyReg(e)
		}
		zero := exp{k: eNum, t: noJump, f: noJump}
		fs.codeArith(lua.OP_UNM, e, &zero)
	case *ast.UnaryNotOpExpr:
		fs.expr(x.Expr, e)
		fs.line = opLine(x)
		fs.codeNot(e)
	case *ast.UnaryLenOpExpr:
		fs.expr(x.Expr, e)
		fs.line = opLine(x)
		fs.exp2AnyReg(e)
		zero := exp{k: eNum, t: noJump, f: noJump}
		fs.codeArith(lua.OP_LEN, e, &zero)
	default:
		panic("luacomp: unknown expression node " + strconv.Quote(typeName(node)))
	}
}

// opLine is the line an operator's instruction is reported on: where its
// last operand ends (LuaJIT emits it then).
func opLine(n ast.PositionHolder) int { return endLine(n) }

func parseNumber(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		// The parser writes numbers with strconv.FormatFloat: this is a bug.
		panic("luacomp: number literal " + strconv.Quote(s) + ": " + err.Error())
	}
	return v
}

// concatenation compiles a .. b .. c as one call of the concatenation
// intrinsic on consecutive registers: gopher-lua's CONCAT turns numbers
// into text its own way, not LuaJIT's.
func (fs *funcState) concatenation(x *ast.StringConcatOpExpr, e *exp) {
	var operands []ast.Expr
	var n ast.Expr = x
	for {
		c, ok := n.(*ast.StringConcatOpExpr)
		if !ok {
			operands = append(operands, n)
			break
		}
		operands = append(operands, c.Lhs)
		n = c.Rhs
	}
	base := fs.freereg
	fs.reserveRegs(1)
	fs.emitK(base, fs.funcK(concatIntrinsic))
	for _, o := range operands {
		var v exp
		fs.expr(o, &v)
		fs.exp2NextReg(&v)
	}
	fs.line = opLine(x)
	fs.emitABC(lua.OP_CALL, base, len(operands)+1, 2)
	fs.freereg = base + 1
	e.init(eNonReloc, base)
}

// call compiles a function or method call, leaving it open (eCall).
func (fs *funcState) call(x *ast.FuncCallExpr, e *exp) {
	if fs.inlineCall(x, e) {
		return
	}
	if x.Receiver != nil {
		fs.expr(x.Receiver, e)
		fs.line = x.Line()
		fs.self(e, x.Method)
	} else {
		fs.expr(x.Func, e)
		fs.exp2NextReg(e)
	}
	base := e.info
	nargs := 0
	for i, a := range x.Args {
		var v exp
		fs.expr(a, &v)
		if i == len(x.Args)-1 && v.multRet() {
			fs.setReturns(&v, multRet)
			nargs = multRet
		} else {
			fs.exp2NextReg(&v)
		}
	}
	if nargs != multRet {
		nargs = fs.freereg - (base + 1)
	}
	fs.line = callLine(x)
	pc := fs.emitABC(lua.OP_CALL, base, nargs+1, 2)
	fs.calls = append(fs.calls, lua.DbgCall{Name: callName(x), Pc: pc})
	e.init(eCall, pc)
	fs.freereg = base + 1
}

// callLine is the line a call is reported on: LuaJIT's, the line where its
// arguments start, which the parser keeps as the node's last line.
func callLine(x *ast.FuncCallExpr) int { return endLine(x) }

// callName is the name gopher-lua's own messages and tracebacks give the
// function called.
func callName(x *ast.FuncCallExpr) string {
	if x.Receiver != nil {
		return x.Method
	}
	switch f := x.Func.(type) {
	case *ast.IdentExpr:
		return f.Value
	case *ast.AttrGetExpr:
		if k, ok := f.Key.(*ast.StringExpr); ok {
			return k.Value
		}
	}
	return "?"
}

// table compiles a table constructor.
func (fs *funcState) table(x *ast.TableExpr, e *exp) {
	fs.line = x.Line()
	pc := fs.emitABC(lua.OP_NEWTABLE, 0, 0, 0)
	e.init(eReloc, pc)
	fs.exp2NextReg(e)
	t := e.info
	na, nh, pending := 0, 0, 0
	var last exp
	last.init(eVoid, 0)
	flush := func() {
		if last.k == eVoid {
			return
		}
		fs.exp2NextReg(&last)
		last.init(eVoid, 0)
		if pending == lua.FieldsPerFlush {
			fs.setList(t, na, pending)
			pending = 0
		}
	}
	for _, f := range x.Fields {
		flush()
		if f.Key != nil {
			nh++
			reg := fs.freereg
			var k, v exp
			fs.expr(f.Key, &k)
			rk := fs.exp2RK(&k)
			fs.expr(f.Value, &v)
			op := lua.OP_SETTABLE
			if fs.isStringK(rk) {
				op = lua.OP_SETTABLEKS
			}
			fs.emitABC(op, t, rk, fs.exp2RK(&v))
			fs.freereg = reg
			continue
		}
		fs.expr(f.Value, &last)
		na++
		pending++
	}
	if pending > 0 {
		if last.multRet() {
			fs.setReturns(&last, multRet)
			fs.setList(t, na, multRet)
			na--
		} else {
			if last.k != eVoid {
				fs.exp2NextReg(&last)
			}
			fs.setList(t, na, pending)
		}
	}
	setB(&fs.code[pc], min(na, maxB))
	setC(&fs.code[pc], min(nh, maxC))
}

// function compiles a function body into a closure; self adds the
// implicit parameter of a method.
func (fs *funcState) function(x *ast.FunctionExpr, self bool, line int, e *exp) {
	child := newFuncState(fs.c, fs, line)
	child.enterBlock(&blockScope{})
	if self {
		child.newLocal("self")
	}
	for _, name := range x.ParList.Names {
		child.newLocal(name)
	}
	n := len(x.ParList.Names) + b2i(self)
	child.activate(n)
	child.proto.NumParameters = uint8(n)
	if x.ParList.HasVargs {
		child.proto.IsVarArg = lua.VarArgIsVarArg
	}
	child.reserveRegs(n)
	child.block(x.Stmts, false)
	p := child.close(x.LastLine())
	fs.protos = append(fs.protos, p)
	fs.line = x.LastLine()
	pc := fs.emitABx(lua.OP_CLOSURE, 0, len(fs.protos)-1)
	for _, u := range child.upvals {
		if u.inStack {
			fs.emitABC(lua.OP_MOVE, 0, u.index, 0)
		} else {
			fs.emitABC(lua.OP_GETUPVAL, 0, u.index, 0)
		}
	}
	e.init(eReloc, pc)
}
