package compile

import (
	"unsafe"

	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/luajit/number"
	"github.com/sysbench-go/sysbench-go/luajit/vm"
)

// Intrinsics are Go functions compiled code calls where gopher-lua's own
// instruction would not do what LuaJIT does. Each is a constant of the
// protos that use it (LOADK then CALL), so it costs no global lookup and
// no script can replace it. They keep no state: the same function value
// serves every Lua state of the process.

// concatIntrinsic is a .. b .. c: numbers as LuaJIT writes them, and
// __concat metamethods called pairwise from the right as in Lua.
var concatIntrinsic = &lua.LFunction{IsG: true, GFunction: concat, Env: &lua.LTable{}}

// IntrinsicEvent is the metamethod event an intrinsic calls metamethods
// for ("__concat" for concatenation), "" for any other function: what
// debug.getinfo names a metamethod called from it.
func IntrinsicEvent(fn *lua.LFunction) string {
	if fn == concatIntrinsic {
		return "__concat"
	}
	return ""
}

func concat(L *lua.LState) int {
	n := L.GetTop()
	size, plain := 0, true
	for i := 1; i <= n && plain; i++ {
		switch v := L.Get(i).(type) {
		case lua.LString:
			size += len(v)
		case lua.LNumber:
			size += 24
		default:
			plain = false
		}
	}
	if !plain {
		return concatMeta(L, n)
	}
	buf := make([]byte, 0, size)
	for i := 1; i <= n; i++ {
		buf = appendText(buf, L.Get(i))
	}
	L.Push(lua.LString(unsafe.String(unsafe.SliceData(buf), len(buf))))
	return 1
}

func appendText(buf []byte, v lua.LValue) []byte {
	if s, ok := v.(lua.LString); ok {
		return append(buf, s...)
	}
	return appendNumber(buf, float64(v.(lua.LNumber)))
}

// appendNumber writes a number as LuaJIT's tostring does.
func appendNumber(buf []byte, f float64) []byte { return number.Append(buf, f) }

func stringable(v lua.LValue) bool {
	switch v.(type) {
	case lua.LString, lua.LNumber:
		return true
	}
	return false
}

// concatMeta concatenates values some of which are neither strings nor
// numbers, as Lua does: from the right, the longest run of strings and
// numbers at once, else the last two through a __concat metamethod.
func concatMeta(L *lua.LState, n int) int {
	vals := make([]lua.LValue, n)
	for i := range vals {
		vals[i] = L.Get(i + 1)
	}
	total := n
	for total > 1 {
		below, top := vals[total-2], vals[total-1]
		if !stringable(below) || !stringable(top) {
			mm := L.GetMetaField(below, "__concat")
			if mm == lua.LNil {
				mm = L.GetMetaField(top, "__concat")
			}
			if mm == lua.LNil {
				culprit := total - 2
				if stringable(below) {
					culprit = total - 1
				}
				raiseOperandError(L, "concatenate", culprit+1, vals[culprit])
			}
			L.Push(mm)
			L.Push(below)
			L.Push(top)
			L.Call(2, 1)
			vals[total-2] = L.Get(-1)
			L.Pop(1)
			total--
			continue
		}
		k := total - 1
		for k > 0 && stringable(vals[k-1]) {
			k--
		}
		var buf []byte
		for _, v := range vals[k:total] {
			buf = appendText(buf, v)
		}
		vals[k] = lua.LString(buf)
		total = k + 1
	}
	L.Push(vals[0])
	return 1
}

// raiseOperandError raises LuaJIT's message for an intrinsic's argument
// arg (1-based) that the operation cannot take, naming the variable the
// calling code took it from.
func raiseOperandError(L *lua.LState, what string, arg int, v lua.LValue) {
	info := ""
	if f, ok := vm.FrameAt(L, 1); ok && f.Fn != nil && !f.Fn.IsG && f.Pc > 0 {
		call := f.Fn.Proto.Code[f.Pc-1]
		info = varInfo(f.Fn.Proto, f.Pc-1, argA(call)+arg)
	}
	L.RaiseError("attempt to %s %s", what, operand(info, v))
}

// typeNameOf is a value's type as LuaJIT's messages name it.
func typeNameOf(v lua.LValue) string {
	if ud, ok := v.(*lua.LUserData); ok && isCdata(ud) {
		return "cdata"
	}
	return v.Type().String()
}

// isCdata recognises our 64-bit integer and ffi values, which LuaJIT
// calls cdata; their metatables carry __cdata.
func isCdata(ud *lua.LUserData) bool {
	mt, ok := ud.Metatable.(*lua.LTable)
	return ok && mt.RawGetString("__cdata") != lua.LNil
}
