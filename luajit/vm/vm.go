// Package vm is the one place where sysbench-go relies on gopher-lua
// 1.1.2 beyond its exported API: the fields the VM keeps unexported that
// our own compiler, protected calls and error messages need.
//
//   - FunctionProto.stringConstants: the VM reads global names and constant
//     string keys from this string view of the constants, which only
//     gopher-lua's own compiler fills. Our compiler fills it here.
//   - LState.hasErrorFunc: while set, an error does not close every open
//     upvalue of the state (gopher-lua does that when it is unset, which
//     detaches the closures of functions outside the protected call). Our
//     pcall keeps it set and closes what the unwound frames left open.
//   - Debug.frame and the registry: a frame's program counter, its base and
//     its registers, from which LuaJIT's error messages name a variable
//     ("attempt to call global 'foo' (a nil value)").
//   - LState.uvcache, the open upvalues: a protected call closes those of
//     the frames an error unwinds.
//
// The layout of each is checked when the package initialises, by name, type
// and kind through reflection; a gopher-lua whose internals differ stops the
// program at start-up with a message naming the field, and the package's
// tests fail, long before a wrong offset could be used.
package vm

import (
	"fmt"
	"reflect"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// Frame is a call frame as the VM keeps it.
type Frame struct {
	Fn        *lua.LFunction
	Pc        int // the next instruction; Pc-1 is the one running
	Base      int // absolute register of the called value
	LocalBase int // absolute register of R(0)
	TailCall  int // frames replaced by tail calls
}

var layout struct {
	hasErrorFunc    uintptr // in LState
	uvcache         uintptr // in LState: *Upvalue, the open upvalues by ascending register
	uvNext          uintptr // in Upvalue: *Upvalue
	uvIndex         uintptr // in Upvalue: int
	reg             uintptr // in LState: *registry
	regArray        uintptr // in registry: []LValue
	regTop          uintptr // in registry: int
	dbgFrame        uintptr // in Debug: *callFrame
	frameFn         uintptr
	framePc         uintptr
	frameBase       uintptr
	frameLocalBase  uintptr
	frameTailCall   uintptr
	stringConstants uintptr // in FunctionProto: []string
}

func init() {
	if err := checkLayout(); err != nil {
		panic("sysbench-go: gopher-lua's internals are not those of v1.1.2: " + err.Error())
	}
}

func field(t reflect.Type, name string, kind reflect.Kind) (reflect.StructField, error) {
	f, ok := t.FieldByName(name)
	if !ok {
		return f, fmt.Errorf("%s has no field %s", t, name)
	}
	if f.Type.Kind() != kind {
		return f, fmt.Errorf("%s.%s is a %s, not a %s", t, name, f.Type.Kind(), kind)
	}
	return f, nil
}

func checkLayout() error {
	var errs []error
	get := func(t reflect.Type, name string, kind reflect.Kind, off *uintptr) reflect.Type {
		f, err := field(t, name, kind)
		if err != nil {
			errs = append(errs, err)
			return nil
		}
		*off = f.Offset
		return f.Type
	}
	state := reflect.TypeOf(lua.LState{})
	get(state, "hasErrorFunc", reflect.Bool, &layout.hasErrorFunc)
	if t := get(state, "uvcache", reflect.Pointer, &layout.uvcache); t != nil && t != reflect.TypeOf((*lua.Upvalue)(nil)) {
		errs = append(errs, fmt.Errorf("LState.uvcache is a %s", t))
	}
	up := reflect.TypeOf(lua.Upvalue{})
	if t := get(up, "next", reflect.Pointer, &layout.uvNext); t != nil && t != reflect.TypeOf((*lua.Upvalue)(nil)) {
		errs = append(errs, fmt.Errorf("Upvalue.next is a %s", t))
	}
	get(up, "index", reflect.Int, &layout.uvIndex)
	if reg := get(state, "reg", reflect.Pointer, &layout.reg); reg != nil {
		r := reg.Elem()
		if a := get(r, "array", reflect.Slice, &layout.regArray); a != nil && a.Elem() != reflect.TypeOf((*lua.LValue)(nil)).Elem() {
			errs = append(errs, fmt.Errorf("registry.array holds %s", a.Elem()))
		}
		get(r, "top", reflect.Int, &layout.regTop)
	}
	if fr := get(reflect.TypeOf(lua.Debug{}), "frame", reflect.Pointer, &layout.dbgFrame); fr != nil {
		f := fr.Elem()
		if t := get(f, "Fn", reflect.Pointer, &layout.frameFn); t != nil && t != reflect.TypeOf((*lua.LFunction)(nil)) {
			errs = append(errs, fmt.Errorf("callFrame.Fn is a %s", t))
		}
		get(f, "Pc", reflect.Int, &layout.framePc)
		get(f, "Base", reflect.Int, &layout.frameBase)
		get(f, "LocalBase", reflect.Int, &layout.frameLocalBase)
		get(f, "TailCall", reflect.Int, &layout.frameTailCall)
	}
	if t := get(reflect.TypeOf(lua.FunctionProto{}), "stringConstants", reflect.Slice, &layout.stringConstants); t != nil && t.Elem().Kind() != reflect.String {
		errs = append(errs, fmt.Errorf("FunctionProto.stringConstants holds %s", t.Elem()))
	}
	if len(errs) > 0 {
		return fmt.Errorf("%v", errs)
	}
	return nil
}

func at[T any](base unsafe.Pointer, off uintptr) *T { return (*T)(unsafe.Add(base, off)) }

// SetStringConstants gives the VM its string view of p's constants: the
// string of each string constant, "" for the others. Call it once a
// proto's constants are final, before the proto runs.
func SetStringConstants(p *lua.FunctionProto) {
	s := make([]string, len(p.Constants))
	for i, k := range p.Constants {
		if str, ok := k.(lua.LString); ok {
			s[i] = string(str)
		}
	}
	*at[[]string](unsafe.Pointer(p), layout.stringConstants) = s
}

// StringConstants returns the VM's string view of p's constants.
func StringConstants(p *lua.FunctionProto) []string {
	return *at[[]string](unsafe.Pointer(p), layout.stringConstants)
}

// ErrorFuncFlag reports whether L is in a protected call with a handler:
// errors then leave open upvalues alone.
func ErrorFuncFlag(L *lua.LState) bool {
	return *at[bool](unsafe.Pointer(L), layout.hasErrorFunc)
}

// SetErrorFuncFlag sets what ErrorFuncFlag reports. gopher-lua clears it
// whenever any protected call returns, even inside an outer one.
func SetErrorFuncFlag(L *lua.LState, v bool) {
	*at[bool](unsafe.Pointer(L), layout.hasErrorFunc) = v
}

// CloseUpvalues closes L's open upvalues of registers from the absolute
// register idx up, as the VM does when a function returns: the closures
// that hold them keep the values the registers have now. A protected
// call must do it for the frames an error unwinds before gopher-lua
// clears their registers.
func CloseUpvalues(L *lua.LState, idx int) {
	prev := at[*lua.Upvalue](unsafe.Pointer(L), layout.uvcache)
	for uv := *prev; uv != nil; uv = *prev {
		if *at[int](unsafe.Pointer(uv), layout.uvIndex) >= idx {
			*prev = nil // the list is sorted: all the rest are above idx too
			for ; uv != nil; uv = *at[*lua.Upvalue](unsafe.Pointer(uv), layout.uvNext) {
				uv.Close()
			}
			return
		}
		prev = at[*lua.Upvalue](unsafe.Pointer(uv), layout.uvNext)
	}
}

// FrameAt returns the frame at level as L.GetStack counts levels (0 is
// the running function).
func FrameAt(L *lua.LState, level int) (Frame, bool) {
	dbg, ok := L.GetStack(level)
	if !ok {
		return Frame{}, false
	}
	return frameOf(dbg)
}

func frameOf(dbg *lua.Debug) (Frame, bool) {
	fp := *at[unsafe.Pointer](unsafe.Pointer(dbg), layout.dbgFrame)
	if fp == nil {
		return Frame{}, false
	}
	return Frame{
		Fn:        *at[*lua.LFunction](fp, layout.frameFn),
		Pc:        *at[int](fp, layout.framePc),
		Base:      *at[int](fp, layout.frameBase),
		LocalBase: *at[int](fp, layout.frameLocalBase),
		TailCall:  *at[int](fp, layout.frameTailCall),
	}, true
}

// Register returns the value in absolute register i of L's stack, or nil
// when i is outside the registers in use.
func Register(L *lua.LState, i int) lua.LValue {
	reg := *at[unsafe.Pointer](unsafe.Pointer(L), layout.reg)
	if reg == nil {
		return lua.LNil
	}
	arr := *at[[]lua.LValue](reg, layout.regArray)
	if i < 0 || i >= len(arr) || arr[i] == nil {
		return lua.LNil
	}
	return arr[i]
}

// Top returns the absolute index one past L's highest register in use.
func Top(L *lua.LState) int {
	reg := *at[unsafe.Pointer](unsafe.Pointer(L), layout.reg)
	if reg == nil {
		return 0
	}
	return *at[int](reg, layout.regTop)
}
