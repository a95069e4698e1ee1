package luajit

import (
	"math"
	goruntime "runtime"
	"runtime/metrics"

	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/luajit/number"
)

// registerBase replaces the base library's functions whose behaviour
// differs from LuaJIT 2.1's in gopher-lua (numbers as text, numeric
// strings as arguments, argument errors, collectgarbage's options) and
// adds gcinfo. pcall, xpcall, error and the loaders are the compiler's
// side (load.go).
func registerBase(L *lua.LState) {
	g := L.Get(lua.GlobalsIndex).(*lua.LTable)
	tostring := L.NewFunction(baseToString)
	gc := newGCState()
	for name, fn := range map[string]lua.LValue{
		"assert":         L.NewFunction(baseAssert),
		"collectgarbage": L.NewFunction(gc.collectgarbage),
		"gcinfo":         L.NewFunction(gc.gcinfo),
		"getmetatable":   L.NewFunction(baseGetMetatable),
		"print":          L.NewFunction(func(L *lua.LState) int { return basePrint(L, tostring) }),
		"rawequal":       L.NewFunction(baseRawEqual),
		"rawget":         L.NewFunction(baseRawGet),
		"rawset":         L.NewFunction(baseRawSet),
		"select":         L.NewFunction(baseSelect),
		"setmetatable":   L.NewFunction(baseSetMetatable),
		"tonumber":       L.NewFunction(baseToNumber),
		"tostring":       tostring,
		"type":           L.NewFunction(baseType),
		"unpack":         L.NewFunction(baseUnpack),
	} {
		g.RawSetString(name, fn)
	}
	next := L.NewFunction(baseNext)
	g.RawSetString("next", next)
	g.RawSetString("pairs", L.NewFunction(func(L *lua.LState) int {
		checkAny(L, 1)
		t := checkTab(L, 1)
		FillLazy(L, t)
		L.Push(next)
		L.Push(t)
		L.Push(lua.LNil)
		return 3
	}))
	ipairsAux := L.NewFunction(baseIpairsAux)
	g.RawSetString("ipairs", L.NewFunction(func(L *lua.LState) int {
		checkAny(L, 1)
		t := checkTab(L, 1)
		L.Push(ipairsAux)
		L.Push(t)
		L.Push(lua.LNumber(0))
		return 3
	}))
}

// baseIpairsAux is ipairs' iterator: t[i+1] read raw, until a nil.
func baseIpairsAux(L *lua.LState) int {
	t := checkTab(L, 1)
	i := int(checkInt(L, 2)) + 1
	v := t.RawGetInt(i)
	if v == lua.LNil {
		return 0
	}
	L.Push(lua.LNumber(i))
	L.Push(v)
	return 2
}

// baseAssert is LuaJIT's assert: its arguments when the first is true;
// else "assertion failed!" or the message, a string or number with the
// caller's position, any other value as the error object itself.
func baseAssert(L *lua.LState) int {
	v := checkAny(L, 1)
	if lua.LVAsBool(v) {
		return L.GetTop()
	}
	switch msg := L.Get(2); {
	case L.GetTop() < 2:
		LibError(L, "assertion failed!")
	case msg.Type() == lua.LTString || msg.Type() == lua.LTNumber:
		LibError(L, CheckStr(L, 2))
	default:
		L.Error(msg, 0)
	}
	return 0
}

// baseType is type(v), "cdata" for ffi values as in LuaJIT.
func baseType(L *lua.LState) int {
	L.Push(lua.LString(luaTypeName(checkAny(L, 1))))
	return 1
}

// baseToString is LuaJIT's tostring: the __tostring metamethod's results
// when there is one, else numbers as luajit/number writes them.
func baseToString(L *lua.LState) int {
	v := checkAny(L, 1)
	if mt := L.GetMetaField(v, "__tostring"); mt != lua.LNil {
		if _, ok := mt.(*lua.LFunction); !ok && L.GetMetaField(mt, "__call") == lua.LNil {
			L.Error(lua.LString("attempt to call a "+luaTypeName(mt)+" value"), 0)
		}
		L.SetTop(0)
		L.Push(mt)
		L.Push(v)
		L.Call(1, lua.MultRet)
		return L.GetTop()
	}
	L.Push(lua.LString(rawToString(v)))
	return 1
}

// rawToString is the text of v without metamethods.
func rawToString(v lua.LValue) string {
	switch x := v.(type) {
	case lua.LNumber:
		return number.Format(float64(x))
	case lua.LString:
		return string(x)
	}
	return v.String()
}

// toStringMeta is tostring(v) for the libraries that convert their
// arguments through it (print, io.write of non-strings is an error).
func toStringMeta(L *lua.LState, v lua.LValue) lua.LValue {
	if mt := L.GetMetaField(v, "__tostring"); mt != lua.LNil {
		L.Push(mt)
		L.Push(v)
		L.Call(1, 1)
		r := L.Get(-1)
		L.Pop(1)
		return r
	}
	return lua.LString(rawToString(v))
}

// basePrint is LuaJIT's print: strings and numbers written directly while
// the global tostring is the built-in one, anything else (or everything,
// when a script replaced tostring) through the global tostring, whose
// result must be a string.
func basePrint(L *lua.LState, builtin *lua.LFunction) int {
	w := Of(L).Out
	n := L.GetTop()
	tostring := L.Env.RawGetString("tostring")
	if tostring == lua.LNil {
		tostring = L.GetField(L.Env, "tostring")
	}
	shortcut := tostring == builtin
	var stack [128]byte
	buf := stack[:0]
	for i := 1; i <= n; i++ {
		if i > 1 {
			buf = append(buf, '\t')
		}
		v := L.Get(i)
		if shortcut {
			switch x := v.(type) {
			case lua.LString:
				buf = append(buf, x...)
				continue
			case lua.LNumber:
				buf = number.Append(buf, float64(x))
				continue
			}
		}
		L.Push(tostring)
		L.Push(v)
		L.Call(1, 1)
		s, ok := L.Get(-1).(lua.LString)
		if num, isNum := L.Get(-1).(lua.LNumber); isNum {
			s, ok = lua.LString(number.Format(float64(num))), true
		}
		L.Pop(1)
		if !ok {
			LibError(L, "'tostring' must return a string to 'print'")
		}
		buf = append(buf, s...)
	}
	buf = append(buf, '\n')
	_, _ = w.Write(buf)
	return 0
}

// baseToNumber is LuaJIT's tonumber: base 10 reads numbers as luajit/number does
// (and converts 64-bit cdata); another base, 2 to 36, reads an unsigned
// integer as C's strtoul with an optional sign before it.
func baseToNumber(L *lua.LState) int {
	base := optInt(L, 2, 10)
	if base == 10 {
		switch x := checkAny(L, 1).(type) {
		case lua.LNumber:
			L.Push(x)
			return 1
		case lua.LString:
			if f, ok := number.Parse(string(x)); ok {
				L.Push(lua.LNumber(f))
				return 1
			}
		case *lua.LUserData:
			if cd, ok := x.Value.(*cdata); ok {
				L.Push(lua.LNumber(cd.number()))
				return 1
			}
		}
		L.Push(lua.LNil)
		return 1
	}
	s := CheckStr(L, 1)
	if base < 2 || base > 36 {
		argError(L, 2, "base out of range")
	}
	if f, ok := parseBase(s, int(base)); ok {
		L.Push(lua.LNumber(f))
	} else {
		L.Push(lua.LNil)
	}
	return 1
}

// parseBase reads s as tonumber(s, base) does for a base other than 10:
// white space, a sign, then what strtoul takes (for base 16 an optional
// 0x), then white space to the end (C's end: the first NUL byte).
// Values beyond 2^64-1 are 2^64-1, as strtoul saturates.
func parseBase(s string, base int) (float64, bool) {
	if i := indexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	if i >= len(s) || !isAlnum(s[i]) {
		return 0, false
	}
	if base == 16 && i+2 < len(s) && s[i] == '0' && s[i+1]|0x20 == 'x' && digitValue(s[i+2]) < 16 {
		i += 2
	}
	start := i
	var u uint64
	overflow := false
	for ; i < len(s); i++ {
		d := digitValue(s[i])
		if d >= base {
			break
		}
		if u > (math.MaxUint64-uint64(d))/uint64(base) {
			overflow = true
		}
		u = u*uint64(base) + uint64(d)
	}
	if i == start {
		return 0, false
	}
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if i != len(s) {
		return 0, false
	}
	if overflow {
		u = math.MaxUint64
	}
	f := float64(u)
	if neg {
		f = -f
	}
	return f, true
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// isSpace is C's isspace in the C locale.
func isSpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z'
}

// digitValue is c's value as a digit of bases up to 36, or 99.
func digitValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c|0x20 >= 'a' && c|0x20 <= 'z':
		return int(c|0x20-'a') + 10
	}
	return 99
}

// baseSelect is select(n, ...): the arguments from the nth (counted from
// the end when negative), or their count for "#".
func baseSelect(L *lua.LState) int {
	n := L.GetTop()
	if s, ok := L.Get(1).(lua.LString); ok && len(s) > 0 && s[0] == '#' {
		L.Push(lua.LNumber(n - 1))
		return 1
	}
	i := int(checkInt(L, 1))
	if i < 0 {
		i = n + i
	} else if i > n {
		i = n
	}
	if i < 1 {
		argError(L, 1, "index out of range")
	}
	return n - i
}

// maxUnpack is LuaJIT's limit on the values unpack returns (LUAI_MAXCSTACK).
const maxUnpack = 8000

// baseUnpack is unpack(t [, i [, j]]) with numeric strings for i and j and
// nil for their defaults.
func baseUnpack(L *lua.LState) int {
	t := checkTab(L, 1)
	i := optInt(L, 2, 1)
	var e int32
	if L.Get(3) != lua.LNil {
		e = checkInt(L, 3)
	} else {
		e = int32(t.Len())
	}
	if i > e {
		return 0
	}
	if nu := uint32(e) - uint32(i); nu >= maxUnpack {
		LibError(L, "too many results to unpack")
	}
	for k := i; ; k++ {
		L.Push(t.RawGetInt(int(k)))
		if k >= e {
			break
		}
	}
	return int(e-i) + 1
}

func baseRawEqual(L *lua.LState) int {
	a, b := checkAny(L, 1), checkAny(L, 2)
	L.Push(lua.LBool(a == b))
	return 1
}

func baseRawGet(L *lua.LState) int {
	t := checkTab(L, 1)
	L.Push(t.RawGet(checkAny(L, 2)))
	return 1
}

func baseRawSet(L *lua.LState) int {
	t := checkTab(L, 1)
	k := checkAny(L, 2)
	v := checkAny(L, 3)
	setChecked(L, t, k, v)
	L.SetTop(1)
	return 1
}

// setChecked stores t[k] = v raw, refusing the keys LuaJIT refuses.
func setChecked(L *lua.LState, t *lua.LTable, k, v lua.LValue) {
	switch x := k.(type) {
	case *lua.LNilType:
		LibError(L, "table index is nil")
	case lua.LNumber:
		if math.IsNaN(float64(x)) {
			LibError(L, "table index is NaN")
		}
	}
	t.RawSet(k, v)
}

func baseNext(L *lua.LState) int {
	t := checkTab(L, 1)
	if L.Get(2) == lua.LNil {
		FillLazy(L, t)
	}
	k, v := t.Next(L.Get(2))
	if k == lua.LNil {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(k)
	L.Push(v)
	return 2
}

// baseGetMetatable is getmetatable(v): its __metatable field when the
// metatable has one.
func baseGetMetatable(L *lua.LState) int {
	L.Push(L.GetMetatable(checkAny(L, 1)))
	return 1
}

func baseSetMetatable(L *lua.LState) int {
	t := checkTab(L, 1)
	mt := L.Get(2)
	if _, ok := mt.(*lua.LTable); !ok && mt != lua.LNil {
		argError(L, 2, "nil or table expected")
	}
	if L.GetMetaField(t, "__metatable") != lua.LNil {
		LibError(L, "cannot change a protected metatable")
	}
	L.SetMetatable(t, mt)
	L.SetTop(1)
	return 1
}

// gcState is collectgarbage's settings in one Lua state. Go's collector is
// one for the whole process and all states: "stop" and the tuning options
// are remembered and answered as LuaJIT answers, but do not steer it.
// What a state uses is estimated as the growth of the Go heap since the
// state was made, plus stateFloor, which a collection brings back down as
// LuaJIT's count comes down. When a collection takes the heap below where
// it was (other states' garbage, the program's own), the base comes down
// with it: the count stays positive, as LuaJIT's always is.
type gcState struct {
	pause, stepmul int32
	running        bool
	base           uint64 // the heap when the state was made, less stateFloor
	work           int64  // KiB of steps since the last collection
}

// stateFloor is the least a state is counted: about a fresh LuaJIT
// state's (35 KiB with its libraries).
const stateFloor = 32 << 10

// newGCState is a state's collectgarbage settings, with LuaJIT's defaults.
func newGCState() *gcState {
	return &gcState{pause: 200, stepmul: 200, running: true, base: floorBase(heapBytes())}
}

// minCycle is the fewest KiB of steps that finish a cycle, so that small
// steps take several calls, as in LuaJIT.
const minCycle = 64

// countKiB is the state's memory estimate in KiB.
func (g *gcState) countKiB() float64 {
	h := heapBytes()
	if h < g.base+stateFloor {
		g.base = floorBase(h)
	}
	return float64(h-g.base) / 1024
}

// floorBase is the base that counts a heap of h bytes as stateFloor.
func floorBase(h uint64) uint64 { return h - min(h, stateFloor) }

// collectgarbage([opt [, data]]) as LuaJIT: "count" is the estimate in
// KiB (a number), "collect" runs a full collection, "step" adds data KiB
// (at least 1) of work and finishes a cycle, a full collection, when the
// work reaches the estimate (at least 64 KiB) or data is negative,
// answering whether it did; "setpause" and "setstepmul" return the
// previous value.
func (g *gcState) collectgarbage(L *lua.LState) int {
	opt := checkOption(L, 1, "collect", "stop", "restart", "collect", "count", "step", "setpause", "setstepmul", "isrunning")
	data := optInt(L, 2, 0)
	switch opt {
	case 0:
		g.running = false
		L.Push(lua.LNumber(0))
	case 1:
		g.running = true
		L.Push(lua.LNumber(0))
	case 2:
		g.collect()
		L.Push(lua.LNumber(0))
	case 3:
		L.Push(lua.LNumber(g.countKiB()))
	case 4:
		g.work += int64(max(data, 1))
		done := data < 0 || float64(g.work) >= max(g.countKiB(), minCycle)
		if done {
			g.collect()
		}
		L.Push(lua.LBool(done))
	case 5:
		L.Push(lua.LNumber(g.pause))
		g.pause = data
	case 6:
		L.Push(lua.LNumber(g.stepmul))
		g.stepmul = data
	default:
		L.Push(lua.LBool(g.running))
	}
	return 1
}

// collect runs a full collection.
//
// A collection also takes the base down to the heap it leaves, if that is
// below the base: what the script allocates next then counts from there,
// and the next collection brings the count back down, as in LuaJIT
// (gc.lua of the Lua 5.1 suite: the count after a cycle of steps is below
// the count before them). Without it the count would sit at stateFloor
// until the heap had grown back past the old base.
func (g *gcState) collect() {
	goruntime.GC()
	g.work = 0
	g.countKiB()
}

// gcinfo is gcinfo(): the estimate in whole KiB.
func (g *gcState) gcinfo(L *lua.LState) int {
	L.Push(lua.LNumber(int64(g.countKiB())))
	return 1
}

// heapBytes is the memory held by heap objects, read without stopping the
// world (runtime.ReadMemStats would).
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
