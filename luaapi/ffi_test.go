package luaapi

import (
	"io"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/luajit"
	"github.com/sysbench-go/sysbench-go/sbrand"
)

// newFFIState is a state with LuaJIT's libraries, sysbench.rand and
// ffi.C's sysbench functions, registered as newState does.
func newFFIState(t *testing.T) *lua.LState {
	t.Helper()
	lj := luajit.NewState(io.Discard, nil)
	L := lj.L
	lj.Host = &runtime{env: &Env{Out: io.Discard}, L: L, lj: lj}
	t.Cleanup(func() {
		lj.Close()
		L.Close()
	})
	sb := L.CreateTable(0, 1)
	L.SetGlobal("sysbench", sb)
	r := sbrand.NewThread(1, 0)
	RegisterRand(L, sb, func(*lua.LState) *sbrand.Rand { return r })
	lj.FFIC = ffiC(L)
	lj.OpenLuaJIT()
	return L
}

// evalTostring is the values of expr through tostring, joined by ", ",
// or "error: " and the message without its position.
func evalTostring(t *testing.T, L *lua.LState, expr string) string {
	t.Helper()
	p, err := luajit.Compile(strings.NewReader(`local r = {pcall(function() return `+expr+` end)}
if not r[1] then return "error: " .. tostring(r[2]):gsub("^.-:%d+: ", "") end
for i = 2, #r do r[i] = tostring(r[i]) end
return table.concat(r, ", ", 2)`), "=test")
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	if err := luajit.CallProtected(L, L.NewFunctionFromProto(p), 1); err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	v := L.Get(-1)
	L.Pop(1)
	return v.String()
}

// TestCdataArguments: sysbench.rand takes cdata where the reference's FFI
// declarations (uint32_t parameters) convert them.
func TestCdataArguments(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		{`sysbench.rand.uniform(7ULL, 7LL)`, "7"},
		{`sysbench.rand.uniform(4294967303ULL, 7)`, "7"},
		{`sysbench.rand.default(ffi.new("int", 3), 3)`, "3"},
		{`type(sysbench.rand.uniform_uint64()), tostring(sysbench.rand.uniform_uint64()):match("ULL$")`, "cdata, ULL"},
	} {
		if got := evalTostring(t, newFFIState(t), tc.expr); got != tc.want {
			t.Errorf("%s = %s, want %s", tc.expr, got, tc.want)
		}
	}
}

// TestFFICSysbench: ffi.C has sysbench's functions and counters beside
// LuaJIT's C library calls.
func TestFFICSysbench(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		{`ffi.C.SB_CNT_READ, ffi.C.SB_CNT_EVENT, ffi.C.SB_CNT_TRX`, "1, 3, 3"},
		{`ffi.C.sb_rand_uniform(3, 3)`, "3"},
		{`ffi.C.sb_more_events()`, "false"},
		{`ffi.C.strlen`, "error: ffi.C.strlen is not supported by sysbench-go"},
	} {
		if got := evalTostring(t, newFFIState(t), tc.expr); got != tc.want {
			t.Errorf("%s = %s, want %s", tc.expr, got, tc.want)
		}
	}
}

// TestSQLObjectsAreCdata: type() of sysbench's SQL objects is "cdata", as
// the reference's ffi structs (luajit.FFIObject).
func TestSQLObjectsAreCdata(t *testing.T) {
	L := newFFIState(t)
	for _, v := range []any{&sqlDriver{}, &sqlConn{}, &sqlStmt{}, &sqlResult{}} {
		ud := L.NewUserData()
		ud.Value = v
		L.SetGlobal("obj", ud)
		if got := evalTostring(t, L, `type(obj)`); got != "cdata" {
			t.Errorf("type(%T) = %s, want cdata", v, got)
		}
	}
}
