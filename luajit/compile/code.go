package compile

import (
	lua "github.com/yuin/gopher-lua"
)

// gopher-lua's instruction word (Lua 5.1's layout):
//
//	bits 26-31 opcode, 18-25 A, 9-17 C, 0-8 B; or 0-17 Bx, or sBx = Bx - maxSBx.
//
// An RK operand (B or C) with bitRK set is a constant index.
const (
	maxA       = 1<<8 - 1
	maxB       = 1<<9 - 1
	maxC       = 1<<9 - 1
	maxBx      = 1<<18 - 1
	maxSBx     = maxBx >> 1
	bitRK      = 1 << 8
	maxIndexRK = bitRK - 1
	noJump     = -1
	noReg      = maxA // an invalid register: "no register" in jump lists
	multRet    = -1
)

func abc(op, a, b, c int) uint32 {
	return uint32(op)<<26 | uint32(a&0xff)<<18 | uint32(c&0x1ff)<<9 | uint32(b&0x1ff)
}

func abx(op, a, bx int) uint32 { return uint32(op)<<26 | uint32(a&0xff)<<18 | uint32(bx&0x3ffff) }

func opOf(i uint32) int  { return int(i >> 26) }
func argA(i uint32) int  { return int(i>>18) & 0xff }
func argB(i uint32) int  { return int(i & 0x1ff) }
func argC(i uint32) int  { return int(i>>9) & 0x1ff }
func argBx(i uint32) int { return int(i & 0x3ffff) }
func argSBx(i uint32) int {
	return argBx(i) - maxSBx
}

func setA(i *uint32, a int)   { *i = *i&^(0xff<<18) | uint32(a&0xff)<<18 }
func setB(i *uint32, b int)   { *i = *i&^0x1ff | uint32(b&0x1ff) }
func setC(i *uint32, c int)   { *i = *i&^(0x1ff<<9) | uint32(c&0x1ff)<<9 }
func setSBx(i *uint32, s int) { *i = *i&^0x3ffff | uint32((s+maxSBx)&0x3ffff) }
func setOp(i *uint32, op int) { *i = *i&^(0x3f<<26) | uint32(op)<<26 }

func isK(x int) bool   { return x&bitRK != 0 }
func rkAsK(k int) int  { return k | bitRK }
func indexK(x int) int { return x &^ bitRK }
func isTestOp(op int) bool {
	switch op {
	case lua.OP_EQ, lua.OP_LT, lua.OP_LE, lua.OP_TEST, lua.OP_TESTSET, lua.OP_TFORLOOP:
		return true
	}
	return false
}

// emit appends an instruction on line and returns its pc. Jumps waiting
// for "the next instruction" (jpc) are resolved to it first.
func (fs *funcState) emit(i uint32, line int) int {
	fs.dischargeJpc()
	fs.code = append(fs.code, i)
	fs.lines = append(fs.lines, line)
	return len(fs.code) - 1
}

func (fs *funcState) emitABC(op, a, b, c int) int { return fs.emit(abc(op, a, b, c), fs.line) }
func (fs *funcState) emitABx(op, a, bx int) int   { return fs.emit(abx(op, a, bx), fs.line) }
func (fs *funcState) pc() int                     { return len(fs.code) }

// emitK loads constant k into register reg.
func (fs *funcState) emitK(reg, k int) int { return fs.emitABx(lua.OP_LOADK, reg, k) }

// label marks the current pc as a jump target, which stops emitNil from
// merging a LOADNIL into the instruction before it.
func (fs *funcState) label() int {
	fs.lastTarget = fs.pc()
	return fs.pc()
}

// jump emits an unconditional jump, carrying the jumps that were waiting
// for this pc along with it.
func (fs *funcState) jump() int {
	jpc := fs.jpc
	fs.jpc = noJump
	j := fs.emit(abx(lua.OP_JMP, 0, noJump+maxSBx), fs.line)
	fs.concat(&j, jpc)
	return j
}

// condJump emits a test and the jump taken when it holds.
func (fs *funcState) condJump(op, a, b, c int) int {
	fs.emitABC(op, a, b, c)
	return fs.jump()
}

func (fs *funcState) getJump(pc int) int {
	off := argSBx(fs.code[pc])
	if off == noJump {
		return noJump
	}
	return pc + 1 + off
}

func (fs *funcState) fixJump(pc, dest int) {
	off := dest - (pc + 1)
	if off < -maxSBx || off > maxSBx {
		fs.fail("control structure too long")
	}
	setSBx(&fs.code[pc], off)
}

// concat appends jump list l2 to jump list *l1.
func (fs *funcState) concat(l1 *int, l2 int) {
	switch {
	case l2 == noJump:
	case *l1 == noJump:
		*l1 = l2
	default:
		list := *l1
		for next := fs.getJump(list); next != noJump; next = fs.getJump(list) {
			list = next
		}
		fs.fixJump(list, l2)
	}
}

// jumpControl is the instruction that decides whether the jump at pc is
// taken: the test before it, or the jump itself.
func (fs *funcState) jumpControl(pc int) *uint32 {
	if pc >= 1 && isTestOp(opOf(fs.code[pc-1])) {
		return &fs.code[pc-1]
	}
	return &fs.code[pc]
}

// needValue reports whether some jump of the list is not a TESTSET, so it
// produces no value of its own.
func (fs *funcState) needValue(list int) bool {
	for ; list != noJump; list = fs.getJump(list) {
		if opOf(*fs.jumpControl(list)) != lua.OP_TESTSET {
			return true
		}
	}
	return false
}

// patchTestReg makes the TESTSET controlling the jump at node store into
// reg, or turns it into a TEST when there is no register to store into.
func (fs *funcState) patchTestReg(node, reg int) bool {
	i := fs.jumpControl(node)
	if opOf(*i) != lua.OP_TESTSET {
		return false
	}
	if reg != noReg && reg != argB(*i) {
		setA(i, reg)
	} else {
		*i = abc(lua.OP_TEST, argB(*i), 0, argC(*i))
	}
	return true
}

func (fs *funcState) removeValues(list int) {
	for ; list != noJump; list = fs.getJump(list) {
		fs.patchTestReg(list, noReg)
	}
}

// patchListAux points the jumps of list at vtarget when their test leaves
// a value in reg, else at dtarget.
func (fs *funcState) patchListAux(list, vtarget, reg, dtarget int) {
	for list != noJump {
		next := fs.getJump(list)
		if fs.patchTestReg(list, reg) {
			fs.fixJump(list, vtarget)
		} else {
			fs.fixJump(list, dtarget)
		}
		list = next
	}
}

func (fs *funcState) dischargeJpc() {
	fs.patchListAux(fs.jpc, len(fs.code), noReg, len(fs.code))
	fs.jpc = noJump
}

// patchList points the jumps of list at target, an instruction already
// emitted.
func (fs *funcState) patchList(list, target int) {
	if target == fs.pc() {
		fs.patchToHere(list)
		return
	}
	fs.patchListAux(list, target, noReg, target)
}

// patchToHere points the jumps of list at the next instruction emitted.
func (fs *funcState) patchToHere(list int) {
	fs.label()
	fs.concat(&fs.jpc, list)
}

// emitNil sets registers from..from+n-1 to nil, merging with a LOADNIL
// just before when it can.
func (fs *funcState) emitNil(from, n int) {
	if fs.pc() > fs.lastTarget { // no jump lands here
		if fs.pc() == 0 {
			if from >= fs.nactvar {
				return // a function starts with its registers nil
			}
		} else if prev := &fs.code[fs.pc()-1]; opOf(*prev) == lua.OP_LOADNIL {
			pfrom, pto := argA(*prev), argB(*prev)
			if pfrom <= from && from <= pto+1 {
				if from+n-1 > pto {
					setB(prev, from+n-1)
				}
				return
			}
		}
	}
	fs.emitABC(lua.OP_LOADNIL, from, from+n-1, 0)
}

// emitReturn returns n values from register first (n = multRet: up to the
// top).
func (fs *funcState) emitReturn(first, n int) {
	fs.emitABC(lua.OP_RETURN, first, n+1, 0)
}

// setList stores tostore pending list items of the table in base into
// positions ending at nelems (tostore = multRet: up to the top).
func (fs *funcState) setList(base, nelems, tostore int) {
	c := (nelems-1)/lua.FieldsPerFlush + 1
	b := tostore
	if tostore == multRet {
		b = 0
	}
	if c <= maxC {
		fs.emitABC(lua.OP_SETLIST, base, b, c)
	} else {
		fs.emitABC(lua.OP_SETLIST, base, b, 0)
		fs.emit(uint32(c), fs.line)
	}
	fs.freereg = base + 1
}
