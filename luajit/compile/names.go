package compile

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"
)

// LuaJIT's run-time messages name the variable an operand came from
// ("attempt to index local 't' (a nil value)"). As LuaJIT does, the name
// is read back from the bytecode: the local that lives in the register at
// that pc, else the instruction that last wrote the register before it,
// scanning backwards (a global, a field, an upvalue, a method, or a copy
// of another register, followed).

// pseudoInstructions marks the words of p's code that are operands of
// the instruction before them (CLOSURE's upvalue captures, SETLIST's long
// count) rather than instructions.
func pseudoInstructions(p *lua.FunctionProto, upto int) []bool {
	pseudo := make([]bool, len(p.Code))
	for pc := 0; pc < len(p.Code) && pc < upto; pc++ {
		i := p.Code[pc]
		switch opOf(i) {
		case lua.OP_CLOSURE:
			if bx := argBx(i); bx < len(p.FunctionPrototypes) {
				for k := 1; k <= int(p.FunctionPrototypes[bx].NumUpvalues) && pc+k < len(pseudo); k++ {
					pseudo[pc+k] = true
				}
				pc += int(p.FunctionPrototypes[bx].NumUpvalues)
			}
		case lua.OP_SETLIST:
			if argC(i) == 0 && pc+1 < len(pseudo) {
				pseudo[pc+1] = true
				pc++
			}
		}
	}
	return pseudo
}

// localName is the local in register reg at pc, if any.
func localName(p *lua.FunctionProto, reg, pc int) string {
	n := reg + 1
	for _, l := range p.DbgLocals {
		if l.StartPc > pc {
			break
		}
		if pc < l.EndPc {
			n--
			if n == 0 {
				return l.Name
			}
		}
	}
	return ""
}

// slotName names what register slot holds at pc: its kind ("local",
// "global", "field", "upvalue", "method") and name, or "" when unknown.
func slotName(p *lua.FunctionProto, pc, slot int) (kind, name string) {
	if pc < 0 || pc >= len(p.Code) {
		return "", ""
	}
	pseudo := pseudoInstructions(p, pc)
	ip := pc
	for {
		if n := localName(p, slot, pc); n != "" {
			return "local", n
		}
		followed := false
		for ip--; ip >= 0 && !followed; ip-- {
			if pseudo[ip] {
				continue
			}
			i := p.Code[ip]
			op, a := opOf(i), argA(i)
			switch op {
			case lua.OP_MOVE:
				if a == slot {
					slot, followed = argB(i), true
				}
			case lua.OP_GETGLOBAL:
				if a == slot {
					return "global", constString(p, argBx(i))
				}
			case lua.OP_GETTABLE, lua.OP_GETTABLEKS:
				if a == slot {
					if c := argC(i); isK(c) {
						if s, ok := p.Constants[indexK(c)].(lua.LString); ok {
							return "field", string(s)
						}
					}
					return "", ""
				}
			case lua.OP_GETUPVAL:
				if a == slot {
					if b := argB(i); b < len(p.DbgUpvalues) {
						return "upvalue", p.DbgUpvalues[b]
					}
					return "", ""
				}
			case lua.OP_SELF:
				switch slot {
				case a:
					if c := argC(i); isK(c) {
						return "method", constString(p, indexK(c))
					}
					return "", ""
				case a + 1:
					slot, followed = argB(i), true
				}
			case lua.OP_LOADNIL:
				if slot >= a && slot <= argB(i) {
					return "", ""
				}
			case lua.OP_CALL, lua.OP_TAILCALL, lua.OP_VARARG, lua.OP_TFORLOOP,
				lua.OP_FORLOOP, lua.OP_FORPREP:
				if slot >= a {
					return "", "" // results (or loop state) from a up
				}
			case lua.OP_SETGLOBAL, lua.OP_SETUPVAL, lua.OP_SETTABLE, lua.OP_SETTABLEKS,
				lua.OP_JMP, lua.OP_EQ, lua.OP_LT, lua.OP_LE, lua.OP_TEST, lua.OP_RETURN,
				lua.OP_SETLIST, lua.OP_CLOSE, lua.OP_NOP:
				// A is not written.
			default:
				if a == slot {
					return "", ""
				}
			}
		}
		if !followed {
			return "", ""
		}
		ip++ // the loop's post statement moved past the MOVE already
	}
}

func constString(p *lua.FunctionProto, k int) string {
	if k < len(p.Constants) {
		if s, ok := p.Constants[k].(lua.LString); ok {
			return string(s)
		}
	}
	return "?"
}

// varInfo is slotName as LuaJIT's messages put it: "local 't' ", or "".
func varInfo(p *lua.FunctionProto, pc, slot int) string {
	if kind, name := slotName(p, pc, slot); kind != "" {
		return fmt.Sprintf("%s '%s' ", kind, name)
	}
	return ""
}
