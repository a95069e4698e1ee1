package luajit

import (
	"fmt"
	"math"
	"strconv"

	lua "github.com/yuin/gopher-lua"
)

// cdata is a scalar C value boxed for Lua, as LuaJIT's ffi makes them: the
// 64-bit integers (123LL, 123ULL, ffi.new("uint64_t", x),
// sysbench.rand.uniform_uint64()) and the other integer, bool and floating
// types of ffi.new and ffi.cast. Arithmetic and comparisons follow
// LuaJIT's rules for 64-bit integer cdata: both operands are converted to
// uint64_t if either is a uint64_t, else to int64_t, and the result wraps.
type cdata struct {
	ct *ctype
	// bits is an integer's value sign- or zero-extended to 64 bits, a
	// bool's 0 or 1, a float's or double's math.Float64bits.
	bits uint64
}

// isFFIValue says whether ud is one of ffi's values: cdata, ctype or array.
func isFFIValue(ud *lua.LUserData) bool {
	switch ud.Value.(type) {
	case *cdata, *ctypeObj, *ffiBuffer:
		return true
	}
	return false
}

// cdataOf returns v's value if v is a scalar cdata.
func cdataOf(v lua.LValue) *cdata {
	if ud, ok := v.(*lua.LUserData); ok {
		if cd, ok := ud.Value.(*cdata); ok {
			return cd
		}
	}
	return nil
}

// CdataInt64 is v converted to int64_t as C does, when v is a scalar
// cdata (a 64-bit integer keeps its value, a double is truncated).
func CdataInt64(v lua.LValue) (int64, bool) {
	cd := cdataOf(v)
	if cd == nil {
		return 0, false
	}
	return int64(cd.as(ctInt64)), true
}

// CdataNumber is tonumber(v) when v is a scalar cdata.
func CdataNumber(v lua.LValue) (float64, bool) {
	cd := cdataOf(v)
	if cd == nil {
		return 0, false
	}
	return cd.number(), true
}

// PushUint64 pushes u as a uint64_t cdata (LuaJIT's 0ULL values).
func PushUint64(L *lua.LState, u uint64) int { return pushCdata(L, ctUint64, u) }

func (cd *cdata) float() float64 { return math.Float64frombits(cd.bits) }

// number is tonumber(cd).
func (cd *cdata) number() float64 {
	switch {
	case cd.ct.kind == kindFloat:
		return cd.float()
	case cd.ct.unsigned:
		return float64(cd.bits)
	}
	return float64(int64(cd.bits))
}

// as converts cd to the integer, bool or floating type t as C does.
func (cd *cdata) as(t *ctype) uint64 {
	if cd.ct.kind == kindFloat {
		return fromFloat(t, cd.float())
	}
	return fromInt(t, cd.bits, cd.ct.unsigned)
}

// int64Bits is cd converted to int64_t.
func (cd *cdata) int64Bits() uint64 { return cd.as(ctInt64) }

// fromFloat converts the double f to t as LuaJIT does on x86-64: 64-bit
// and unsigned 32-bit integers through a 64-bit conversion, the other
// integers through a 32-bit one, then truncated.
func fromFloat(t *ctype, f float64) uint64 {
	switch t.kind {
	case kindBool:
		if f != 0 { // NaN too
			return 1
		}
		return 0
	case kindFloat:
		if t.size == 4 {
			return math.Float64bits(float64(float32(f)))
		}
		return math.Float64bits(f)
	}
	switch {
	case t.size == 8 && t.unsigned:
		return f2u64(f)
	case t.size == 8 || t.size == 4 && t.unsigned:
		return truncInt(t, uint64(f2i64(f)))
	}
	return truncInt(t, uint64(int64(f2i32(f))))
}

// fromInt converts an integer's bits (unsigned says how to read them) to t.
func fromInt(t *ctype, bits uint64, unsigned bool) uint64 {
	switch t.kind {
	case kindBool:
		if bits != 0 {
			return 1
		}
		return 0
	case kindFloat:
		f := float64(int64(bits))
		if unsigned {
			f = float64(bits)
		}
		return fromFloat(t, f)
	}
	return truncInt(t, bits)
}

// truncInt keeps t.size bytes of u, sign- or zero-extended.
func truncInt(t *ctype, u uint64) uint64 {
	switch {
	case t.size == 1 && t.unsigned:
		return uint64(uint8(u))
	case t.size == 1:
		return uint64(int64(int8(u)))
	case t.size == 2 && t.unsigned:
		return uint64(uint16(u))
	case t.size == 2:
		return uint64(int64(int16(u)))
	case t.size == 4 && t.unsigned:
		return uint64(uint32(u))
	case t.size == 4:
		return uint64(int64(int32(u)))
	}
	return u
}

// toCType converts a Lua value to the scalar type t for ffi.new, ffi.cast
// and ctype calls. nil converts only for a cast (a NULL pointer in
// LuaJIT); strings, tables and functions do not convert.
func toCType(v lua.LValue, t *ctype, cast bool) (uint64, bool) {
	switch x := v.(type) {
	case lua.LNumber:
		return fromFloat(t, float64(x)), true
	case lua.LBool:
		if x {
			return fromInt(t, 1, false), true
		}
		return fromInt(t, 0, false), true
	case *lua.LNilType:
		return 0, cast
	case *lua.LUserData:
		if cd, ok := x.Value.(*cdata); ok {
			return cd.as(t), true
		}
	}
	return 0, false
}

// registry keys of the per-state metatables, made on first use so that a
// state that never sees a cdata pays nothing for them.
const (
	cdataMetaKey = "sysbench-go.cdata"
	ctypeMetaKey = "sysbench-go.ctype"
	arrayMetaKey = "sysbench-go.carray"
)

func lazyMeta(L *lua.LState, key string, build func(L *lua.LState) *lua.LTable) *lua.LTable {
	reg := L.Get(lua.RegistryIndex).(*lua.LTable)
	if mt, ok := reg.RawGetString(key).(*lua.LTable); ok {
		return mt
	}
	mt := build(L)
	reg.RawSetString(key, mt)
	return mt
}

// newCdata boxes a value of the scalar type t (bits as in cdata.bits).
func newCdata(L *lua.LState, t *ctype, bits uint64) *lua.LUserData {
	ud := L.NewUserData()
	ud.Value = &cdata{ct: t, bits: bits}
	ud.Metatable = lazyMeta(L, cdataMetaKey, cdataMeta)
	return ud
}

func pushCdata(L *lua.LState, t *ctype, bits uint64) int {
	L.Push(newCdata(L, t, bits))
	return 1
}

// cdataMeta is the one metatable of a state's scalar cdata: gopher-lua
// calls a comparison metamethod only when both operands share it.
func cdataMeta(L *lua.LState) *lua.LTable {
	return metaTable(L, map[string]lua.LGFunction{
		"__add":      cdataArith(func(a, b uint64, _ bool) uint64 { return a + b }),
		"__sub":      cdataArith(func(a, b uint64, _ bool) uint64 { return a - b }),
		"__mul":      cdataArith(func(a, b uint64, _ bool) uint64 { return a * b }),
		"__div":      cdataArith(div64),
		"__mod":      cdataArith(mod64),
		"__pow":      cdataArith(pow64),
		"__unm":      cdataUnm,
		"__eq":       cdataCompare(func(a, b uint64, _ bool) bool { return a == b }),
		"__lt":       cdataCompare(func(a, b uint64, u bool) bool { return u && a < b || !u && int64(a) < int64(b) }),
		"__le":       cdataCompare(func(a, b uint64, u bool) bool { return u && a <= b || !u && int64(a) <= int64(b) }),
		"__tostring": cdataToString,
		"__concat":   ffiConcat,
		"__len":      ffiLen,
		"__index":    ffiIndex,
		"__call":     ffiCall,
	}, ffiMetatable)
}

// ffiMetatable is what getmetatable answers for ffi values, as in LuaJIT;
// it also keeps scripts from replacing their metatables.
const ffiMetatable = "ffi"

// metaTable is a metatable of the functions fns, protected by
// __metatable = protect.
func metaTable(L *lua.LState, fns map[string]lua.LGFunction, protect string) *lua.LTable {
	mt := L.CreateTable(0, len(fns)+1)
	L.SetFuncs(mt, fns)
	mt.RawSetString("__metatable", lua.LString(protect))
	return mt
}

// reprOf is LuaJIT's name for a value in ffi error messages: the C type of
// a cdata, the Lua type of anything else.
func reprOf(v lua.LValue) string {
	if ud, ok := v.(*lua.LUserData); ok {
		switch x := ud.Value.(type) {
		case *cdata:
			return x.ct.String()
		case *ffiBuffer:
			return x.ct.String()
		case *ctypeObj:
			return x.ct.String()
		}
	}
	return v.Type().String()
}

// arithOperands converts the operands of a binary cdata operation to
// their common 64-bit type: uint64_t when either is a uint64_t cdata,
// else int64_t.
// what is LuaJIT's message for other operands: "perform arithmetic on
// '%s' and '%s'" or "compare '%s' with '%s'".
func arithOperands(L *lua.LState, what string) (a, b uint64, unsigned bool) {
	x, y := L.Get(1), L.Get(2)
	cx, okx := arithOperand(x)
	cy, oky := arithOperand(y)
	if !okx || !oky {
		L.RaiseError("attempt to "+what, reprOf(x), reprOf(y))
	}
	t := ctInt64
	if cx != nil && cx.ct.isUint64() || cy != nil && cy.ct.isUint64() {
		t = ctUint64
	}
	return convert64(x, cx, t), convert64(y, cy, t), t == ctUint64
}

// arithOperand accepts a number or a scalar cdata.
func arithOperand(v lua.LValue) (*cdata, bool) {
	switch x := v.(type) {
	case lua.LNumber:
		return nil, true
	case *lua.LUserData:
		if cd, ok := x.Value.(*cdata); ok {
			return cd, true
		}
	}
	return nil, false
}

func convert64(v lua.LValue, cd *cdata, t *ctype) uint64 {
	if cd != nil {
		return cd.as(t)
	}
	return fromFloat(t, float64(v.(lua.LNumber)))
}

func cdataArith(op func(a, b uint64, unsigned bool) uint64) lua.LGFunction {
	return func(L *lua.LState) int {
		a, b, u := arithOperands(L, "perform arithmetic on '%s' and '%s'")
		t := ctInt64
		if u {
			t = ctUint64
		}
		return pushCdata(L, t, op(a, b, u))
	}
}

func cdataCompare(op func(a, b uint64, unsigned bool) bool) lua.LGFunction {
	return func(L *lua.LState) int {
		a, b, u := arithOperands(L, "compare '%s' with '%s'")
		L.Push(lua.LBool(op(a, b, u)))
		return 1
	}
}

func cdataUnm(L *lua.LState) int {
	cd, ok := arithOperand(L.Get(1))
	if !ok || cd == nil {
		L.RaiseError("attempt to perform arithmetic on '%s'", reprOf(L.Get(1)))
	}
	t := ctInt64
	if cd.ct.isUint64() {
		t = ctUint64
	}
	return pushCdata(L, t, -cd.as(t))
}

// div64, mod64 and pow64 are LuaJIT's 64-bit integer division, modulo and
// power: C's truncating / and %, 0x8000000000000000 for a zero divisor,
// and an integer power by squaring.
func div64(a, b uint64, unsigned bool) uint64 {
	if unsigned {
		if b == 0 {
			return 1 << 63
		}
		return a / b
	}
	x, y := int64(a), int64(b)
	if y == 0 || x == math.MinInt64 && y == -1 {
		return 1 << 63
	}
	return uint64(x / y)
}

func mod64(a, b uint64, unsigned bool) uint64 {
	if unsigned {
		if b == 0 {
			return 1 << 63
		}
		return a % b
	}
	x, y := int64(a), int64(b)
	switch {
	case y == 0:
		return 1 << 63
	case x == math.MinInt64 && y == -1:
		return 0
	}
	return uint64(x % y)
}

func pow64(x, k uint64, unsigned bool) uint64 {
	if !unsigned && int64(k) < 0 {
		switch int64(x) {
		case 0:
			return math.MaxInt64
		case 1:
			return 1
		case -1:
			if k&1 != 0 {
				return ^uint64(0)
			}
			return 1
		}
		return 0
	}
	if k == 0 {
		return 1
	}
	for ; k&1 == 0; k >>= 1 {
		x *= x
	}
	y := x
	if k >>= 1; k != 0 {
		for {
			x *= x
			if k == 1 {
				break
			}
			if k&1 != 0 {
				y *= x
			}
			k >>= 1
		}
		y *= x
	}
	return y
}

// cdataString is tostring(cd): "123LL", "123ULL", or LuaJIT's
// "cdata<int>: 0x..." for the other types.
func cdataString(cd *cdata) string {
	if cd.ct.kind == kindInt && cd.ct.size == 8 {
		if cd.ct.unsigned {
			return strconv.FormatUint(cd.bits, 10) + "ULL"
		}
		return strconv.FormatInt(int64(cd.bits), 10) + "LL"
	}
	return fmt.Sprintf("cdata<%s>: %p", cd.ct, cd)
}

func cdataToString(L *lua.LState) int {
	cd := cdataOf(L.Get(1))
	if cd == nil {
		typeError(L, 1, "cdata")
	}
	L.Push(lua.LString(cdataString(cd)))
	return 1
}

// The errors LuaJIT raises for using a cdata as a string, table or function.
func ffiConcat(L *lua.LState) int {
	L.RaiseError("attempt to concatenate '%s' and '%s'", reprOf(L.Get(1)), reprOf(L.Get(2)))
	return 0
}

func ffiLen(L *lua.LState) int {
	L.RaiseError("attempt to get length of '%s'", reprOf(L.Get(1)))
	return 0
}

func ffiIndex(L *lua.LState) int {
	if k, ok := L.Get(2).(lua.LString); ok {
		L.RaiseError("'%s' has no member named '%s'", reprOf(L.Get(1)), string(k))
	}
	L.RaiseError("'%s' cannot be indexed with '%s'", reprOf(L.Get(1)), L.Get(2).Type().String())
	return 0
}

func ffiCall(L *lua.LState) int {
	L.RaiseError("'%s' is not callable", reprOf(L.Get(1)))
	return 0
}

// registerCdata installs __sysbench_int64, which the script compiler calls
// for 123LL and 123ULL literals (type and tonumber know cdata: base.go).
func registerCdata(L *lua.LState) {
	L.SetGlobal("__sysbench_int64", L.NewFunction(int64Literal))
}

// int64Literal is __sysbench_int64(digits, "LL"|"ULL"): the cdata of a
// 64-bit integer literal. As in LuaJIT, an LL literal above 2^63-1 wraps.
func int64Literal(L *lua.LState) int {
	s := L.CheckString(1)
	switch suffix := L.CheckString(2); suffix {
	case "ULL":
		if u, err := strconv.ParseUint(s, 10, 64); err == nil {
			return pushCdata(L, ctUint64, u)
		}
	case "LL":
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return pushCdata(L, ctInt64, uint64(i))
		}
		if u, err := strconv.ParseUint(s, 10, 64); err == nil {
			return pushCdata(L, ctInt64, u)
		}
	default:
		argError(L, 2, "LL or ULL expected, got '"+suffix+"'")
	}
	argError(L, 1, "malformed number '"+s+"'")
	return 0
}
