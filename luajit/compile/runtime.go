package compile

import (
	"regexp"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/luajit/number"
	"github.com/sysbench-go/sysbench-go/luajit/vm"
)

// gopher-lua's VM words its run-time errors its own way and names no
// variable. TranslateError rewrites them as LuaJIT does, from the frame
// that raised them: run it where the error is caught (a protected call's
// handler), while that frame is still on the stack.

var (
	reIndex   = regexp.MustCompile(`^attempt to index a non-table object\((\w+)\) with key '.*'$`)
	reArith   = regexp.MustCompile(`^cannot perform \w+ operation between (\w+) and (\w+)$`)
	reCompare = regexp.MustCompile(`^attempt to compare (\w+) with (\w+)$`)
)

// vmMessages are gopher-lua's fixed texts and LuaJIT's for them.
var vmMessages = map[string]string{
	"for statement init must be a number":  "'for' initial value must be a number",
	"for statement limit must be a number": "'for' limit must be a number",
	"for statement step must be a number":  "'for' step must be a number",
	"too many recursions in gettable":      "loop in gettable",
	"too many recursions in settable":      "loop in settable",
	"stack overflow":                       "stack overflow",
	"registry overflow":                    "stack overflow",
	"lua callstack overflow":               "stack overflow",
}

var forMessages = [3]string{"'for' initial value must be a number", "'for' limit must be a number", "'for' step must be a number"}

// TranslateError returns msg, an error message raised by the frame at
// level of L's stack, in LuaJIT's words; other messages come back as
// they are.
func TranslateError(L *lua.LState, level int, msg string) string {
	pos, text := splitPosition(msg)
	f, ok := vm.FrameAt(L, level)
	if !ok || f.Fn == nil {
		return msg
	}
	var p *lua.FunctionProto
	pc := -1
	if !f.Fn.IsG && f.Pc > 0 && f.Pc <= len(f.Fn.Proto.Code) {
		p, pc = f.Fn.Proto, f.Pc-1
	}
	pos = shortPosition(L, level, pos)
	if out, ok := translate(L, f, p, pc, text); ok {
		return pos + out
	}
	return pos + text
}

// shortPosition turns the position gopher-lua gives its own errors, the
// source of the nearest Lua function at or above level ("@file:3: "),
// into the short form LuaJIT's messages have ("file:3: "). A position
// that is not that source's (a message error() made) stays as it is.
func shortPosition(L *lua.LState, level int, pos string) string {
	if pos == "" {
		return pos
	}
	for ; ; level++ {
		f, ok := vm.FrameAt(L, level)
		if !ok {
			return pos
		}
		if f.Fn == nil || f.Fn.IsG {
			continue
		}
		src := f.Fn.Proto.SourceName
		if strings.HasPrefix(pos, src+":") {
			return ShortSource(src) + pos[len(src):]
		}
		return pos
	}
}

// splitPosition separates gopher-lua's "chunk:line: " prefix (which is
// LuaJIT's too) from the message.
func splitPosition(msg string) (pos, text string) {
	// The chunk name may hold colons; the position ends at ": " after
	// the line number.
	for i := 0; i < len(msg); i++ {
		if msg[i] != ':' {
			continue
		}
		j := i + 1
		for j < len(msg) && msg[j] >= '0' && msg[j] <= '9' {
			j++
		}
		if j > i+1 && j+1 < len(msg) && msg[j] == ':' && msg[j+1] == ' ' {
			return msg[:j+2], msg[j+2:]
		}
	}
	return "", msg
}

func translate(L *lua.LState, f vm.Frame, p *lua.FunctionProto, pc int, text string) (string, bool) {
	if s, ok := vmMessages[text]; ok {
		if p != nil && strings.HasPrefix(text, "for statement") {
			if s, ok := forCoercionMessage(p, pc); ok {
				return s, true
			}
		}
		return s, true
	}
	var op int
	if p != nil {
		op = opOf(p.Code[pc])
	}
	reg := func(r int) lua.LValue { return vm.Register(L, f.LocalBase+r) }
	rk := func(x int) (lua.LValue, string) {
		if isK(x) {
			return p.Constants[indexK(x)], ""
		}
		return reg(x), varInfo(p, pc, x)
	}
	switch {
	case text == "attempt to call a non-function object":
		if p != nil && (op == lua.OP_CALL || op == lua.OP_TAILCALL || op == lua.OP_TFORLOOP) {
			a := argA(p.Code[pc])
			info := ""
			if op != lua.OP_TFORLOOP {
				info = varInfo(p, pc, a)
			}
			return "attempt to call " + operand(info, reg(a)), true
		}
		return "attempt to call a nil value", false
	case text == "__unm undefined" || text == "__len undefined":
		what := "perform arithmetic on "
		if text == "__len undefined" {
			what = "get length of "
		}
		if p != nil && (op == lua.OP_UNM || op == lua.OP_LEN) {
			v, info := rk(argB(p.Code[pc]))
			return "attempt to " + what + operand(info, v), true
		}
		return "", false
	}
	if m := reIndex.FindStringSubmatch(text); m != nil {
		if p != nil {
			i := p.Code[pc]
			r := -1
			switch op {
			case lua.OP_GETTABLE, lua.OP_GETTABLEKS, lua.OP_SELF:
				r = argB(i)
			case lua.OP_SETTABLE, lua.OP_SETTABLEKS:
				r = argA(i)
			}
			if r >= 0 {
				if v := reg(r); typeNameOf(v) == m[1] || v.Type().String() == m[1] {
					return "attempt to index " + operand(varInfo(p, pc, r), v), true
				}
			}
		}
		return "attempt to index a " + m[1] + " value", true
	}
	if m := reArith.FindStringSubmatch(text); m != nil {
		if p != nil && op >= lua.OP_ADD && op <= lua.OP_POW {
			i := p.Code[pc]
			if s, ok := forCoercionMessage(p, pc); ok {
				return s, true
			}
			b, binfo := rk(argB(i))
			c, cinfo := rk(argC(i))
			if isArithOperand(b) {
				return "attempt to perform arithmetic on " + operand(cinfo, c), true
			}
			return "attempt to perform arithmetic on " + operand(binfo, b), true
		}
		culprit := m[1]
		if culprit == "number" {
			culprit = m[2]
		}
		return "attempt to perform arithmetic on a " + culprit + " value", true
	}
	if m := reCompare.FindStringSubmatch(text); m != nil && m[1] == m[2] {
		return "attempt to compare two " + m[1] + " values", true
	}
	return "", false
}

// operand is how LuaJIT's messages name an operand: "local 't' (a nil
// value)", or "a nil value" when it has no name.
func operand(info string, v lua.LValue) string {
	if info == "" {
		return "a " + typeNameOf(v) + " value"
	}
	return info + "(a " + typeNameOf(v) + " value)"
}

func isArithOperand(v lua.LValue) bool {
	switch x := v.(type) {
	case lua.LNumber:
		return true
	case lua.LString:
		_, ok := parseArith(string(x))
		return ok
	}
	return false
}

// forCoercionMessage recognises the "x - 0" a numeric for applies to its
// values before FORPREP, and the FORPREP and FORLOOP themselves, and
// names the value that is not a number as LuaJIT does.
func forCoercionMessage(p *lua.FunctionProto, pc int) (string, bool) {
	i := p.Code[pc]
	switch opOf(i) {
	case lua.OP_SUB:
		a := argA(i)
		if argB(i) != a {
			return "", false
		}
		for k := pc + 1; k < len(p.Code) && k <= pc+4; k++ {
			switch n := p.Code[k]; opOf(n) {
			case lua.OP_SUB, lua.OP_LOADK:
				continue
			case lua.OP_FORPREP:
				if d := a - argA(n); d >= 0 && d < 3 {
					return forMessages[d], true
				}
			}
			break
		}
	}
	return "", false
}

// CallerName names the function the frame at level was called as, from
// the calling code: its kind ("global", "local", "method", "field",
// "upvalue") and name, or "" when the caller is not Lua code or the
// callee has no name there.
func CallerName(L *lua.LState, level int) (kind, name string) {
	f, ok := vm.FrameAt(L, level+1)
	if !ok || f.Fn == nil || f.Fn.IsG || f.Pc <= 0 {
		return "", ""
	}
	p := f.Fn.Proto
	i := p.Code[f.Pc-1]
	switch opOf(i) {
	case lua.OP_CALL, lua.OP_TAILCALL:
		return slotName(p, f.Pc-1, argA(i))
	}
	return "", ""
}

func parseArith(s string) (float64, bool) { return number.Parse(s) }
