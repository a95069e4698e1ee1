package luajit

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// registerFFI installs the "ffi" module (also as the global ffi, as
// sysbench has it) covering what sysbench scripts do with LuaJIT's ffi:
// cdef declarations (accepted, ignored), ffi.C calls (usleep, sleep and
// the host's functions, State.FFIC), the C scalar types (sizeof, cast,
// new, typeof, istype, with 64-bit integers as cdata) and arrays of them
// as buffers. Anything else fails naming the symbol.
func registerFFI(L *lua.LState) {
	lazyLibrary(L, "ffi", fillFFI)
}

func fillFFI(L *lua.LState, m *lua.LTable) {
	L.SetFuncs(m, map[string]lua.LGFunction{
		"cdef":     func(L *lua.LState) int { return 0 },
		"metatype": ffiIdentity,
		"gc":       ffiIdentity,
		"new":      ffiNew,
		"cast":     ffiCast,
		"typeof":   ffiTypeof,
		"istype":   ffiIstype,
		"sizeof":   ffiSizeof,
		"alignof":  ffiAlignof,
		"string":   ffiString,
		"copy":     ffiCopy,
		"fill":     ffiFill,
		"abi":      ffiAbi,
		"errno":    func(L *lua.LState) int { L.Push(lua.LNumber(0)); return 1 },
		"load":     ffiUnsupported("ffi.load"),
		"offsetof": ffiUnsupported("ffi.offsetof"),
	})
	m.RawSetString("os", lua.LString("Linux"))
	m.RawSetString("arch", lua.LString("x64"))
	m.RawSetString("C", ffiCLibrary(L))
}

func ffiIdentity(L *lua.LState) int { L.Push(L.Get(1)); return 1 }

func ffiUnsupported(name string) lua.LGFunction {
	return func(L *lua.LState) int {
		L.RaiseError("%s is not supported by sysbench-go", name)
		return 0
	}
}

// ffiCLibrary is ffi.C: the C library functions scripts declare with
// ffi.cdef and call (usleep, sleep), and the host's (State.FFIC).
func ffiCLibrary(L *lua.LState) *lua.LTable {
	C := funcTable(L, map[string]lua.LGFunction{
		"usleep": func(L *lua.LState) int {
			sleep(L, time.Duration(L.CheckInt64(1))*time.Microsecond)
			L.Push(lua.LNumber(0))
			return 1
		},
		"sleep": func(L *lua.LState) int {
			sleep(L, time.Duration(L.CheckInt64(1))*time.Second)
			L.Push(lua.LNumber(0))
			return 1
		},
	})
	if add := Of(L).FFIC; add != nil {
		add(L, C)
	}
	cmt := L.CreateTable(0, 1)
	cmt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("ffi.C.%s is not supported by sysbench-go", L.CheckString(2))
		return 0
	}))
	L.SetMetatable(C, cmt)
	return C
}

// sleep waits d, or until the program is interrupted (State.Interrupted).
func sleep(L *lua.LState, d time.Duration) {
	done := Of(L).Interrupted
	if done == nil || d <= 0 {
		time.Sleep(d)
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-done:
	}
}

// ctypeObj is what ffi.typeof returns: a C type usable with ffi.new,
// ffi.cast, ffi.istype and ffi.sizeof, and callable as a constructor.
type ctypeObj struct{ ct *ctype }

// ffiBuffer is a C array made by ffi.new ("char[?]", "int[4]",
// "uint64_t[2]"): its bytes as C lays them out, indexed from 0.
type ffiBuffer struct {
	ct *ctype // the array type as given ("char [?]" for a VLA)
	b  []byte
}

func (b *ffiBuffer) elem() *ctype { return b.ct.elem }

func (b *ffiBuffer) len() int { return len(b.b) / b.elem().size }

// checkCType reads argument n as a C type: a type name, a ctype, or a cdata
// or array whose type it takes.
func checkCType(L *lua.LState, n int, fn string) *ctype {
	switch v := L.Get(n).(type) {
	case lua.LString:
		t, ok := parseCType(string(v))
		if !ok {
			L.RaiseError("%s: C type '%s' is not supported by sysbench-go", fn, string(v))
		}
		return t
	case *lua.LUserData:
		switch x := v.Value.(type) {
		case *ctypeObj:
			return x.ct
		case *cdata:
			return x.ct
		case *ffiBuffer:
			return x.ct
		}
	}
	typeError(L, n, "C type")
	return nil
}

// ffiNew is ffi.new(ct [, n] [, init...]).
func ffiNew(L *lua.LState) int {
	t := checkCType(L, 1, "ffi.new")
	return newValue(L, t, 2)
}

// newValue makes a value of t from the arguments from first on (the
// length of a [?] array, then initialisers), for ffi.new and ctype calls.
func newValue(L *lua.LState, t *ctype, first int) int {
	inits := L.GetTop() - first + 1
	switch {
	case t.isScalar():
		if inits > 1 {
			L.RaiseError("too many initializers for '%s'", t)
		}
		var bits uint64
		if inits == 1 {
			bits = convertArg(L, first, t, false)
		}
		return pushCdata(L, t, bits)
	case t.kind == kindArray:
		return newArray(L, t, first)
	}
	L.RaiseError("ffi.new: C type '%s' is not supported by sysbench-go", t)
	return 0
}

// convertArg converts argument n to the scalar type t, failing with
// LuaJIT's "cannot convert 'string' to 'int'".
func convertArg(L *lua.LState, n int, t *ctype, cast bool) uint64 {
	bits, ok := toCType(L.Get(n), t, cast)
	if !ok {
		L.RaiseError("cannot convert '%s' to '%s'", reprOf(L.Get(n)), t)
	}
	return bits
}

// maxArrayBytes is the largest array ffi.new makes, as LuaJIT's limit.
const maxArrayBytes = 1<<31 - 1

func newArray(L *lua.LState, t *ctype, first int) int {
	elem := t.elem
	if !elem.isScalar() {
		L.RaiseError("ffi.new: C type '%s' is not supported by sysbench-go", t)
	}
	n := t.n
	if n == arrayVLA {
		nf := checkNum(L, first)
		first++
		if nf < 0 || nf*float64(elem.size) > maxArrayBytes {
			argError(L, 1, "size of C type is unknown or too large")
		}
		n = int(nf)
	} else if n < 0 {
		argError(L, 1, "size of C type is unknown or too large")
	}
	buf := &ffiBuffer{ct: t, b: make([]byte, n*elem.size)}
	inits := L.GetTop() - first + 1
	switch {
	case inits == 1 && elem.size == 1 && L.Get(first).Type() == lua.LTString:
		s := L.Get(first).(lua.LString)
		copy(buf.b, s)
	case inits == 1 && L.Get(first).Type() == lua.LTTable:
		tbl := L.Get(first).(*lua.LTable)
		start := 1
		if tbl.RawGetInt(0) != lua.LNil {
			start = 0
		}
		for i := 0; i < n; i++ {
			v := tbl.RawGetInt(i + start)
			if v == lua.LNil {
				break
			}
			bits, ok := toCType(v, elem, false)
			if !ok {
				L.RaiseError("cannot convert '%s' to '%s'", reprOf(v), elem)
			}
			buf.set(i, bits)
		}
	case inits == 1:
		// One initialiser fills every element.
		bits := convertArg(L, first, elem, false)
		for i := 0; i < n; i++ {
			buf.set(i, bits)
		}
	case inits > n:
		L.RaiseError("too many initializers for '%s'", t)
	default:
		for i := 0; i < inits; i++ {
			buf.set(i, convertArg(L, first+i, elem, false))
		}
	}
	ud := L.NewUserData()
	ud.Value = buf
	ud.Metatable = lazyMeta(L, arrayMetaKey, arrayMeta)
	L.Push(ud)
	return 1
}

// set stores element i (bits as in cdata.bits) little-endian.
func (b *ffiBuffer) set(i int, bits uint64) {
	e := b.elem()
	p := b.b[i*e.size:]
	if e.kind == kindFloat && e.size == 4 {
		bits = uint64(math.Float32bits(float32(math.Float64frombits(bits))))
	}
	switch e.size {
	case 1:
		p[0] = byte(bits)
	case 2:
		binary.LittleEndian.PutUint16(p, uint16(bits))
	case 4:
		binary.LittleEndian.PutUint32(p, uint32(bits))
	default:
		binary.LittleEndian.PutUint64(p, bits)
	}
}

// get reads element i back as cdata bits.
func (b *ffiBuffer) get(i int) uint64 {
	e := b.elem()
	p := b.b[i*e.size:]
	var u uint64
	switch e.size {
	case 1:
		u = uint64(p[0])
	case 2:
		u = uint64(binary.LittleEndian.Uint16(p))
	case 4:
		u = uint64(binary.LittleEndian.Uint32(p))
		if e.kind == kindFloat {
			return math.Float64bits(float64(math.Float32frombits(uint32(u))))
		}
	default:
		u = binary.LittleEndian.Uint64(p)
	}
	if e.kind == kindInt {
		return truncInt(e, u)
	}
	return u
}

// arrayMeta is the metatable of a state's arrays: elements read as
// numbers (64-bit ones as cdata, bools as booleans), indexed from 0.
func arrayMeta(L *lua.LState) *lua.LTable {
	return metaTable(L, map[string]lua.LGFunction{
		"__index": func(L *lua.LState) int {
			b := checkBuffer(L, 1)
			i, ok := arrayIndex(L, b)
			if !ok {
				L.Push(lua.LNil)
				return 1
			}
			e := b.elem()
			bits := b.get(i)
			switch {
			case e.kind == kindInt && e.size == 8:
				return pushCdata(L, e, bits)
			case e.kind == kindBool:
				L.Push(lua.LBool(bits != 0))
			default:
				L.Push(lua.LNumber((&cdata{ct: e, bits: bits}).number()))
			}
			return 1
		},
		"__newindex": func(L *lua.LState) int {
			b := checkBuffer(L, 1)
			i, ok := arrayIndex(L, b)
			if !ok {
				L.ArgError(2, "index out of range")
			}
			b.set(i, convertArg(L, 3, b.elem(), false))
			return 0
		},
		"__len":    ffiLen,
		"__concat": ffiConcat,
		"__call":   ffiCall,
		"__tostring": func(L *lua.LState) int {
			L.Push(lua.LString(fmt.Sprintf("cdata<%s>: %p", checkBuffer(L, 1).ct, L.Get(1))))
			return 1
		},
	}, ffiMetatable)
}

func arrayIndex(L *lua.LState, b *ffiBuffer) (int, bool) {
	k, ok := L.Get(2).(lua.LNumber)
	if cd := cdataOf(L.Get(2)); cd != nil && cd.ct.kind == kindInt {
		// a[i-1LL]: a 64-bit integer index, as LuaJIT takes.
		i := int64(cd.bits)
		return int(i), i >= 0 && i < int64(b.len())
	}
	if !ok {
		if s, isStr := L.Get(2).(lua.LString); isStr {
			L.RaiseError("'%s' has no member named '%s'", b.ct, string(s))
		}
		L.RaiseError("'%s' cannot be indexed with '%s'", b.ct, L.Get(2).Type().String())
	}
	i := int(k)
	return i, float64(i) == float64(k) && i >= 0 && i < b.len()
}

// ffiCast is ffi.cast(ct, v) for the scalar types.
func ffiCast(L *lua.LState) int {
	t := checkCType(L, 1, "ffi.cast")
	if !t.isScalar() {
		L.RaiseError("ffi.cast: C type '%s' is not supported by sysbench-go", t)
	}
	return pushCdata(L, t, convertArg(L, 2, t, true))
}

// ffiTypeof is ffi.typeof(ct): the ctype of a name, a cdata or an array.
func ffiTypeof(L *lua.LState) int {
	t := checkCType(L, 1, "ffi.typeof")
	ud := L.NewUserData()
	ud.Value = &ctypeObj{ct: t}
	ud.Metatable = lazyMeta(L, ctypeMetaKey, ctypeMeta)
	L.Push(ud)
	return 1
}

// ctypeMeta makes ctypes callable (u64(5) is ffi.new("uint64_t", 5)),
// printable ("ctype<uint64_t>") and comparable (ffi.typeof("int") ==
// ffi.typeof("int32_t")).
func ctypeMeta(L *lua.LState) *lua.LTable {
	return metaTable(L, map[string]lua.LGFunction{
		"__call": func(L *lua.LState) int {
			return newValue(L, checkCTypeObj(L, 1).ct, 2)
		},
		"__tostring": func(L *lua.LState) int {
			L.Push(lua.LString("ctype<" + checkCTypeObj(L, 1).ct.String() + ">"))
			return 1
		},
		"__eq": func(L *lua.LState) int {
			a, okA := L.CheckUserData(1).Value.(*ctypeObj)
			b, okB := L.CheckUserData(2).Value.(*ctypeObj)
			L.Push(lua.LBool(okA && okB && a.ct.qual == b.ct.qual && a.ct.same(b.ct)))
			return 1
		},
		"__index":  ffiIndex,
		"__len":    ffiLen,
		"__concat": ffiConcat,
	}, ffiMetatable)
}

func checkCTypeObj(L *lua.LState, n int) *ctypeObj {
	if ud, ok := L.Get(n).(*lua.LUserData); ok {
		if c, ok := ud.Value.(*ctypeObj); ok {
			return c
		}
	}
	typeError(L, n, "ctype")
	return nil
}

// ffiIstype is ffi.istype(ct, v): whether v is a cdata or array of type ct
// (qualifiers aside).
func ffiIstype(L *lua.LState) int {
	t := checkCType(L, 1, "ffi.istype")
	var vt *ctype
	if ud, ok := L.Get(2).(*lua.LUserData); ok {
		switch x := ud.Value.(type) {
		case *cdata:
			vt = x.ct
		case *ffiBuffer:
			vt = x.ct
		case *ctypeObj:
			vt = x.ct
		}
	}
	L.Push(lua.LBool(vt != nil && t.same(vt)))
	return 1
}

// ffiSizeof is ffi.sizeof(ct [, n]) with x86-64 Linux sizes; nil for a
// type of unknown size.
func ffiSizeof(L *lua.LState) int {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if b, ok := ud.Value.(*ffiBuffer); ok {
			L.Push(lua.LNumber(len(b.b)))
			return 1
		}
	}
	t := checkCType(L, 1, "ffi.sizeof")
	n, haveN := 0, L.GetTop() >= 2
	if t.kind == kindArray && t.n == arrayVLA {
		if !haveN {
			argError(L, 2, "value expected")
		}
		n = int(checkNum(L, 2))
	}
	size, ok := t.sizeOf(n, haveN)
	if !ok {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(lua.LNumber(size))
	return 1
}

func ffiAlignof(L *lua.LState) int {
	L.Push(lua.LNumber(checkCType(L, 1, "ffi.alignof").align))
	return 1
}

// ffiString is ffi.string(buf [, len]): the bytes of an array up to its
// first NUL, or len of them.
func ffiString(L *lua.LState) int {
	var s []byte
	switch x := L.Get(1).(type) {
	case lua.LString:
		s = []byte(x)
	case *lua.LUserData:
		b, ok := x.Value.(*ffiBuffer)
		if !ok {
			argError(L, 1, "cannot convert '"+reprOf(x)+"' to 'const char *'")
		}
		s = b.b
	default:
		argError(L, 1, "cannot convert '"+reprOf(x)+"' to 'const char *'")
	}
	if L.GetTop() >= 2 {
		if n := int(checkNum(L, 2)); n < len(s) {
			s = s[:max(n, 0)]
		}
	} else {
		for i, c := range s {
			if c == 0 {
				s = s[:i]
				break
			}
		}
	}
	L.Push(lua.LString(s))
	return 1
}

func checkBuffer(L *lua.LState, n int) *ffiBuffer {
	if ud, ok := L.Get(n).(*lua.LUserData); ok {
		if b, ok := ud.Value.(*ffiBuffer); ok {
			return b
		}
	}
	argError(L, n, "cannot convert '"+reprOf(L.Get(n))+"' to 'void *'")
	return nil
}

// ffiCopy is ffi.copy(dst, src [, len]): a string with its NUL, or len
// bytes of a string or array.
func ffiCopy(L *lua.LState) int {
	dst := checkBuffer(L, 1)
	var data []byte
	if s, ok := L.Get(2).(lua.LString); ok {
		data = append([]byte(s), 0)
	} else {
		data = checkBuffer(L, 2).b
	}
	n := len(data)
	if L.GetTop() >= 3 {
		n = min(int(checkNum(L, 3)), len(data))
	}
	copy(dst.b, data[:max(n, 0)])
	return 0
}

// ffiFill is ffi.fill(dst, len [, c]).
func ffiFill(L *lua.LState) int {
	dst := checkBuffer(L, 1)
	n := min(int(checkNum(L, 2)), len(dst.b))
	var c byte
	if L.GetTop() >= 3 {
		c = byte(checkInt(L, 3))
	}
	for i := 0; i < n; i++ {
		dst.b[i] = c
	}
	return 0
}

// ffiAbi is ffi.abi(param) for LuaJIT's x86-64 Linux build.
func ffiAbi(L *lua.LState) int {
	switch L.CheckString(1) {
	case "64bit", "le", "fpu", "hardfp", "gc64":
		L.Push(lua.LTrue)
	default:
		L.Push(lua.LFalse)
	}
	return 1
}
