package luajit

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/luajit/compile"
	"github.com/sysbench-go/sysbench-go/luajit/vm"
)

// registerDebug completes the debug library as far as gopher-lua's VM
// exposes its frames: getinfo with LuaJIT's fields and names, getlocal's
// errors, traceback in LuaJIT's format, getregistry, debug.debug, and
// sethook/gethook, which remember a hook that the VM never calls (it has
// no hook mechanism: docs/differences.md).
func registerDebug(L *lua.LState) {
	dbg, ok := L.GetGlobal("debug").(*lua.LTable)
	if !ok {
		return
	}
	hooks := &hookState{}
	for name, fn := range map[string]lua.LGFunction{
		"debug":       debugDebug,
		"gethook":     hooks.get,
		"getinfo":     debugGetinfo,
		"getlocal":    debugGetlocal,
		"getregistry": func(L *lua.LState) int { L.Push(L.Get(lua.RegistryIndex)); return 1 },
		"sethook":     hooks.set,
		"traceback":   debugTraceback,
		"getupvalue":  debugGetupvalue,
		"setupvalue":  debugSetupvalue,
		"setmetatable": func(L *lua.LState) int {
			mt := L.Get(2)
			if _, ok := mt.(*lua.LTable); !ok && mt != lua.LNil {
				argError(L, 2, "nil or table expected")
			}
			L.SetMetatable(L.Get(1), mt)
			L.Push(lua.LTrue)
			return 1
		},
	} {
		dbg.RawSetString(name, L.NewFunction(fn))
	}
}

// threadArg is the optional thread first argument of the debug functions:
// the state to inspect and the index of the next argument.
func threadArg(L *lua.LState) (*lua.LState, int) {
	if co, ok := L.Get(1).(*lua.LState); ok {
		return co, 2
	}
	return L, 1
}

// hookState is what sethook set in one Lua state.
type hookState struct {
	fn    lua.LValue
	mask  string
	count int32
}

func (h *hookState) set(L *lua.LState) int {
	_, arg := threadArg(L)
	if L.Get(arg) == lua.LNil {
		*h = hookState{}
		return 0
	}
	fn := checkFunc(L, arg)
	mask := CheckStr(L, arg+1)
	count := optInt(L, arg+2, 0)
	var m strings.Builder
	for _, c := range "crl" {
		if strings.ContainsRune(mask, c) {
			m.WriteRune(c)
		}
	}
	*h = hookState{fn: fn, mask: m.String(), count: count}
	return 0
}

func (h *hookState) get(L *lua.LState) int {
	if h.fn == nil {
		L.Push(lua.LNil)
	} else {
		L.Push(h.fn)
	}
	L.Push(lua.LString(h.mask))
	L.Push(lua.LNumber(h.count))
	return 3
}

// debugGetinfo is debug.getinfo([thread,] level|f [, what]).
func debugGetinfo(L *lua.LState) int {
	co, arg := threadArg(L)
	what := optStr(L, arg+1, "flnSu")
	var d *lua.Debug
	var fn *lua.LFunction
	level := -1
	switch v := L.Get(arg).(type) {
	case *lua.LFunction:
		fn = v
		d = &lua.Debug{}
	case lua.LNumber, lua.LString:
		level = int(checkInt(L, arg))
		var ok bool
		if d, ok = co.GetStack(level); !ok || level < 0 {
			L.Push(lua.LNil)
			return 1
		}
		fv, err := co.GetInfo("f", d, lua.LNil)
		if err != nil {
			L.Push(lua.LNil)
			return 1
		}
		fn = fv.(*lua.LFunction)
	default:
		argError(L, arg, "function or level expected")
	}
	for _, c := range what {
		if !strings.ContainsRune("SlnufL", c) {
			argError(L, arg+1, "invalid option")
		}
	}
	t := L.CreateTable(0, 12)
	if strings.ContainsRune(what, 'S') {
		if fn.IsG {
			t.RawSetString("source", lua.LString("=[C]"))
			t.RawSetString("short_src", lua.LString("[C]"))
			t.RawSetString("what", lua.LString("C"))
			t.RawSetString("linedefined", lua.LNumber(-1))
			t.RawSetString("lastlinedefined", lua.LNumber(-1))
		} else {
			p := fn.Proto
			t.RawSetString("source", lua.LString(p.SourceName))
			t.RawSetString("short_src", lua.LString(compile.ShortSource(p.SourceName)))
			kind := "Lua"
			if p.LineDefined == 0 {
				kind = "main"
			}
			t.RawSetString("what", lua.LString(kind))
			t.RawSetString("linedefined", lua.LNumber(p.LineDefined))
			t.RawSetString("lastlinedefined", lua.LNumber(p.LastLineDefined))
		}
	}
	if strings.ContainsRune(what, 'l') {
		line := -1
		if level >= 0 && !fn.IsG {
			if _, err := co.GetInfo("l", d, lua.LNil); err == nil {
				line = d.CurrentLine
			}
		}
		t.RawSetString("currentline", lua.LNumber(line))
	}
	if strings.ContainsRune(what, 'u') {
		t.RawSetString("nups", lua.LNumber(len(fn.Upvalues)))
	}
	if strings.ContainsRune(what, 'n') {
		name, namewhat := "", ""
		if level >= 0 {
			namewhat, name = frameName(co, level)
		}
		if name != "" {
			t.RawSetString("name", lua.LString(name))
		}
		t.RawSetString("namewhat", lua.LString(namewhat))
	}
	if strings.ContainsRune(what, 'f') {
		t.RawSetString("func", fn)
	}
	if strings.ContainsRune(what, 'L') && !fn.IsG {
		lines := L.CreateTable(0, len(fn.Proto.DbgSourcePositions))
		for _, l := range fn.Proto.DbgSourcePositions {
			lines.RawSetInt(l, lua.LTrue)
		}
		t.RawSetString("activelines", lines)
	}
	L.Push(t)
	return 1
}

// frameName is the namewhat and name of the function running at level:
// as the calling code named it (compile.CallerName), or for a metamethod
// "metamethod" and the event the calling instruction raised ("__index"
// for t.x), as LuaJIT's debug.getinfo answers.
func frameName(L *lua.LState, level int) (namewhat, name string) {
	if namewhat, name = compile.CallerName(L, level); name != "" {
		return namewhat, name
	}
	f, ok := vm.FrameAt(L, level+1)
	if !ok || f.Fn == nil {
		return "", ""
	}
	if f.Fn.IsG {
		if ev := compile.IntrinsicEvent(f.Fn); ev != "" {
			return "metamethod", ev
		}
		return "", ""
	}
	if f.Pc <= 0 || f.Pc > len(f.Fn.Proto.Code) {
		return "", ""
	}
	if ev := metamethodEvents[int(f.Fn.Proto.Code[f.Pc-1]>>26)]; ev != "" {
		return "metamethod", ev
	}
	return "", ""
}

// metamethodEvents are the events of the instructions that call
// metamethods, by opcode.
var metamethodEvents = map[int]string{
	lua.OP_GETTABLE: "__index", lua.OP_GETTABLEKS: "__index", lua.OP_SELF: "__index",
	lua.OP_SETTABLE: "__newindex", lua.OP_SETTABLEKS: "__newindex",
	lua.OP_ADD: "__add", lua.OP_SUB: "__sub", lua.OP_MUL: "__mul", lua.OP_DIV: "__div",
	lua.OP_MOD: "__mod", lua.OP_POW: "__pow", lua.OP_UNM: "__unm", lua.OP_LEN: "__len",
	lua.OP_EQ: "__eq", lua.OP_LT: "__lt", lua.OP_LE: "__le",
}

// debugGetlocal is debug.getlocal([thread,] level, n).
func debugGetlocal(L *lua.LState) int {
	co, arg := threadArg(L)
	level := int(checkInt(L, arg))
	n := int(checkInt(L, arg+1))
	d, ok := co.GetStack(level)
	if !ok || level < 0 {
		argError(L, arg, "level out of range")
	}
	name, v := co.GetLocal(d, n)
	if name == "" {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(lua.LString(name))
	L.Push(v)
	return 2
}

// Traceback levels shown before and after the "..." of a deep stack.
const (
	tracebackFirst = 12
	tracebackLast  = 10
)

// debugTraceback is debug.traceback([thread,] [msg [, level]]) in
// LuaJIT's format; a msg that is not a string or number is returned as
// it is.
func debugTraceback(L *lua.LState) int {
	co, arg := threadArg(L)
	msg := L.Get(arg)
	switch msg.(type) {
	case lua.LString, lua.LNumber:
	default:
		if L.GetTop() >= arg {
			L.Push(msg)
			return 1
		}
	}
	level := 0
	if co == L {
		level = 1
	}
	level = int(optInt(L, arg+1, int32(level)))
	var b strings.Builder
	if msg != lua.LNil {
		b.WriteString(CheckStr(L, arg))
		b.WriteByte('\n')
	}
	b.WriteString(traceback(co, level))
	L.Push(lua.LString(b.String()))
	return 1
}

// traceback is "stack traceback:" and a line per frame from level on.
func traceback(L *lua.LState, level int) string {
	depth := level
	for {
		if _, ok := L.GetStack(depth); !ok {
			break
		}
		depth++
	}
	var b strings.Builder
	b.WriteString("stack traceback:")
	lim := tracebackFirst
	for l := level; l < depth; l++ {
		// LuaJIT's cut: past level 11, when more than 10 levels are left,
		// "..." and the last 10.
		if l+1 > lim {
			lim = math.MaxInt
			if l+1+tracebackLast < depth {
				b.WriteString("\n\t...")
				l = depth - tracebackLast - 1
				continue
			}
		}
		d, _ := L.GetStack(l)
		fv, err := L.GetInfo("Slf", d, lua.LNil)
		fn, _ := fv.(*lua.LFunction)
		if err != nil || fn == nil {
			continue
		}
		namewhat, name := frameName(L, l)
		b.WriteString("\n\t")
		if fn.IsG {
			b.WriteString("[C]:")
		} else {
			b.WriteString(compile.ShortSource(fn.Proto.SourceName) + ":")
			if d.CurrentLine > 0 {
				b.WriteString(strconv.Itoa(d.CurrentLine) + ":")
			}
		}
		switch {
		case namewhat != "" || fn.IsG && name != "":
			b.WriteString(" in function '" + name + "'")
		case !fn.IsG && fn.Proto.LineDefined == 0:
			b.WriteString(" in main chunk")
		case fn.IsG:
			fmt.Fprintf(&b, " at %p", fn)
		default:
			fmt.Fprintf(&b, " in function <%s:%d>", compile.ShortSource(fn.Proto.SourceName), fn.Proto.LineDefined)
		}
	}
	return b.String()
}

// debugDebug is debug.debug(): Lua lines read from standard input and
// run, until "cont" or the end of the input.
func debugDebug(L *lua.LState) int {
	in := bufio.NewScanner(os.Stdin)
	for {
		fmt.Fprint(os.Stderr, "lua_debug> ")
		if !in.Scan() || in.Text() == "cont" {
			return 0
		}
		load, ok := L.GetGlobal("loadstring").(*lua.LFunction)
		if !ok {
			return 0
		}
		L.Push(load)
		L.Push(lua.LString(in.Text()))
		L.Push(lua.LString("=(debug command)"))
		L.Call(2, 2)
		fn, msg := L.Get(-2), L.Get(-1)
		L.Pop(2)
		if fn == lua.LNil {
			fmt.Fprintln(os.Stderr, lua.LVAsString(msg))
			continue
		}
		L.Push(fn)
		if err := L.PCall(0, 0, nil); err != nil {
			fmt.Fprintln(os.Stderr, err.Error())
		}
	}
}

// debugGetupvalue is debug.getupvalue(f, n): its name and value, nothing
// when f has no upvalue n.
func debugGetupvalue(L *lua.LState) int {
	fn := checkFunc(L, 1)
	n := int(checkInt(L, 2))
	name, v := L.GetUpvalue(fn, n)
	if name == "" {
		return 0
	}
	L.Push(lua.LString(name))
	L.Push(v)
	return 2
}

// debugSetupvalue is debug.setupvalue(f, n, v): the upvalue's name,
// nothing when f has no upvalue n.
func debugSetupvalue(L *lua.LState) int {
	fn := checkFunc(L, 1)
	n := int(checkInt(L, 2))
	checkAny(L, 3)
	name := L.SetUpvalue(fn, n, L.Get(3))
	if name == "" {
		return 0
	}
	L.Push(lua.LString(name))
	return 1
}
