package compile

import (
	"math"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
)

// Registers follow Lua 5.1's discipline, which is what makes multiple
// assignment and nested expressions correct:
//
//   - The active locals of a function occupy registers 0..nactvar-1, in
//     declaration order; a local's register never changes while it is in
//     scope, and nothing else is ever written there except an assignment
//     to that local.
//   - Temporaries are allocated above them, strictly as a stack: freereg
//     is the first free register, an expression's value is placed at
//     freereg (reserving it) or left where it already lives, and a
//     temporary is freed only when it is the topmost one.
//   - All values of an assignment's right-hand side are evaluated into
//     fresh temporaries (the last one may go straight to its target)
//     before any target is written; targets are then stored right to
//     left. A local assigned in the same statement that an earlier
//     target uses as a table or key is first copied to a temporary.
//   - A call's function and arguments occupy consecutive registers from
//     freereg; its results land from the function's register.
//   - At the end of a statement freereg is back at nactvar.
//
// gopher-lua's VM relies on this as well: a register above a call's
// results, or above a finished for loop, may hold Go's nil rather than
// Lua's nil until it is written again, which the discipline guarantees.

// maxRegs is the most registers a function may use (A is 8 bits; LuaJIT's
// LJ_MAX_SLOTS is 250).
const maxRegs = 250

type localVar struct {
	name     string
	debug    int  // index in the proto's DbgLocals
	captured bool // some closure holds it as an upvalue
	// inline is the body's call of a local function whose calls compile
	// to it (inline.go); nil for other locals.
	inline *ast.FuncCallExpr
}

type upvalDesc struct {
	name    string
	inStack bool // the parent's local in register index; else the parent's upvalue index
	index   int
}

type blockScope struct {
	prev    *blockScope
	nactvar int  // active locals when the block began
	upval   bool // a local of the block is captured: close it on the way out
	loop    bool // breaks leave this block
	repeat  bool // the body of a repeat-until, whose condition sees its locals
	labels  int  // first of fs.labels that belongs to the block
	gotoSeq int  // gotos numbered from this one on were made inside the block
}

// funcState is a function being compiled.
type funcState struct {
	c      *compiler
	parent *funcState
	proto  *lua.FunctionProto

	code       []uint32
	lines      []int
	line       int // the line instructions are emitted on
	jpc        int // jumps to the next instruction emitted
	lastTarget int

	consts  []lua.LValue
	constIx map[constKey]int
	protos  []*lua.FunctionProto

	actvars       []*localVar // by register, 0..nactvar-1
	pendingLocals []*localVar // declared, not yet visible
	nactvar       int
	freereg       int
	maxStack      int
	upvals        []upvalDesc
	bl            *blockScope

	labels  []label
	gotos   []pendingGoto // not yet resolved
	gotoSeq int           // the next goto's number
	calls   []lua.DbgCall
	// inlined marks the calls that are an inlined function's body (their
	// line is the body's, also as a tail call).
	inlined map[int]bool
}

type constKey struct {
	kind byte // 's' string, 'n' number, 'b' bool, 'z' nil, 'f' intrinsic
	s    string
	n    uint64
	f    *lua.LFunction
}

func newFuncState(c *compiler, parent *funcState, line int) *funcState {
	p := &lua.FunctionProto{
		SourceName:  c.name,
		LineDefined: line,
		Code:        nil,
	}
	return &funcState{c: c, parent: parent, proto: p, jpc: noJump, lastTarget: -1,
		constIx: map[constKey]int{}, line: line, maxStack: 2}
}

// fail stops compilation with a LuaJIT-worded message on the current line.
func (fs *funcState) fail(msg string) {
	panic(&Error{Chunk: ShortSource(fs.c.name), Line: fs.line, Message: msg})
}

func (fs *funcState) checkStack(n int) {
	if top := fs.freereg + n; top > fs.maxStack {
		if top >= maxRegs {
			fs.fail("function or expression too complex")
		}
		fs.maxStack = top
	}
}

func (fs *funcState) reserveRegs(n int) {
	fs.checkStack(n)
	fs.freereg += n
}

// freeReg releases reg if it is a temporary (the topmost one).
func (fs *funcState) freeReg(reg int) {
	if !isK(reg) && reg >= fs.nactvar {
		fs.freereg--
		if reg != fs.freereg {
			panic("luacomp: temporaries freed out of order")
		}
	}
}

func (fs *funcState) addConst(key constKey, v lua.LValue) int {
	if i, ok := fs.constIx[key]; ok {
		return i
	}
	if len(fs.consts) >= maxBx {
		fs.fail("constant table overflow")
	}
	fs.consts = append(fs.consts, v)
	fs.constIx[key] = len(fs.consts) - 1
	return len(fs.consts) - 1
}

func (fs *funcState) stringK(s string) int {
	return fs.addConst(constKey{kind: 's', s: s}, lua.LString(Intern(s)))
}

func (fs *funcState) numberK(n float64) int {
	return fs.addConst(constKey{kind: 'n', n: math.Float64bits(n)}, lua.LNumber(n))
}

func (fs *funcState) boolK(b bool) int {
	if b {
		return fs.addConst(constKey{kind: 'b', n: 1}, lua.LTrue)
	}
	return fs.addConst(constKey{kind: 'b'}, lua.LFalse)
}

func (fs *funcState) nilK() int { return fs.addConst(constKey{kind: 'z'}, lua.LNil) }

func (fs *funcState) funcK(f *lua.LFunction) int {
	return fs.addConst(constKey{kind: 'f', f: f}, f)
}

// newLocal declares a local in the next free slot; it becomes visible
// with activate.
func (fs *funcState) newLocal(name string) *localVar {
	v := &localVar{name: name, debug: len(fs.proto.DbgLocals)}
	fs.proto.DbgLocals = append(fs.proto.DbgLocals, &lua.DbgLocalInfo{Name: name})
	fs.pendingLocals = append(fs.pendingLocals, v)
	return v
}

// activate makes the first n locals declared and not yet visible
// visible, from the next instruction on.
func (fs *funcState) activate(n int) {
	pending := fs.pendingLocals[:n]
	fs.pendingLocals = fs.pendingLocals[n:]
	for _, v := range pending {
		fs.proto.DbgLocals[v.debug].StartPc = fs.pc()
		fs.actvars = append(fs.actvars[:fs.nactvar], v)
		fs.nactvar++
	}
}

// removeLocals ends the scope of the locals above level. A pending goto
// that left a captured one must close it where it lands.
func (fs *funcState) removeLocals(level int) {
	for fs.nactvar > level {
		fs.nactvar--
		v := fs.actvars[fs.nactvar]
		fs.proto.DbgLocals[v.debug].EndPc = fs.pc()
		if v.captured {
			for i := range fs.gotos {
				if fs.gotos[i].slot > fs.nactvar {
					fs.gotos[i].close = true
				}
			}
		}
	}
	fs.actvars = fs.actvars[:fs.nactvar]
}

func (fs *funcState) enterBlock(bl *blockScope) {
	bl.prev = fs.bl
	bl.nactvar = fs.nactvar
	bl.labels = len(fs.labels)
	bl.gotoSeq = fs.gotoSeq
	fs.bl = bl
}

// leaveBlock ends a block: its locals go out of scope (closed if
// captured), its labels take the gotos after them that no later label
// took (backward jumps) and become invisible, its other pending gotos
// move to the enclosing block; a loop's breaks land here.
func (fs *funcState) leaveBlock() {
	bl := fs.bl
	fs.bl = bl.prev
	fs.removeLocals(bl.nactvar)
	if bl.upval {
		fs.emitABC(lua.OP_CLOSE, bl.nactvar, 0, 0)
	}
	fs.freereg = fs.nactvar
	for _, l := range fs.labels[bl.labels:] {
		fs.resolveGotos(l, func(g *pendingGoto) bool { return g.seq >= l.seq })
	}
	fs.labels = fs.labels[:bl.labels]
	if bl.loop {
		exit := label{name: breakLabel, pc: fs.label(), slot: fs.nactvar}
		fs.resolveGotos(exit, func(g *pendingGoto) bool { return g.seq >= bl.gotoSeq })
	}
	if fs.bl == nil && len(fs.gotos) > 0 {
		// The parser refuses undefined labels; this is a compiler bug.
		panic("luacomp: goto without a label: " + fs.gotos[0].name)
	}
}

// singleVar resolves a name: a local of fs, an upvalue, or a global.
func (fs *funcState) singleVar(name string, e *exp) {
	if fs.resolve(name, e, true) == eGlobal {
		e.init(eGlobal, fs.stringK(name))
	}
}

func (fs *funcState) findLocal(name string) int {
	for i := fs.nactvar - 1; i >= 0; i-- {
		if fs.actvars[i].name == name {
			return i
		}
	}
	return -1
}

// resolve finds name in fs (base: the function the name is used in) and
// its enclosing functions, capturing it as an upvalue on the way in.
func (fs *funcState) resolve(name string, e *exp, base bool) expKind {
	if fs == nil {
		return eGlobal
	}
	if r := fs.findLocal(name); r >= 0 {
		e.init(eLocal, r)
		if !base {
			fs.markCaptured(r)
		}
		return eLocal
	}
	if fs.parent.resolve(name, e, false) == eGlobal {
		return eGlobal
	}
	e.init(eUpval, fs.upvalIndex(name, e))
	return eUpval
}

// markCaptured flags the block that declared the local in register r: it
// must close its upvalues when it ends.
func (fs *funcState) markCaptured(r int) {
	fs.actvars[r].captured = true
	bl := fs.bl
	for bl != nil && bl.nactvar > r {
		bl = bl.prev
	}
	if bl != nil {
		bl.upval = true
	}
}

// upvalIndex returns the upvalue of fs for the parent's variable e (a
// local register or an upvalue index of the parent), adding it if new.
func (fs *funcState) upvalIndex(name string, e *exp) int {
	inStack := e.k == eLocal
	for i, u := range fs.upvals {
		if u.inStack == inStack && u.index == e.info && u.name == name {
			return i
		}
	}
	fs.upvals = append(fs.upvals, upvalDesc{name: name, inStack: inStack, index: e.info})
	return len(fs.upvals) - 1
}
