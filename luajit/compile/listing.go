package compile

import (
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

var opNames = [...]string{
	lua.OP_MOVE: "MOVE", lua.OP_MOVEN: "MOVEN", lua.OP_LOADK: "LOADK", lua.OP_LOADBOOL: "LOADBOOL",
	lua.OP_LOADNIL: "LOADNIL", lua.OP_GETUPVAL: "GETUPVAL", lua.OP_GETGLOBAL: "GETGLOBAL",
	lua.OP_GETTABLE: "GETTABLE", lua.OP_GETTABLEKS: "GETTABLEKS", lua.OP_SETGLOBAL: "SETGLOBAL",
	lua.OP_SETUPVAL: "SETUPVAL", lua.OP_SETTABLE: "SETTABLE", lua.OP_SETTABLEKS: "SETTABLEKS",
	lua.OP_NEWTABLE: "NEWTABLE", lua.OP_SELF: "SELF", lua.OP_ADD: "ADD", lua.OP_SUB: "SUB",
	lua.OP_MUL: "MUL", lua.OP_DIV: "DIV", lua.OP_MOD: "MOD", lua.OP_POW: "POW", lua.OP_UNM: "UNM",
	lua.OP_NOT: "NOT", lua.OP_LEN: "LEN", lua.OP_CONCAT: "CONCAT", lua.OP_JMP: "JMP", lua.OP_EQ: "EQ",
	lua.OP_LT: "LT", lua.OP_LE: "LE", lua.OP_TEST: "TEST", lua.OP_TESTSET: "TESTSET", lua.OP_CALL: "CALL",
	lua.OP_TAILCALL: "TAILCALL", lua.OP_RETURN: "RETURN", lua.OP_FORLOOP: "FORLOOP",
	lua.OP_FORPREP: "FORPREP", lua.OP_TFORLOOP: "TFORLOOP", lua.OP_SETLIST: "SETLIST",
	lua.OP_CLOSE: "CLOSE", lua.OP_CLOSURE: "CLOSURE", lua.OP_VARARG: "VARARG", lua.OP_NOP: "NOP",
}

// Listing renders a proto and its nested functions as text, one
// instruction a line with its line number, operands and what they name:
// the golden form the compiler's tests compare.
func Listing(p *lua.FunctionProto) string {
	var b strings.Builder
	listing(&b, p, "main")
	return b.String()
}

func listing(b *strings.Builder, p *lua.FunctionProto, name string) {
	fmt.Fprintf(b, "function %s (lines %d-%d): %d params%s, %d upvalues, %d registers\n",
		name, p.LineDefined, p.LastLineDefined, p.NumParameters, varargText(p), p.NumUpvalues, p.NumUsedRegisters)
	for i, l := range p.DbgLocals {
		fmt.Fprintf(b, "  local %d %s pc %d-%d\n", i, l.Name, l.StartPc, l.EndPc)
	}
	for i, u := range p.DbgUpvalues {
		fmt.Fprintf(b, "  upvalue %d %s\n", i, u)
	}
	pseudo := pseudoInstructions(p, len(p.Code))
	for pc, i := range p.Code {
		if pseudo[pc] {
			fmt.Fprintf(b, "  %4d [%d]   (%s %d %d)\n", pc, p.DbgSourcePositions[pc], opNames[opOf(i)], argA(i), argB(i))
			continue
		}
		fmt.Fprintf(b, "  %4d [%d] %s\n", pc, p.DbgSourcePositions[pc], instructionText(p, pc, i))
	}
	for i, child := range p.FunctionPrototypes {
		b.WriteString("\n")
		listing(b, child, fmt.Sprintf("%s.%d", name, i))
	}
}

func varargText(p *lua.FunctionProto) string {
	if p.IsVarArg != 0 {
		return " + ..."
	}
	return ""
}

func rkText(p *lua.FunctionProto, x int) string {
	if isK(x) {
		return constText(p, indexK(x))
	}
	return fmt.Sprintf("r%d", x)
}

func constText(p *lua.FunctionProto, k int) string {
	switch v := p.Constants[k].(type) {
	case lua.LString:
		return fmt.Sprintf("%q", string(v))
	case *lua.LFunction:
		if v == concatIntrinsic {
			return "<concat>"
		}
		return "<function>"
	default:
		return v.String()
	}
}

func instructionText(p *lua.FunctionProto, pc int, i uint32) string {
	op, a, b, c := opOf(i), argA(i), argB(i), argC(i)
	name := opNames[op]
	switch op {
	case lua.OP_LOADK:
		return fmt.Sprintf("%-10s r%d %s", name, a, constText(p, argBx(i)))
	case lua.OP_GETGLOBAL, lua.OP_SETGLOBAL:
		return fmt.Sprintf("%-10s r%d %s", name, a, constText(p, argBx(i)))
	case lua.OP_CLOSURE:
		return fmt.Sprintf("%-10s r%d f%d", name, a, argBx(i))
	case lua.OP_JMP, lua.OP_FORLOOP, lua.OP_FORPREP:
		return fmt.Sprintf("%-10s r%d -> %d", name, a, pc+1+argSBx(i))
	case lua.OP_MOVE, lua.OP_UNM, lua.OP_NOT, lua.OP_LEN:
		if op == lua.OP_MOVE {
			return fmt.Sprintf("%-10s r%d r%d", name, a, b)
		}
		return fmt.Sprintf("%-10s r%d %s", name, a, rkText(p, b))
	case lua.OP_GETUPVAL, lua.OP_SETUPVAL:
		return fmt.Sprintf("%-10s r%d u%d", name, a, b)
	case lua.OP_GETTABLE, lua.OP_GETTABLEKS, lua.OP_SELF:
		return fmt.Sprintf("%-10s r%d r%d %s", name, a, b, rkText(p, c))
	case lua.OP_SETTABLE, lua.OP_SETTABLEKS:
		return fmt.Sprintf("%-10s r%d %s %s", name, a, rkText(p, b), rkText(p, c))
	case lua.OP_ADD, lua.OP_SUB, lua.OP_MUL, lua.OP_DIV, lua.OP_MOD, lua.OP_POW,
		lua.OP_EQ, lua.OP_LT, lua.OP_LE:
		return fmt.Sprintf("%-10s %d %s %s", name, a, rkText(p, b), rkText(p, c))
	}
	return fmt.Sprintf("%-10s %d %d %d", name, a, b, c)
}
