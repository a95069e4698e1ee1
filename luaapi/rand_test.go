package luaapi

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/internal/allocs"
	"github.com/sysbench-go/sysbench-go/internal/testenv"
	"github.com/sysbench-go/sysbench-go/sbrand"
)

// newRandState returns a fresh Lua state with sysbench.rand registered on a
// generator seeded like worker thread 0 of a run with --rand-seed=seed.
func newRandState(t testing.TB, seed int64, cfg *sbrand.Config) (*lua.LState, *sbrand.Rand) {
	t.Helper()
	L := lua.NewState()
	t.Cleanup(L.Close)
	r := sbrand.NewThread(seed, 0)
	if cfg != nil {
		if err := r.SetConfig(*cfg); err != nil {
			t.Fatal(err)
		}
	}
	sysbench := L.NewTable()
	L.SetGlobal("sysbench", sysbench)
	RegisterRand(L, sysbench, func(*lua.LState) *sbrand.Rand { return r })
	return L, r
}

// eval runs a chunk ending in "return ..." and returns its values.
func eval(t testing.TB, L *lua.LState, src string) []lua.LValue {
	t.Helper()
	top := L.GetTop()
	if err := L.DoString(src); err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	n := L.GetTop() - top
	out := make([]lua.LValue, n)
	for i := range out {
		out[i] = L.Get(top + 1 + i)
	}
	L.SetTop(top)
	return out
}

func TestRandMatchesGo(t *testing.T) {
	// Each Lua call makes the same draws as the Go method on a twin
	// generator.
	tests := []struct {
		lua  string
		goFn func(r *sbrand.Rand) lua.LValue
	}{
		{"sysbench.rand.default(1, 1000)", func(r *sbrand.Rand) lua.LValue { return lua.LNumber(r.Default(1, 1000)) }},
		{"sysbench.rand.uniform(1, 1000)", func(r *sbrand.Rand) lua.LValue { return lua.LNumber(r.Uniform(1, 1000)) }},
		{"sysbench.rand.gaussian(1, 1000)", func(r *sbrand.Rand) lua.LValue { return lua.LNumber(r.Gaussian(1, 1000)) }},
		{"sysbench.rand.special(1, 1000)", func(r *sbrand.Rand) lua.LValue { return lua.LNumber(r.Special(1, 1000)) }},
		{"sysbench.rand.pareto(1, 1000)", func(r *sbrand.Rand) lua.LValue { return lua.LNumber(r.Pareto(1, 1000)) }},
		{"sysbench.rand.zipfian(1, 1000)", func(r *sbrand.Rand) lua.LValue { return lua.LNumber(r.Zipfian(1, 1000)) }},
		{"sysbench.rand.uniform(-5, -5)", func(r *sbrand.Rand) lua.LValue { return lua.LNumber(4294967291) }},
		{"sysbench.rand.uniform(1.9, 1.9)", func(r *sbrand.Rand) lua.LValue { return lua.LNumber(1) }},
		{"sysbench.rand.uniform_double()", func(r *sbrand.Rand) lua.LValue { return lua.LNumber(r.UniformDouble()) }},
		{"tostring(sysbench.rand.uniform_uint64())", func(r *sbrand.Rand) lua.LValue {
			return lua.LString(strconv.FormatUint(r.UniformUint64(), 10) + "ULL")
		}},
		{"sysbench.rand.string('###-@@@-x')", func(r *sbrand.Rand) lua.LValue { return lua.LString(r.String(nil, []byte("###-@@@-x"))) }},
		{"sysbench.rand.string('')", func(r *sbrand.Rand) lua.LValue { return lua.LString("") }},
		{"sysbench.rand.varstring(3, 9)", func(r *sbrand.Rand) lua.LValue { return lua.LString(r.VarString(nil, 3, 9)) }},
		{"sb_rand(1, 1000)", func(r *sbrand.Rand) lua.LValue { return lua.LNumber(r.Default(1, 1000)) }},
		{"sb_rand_uniform(1, 1000)", func(r *sbrand.Rand) lua.LValue { return lua.LNumber(r.Uniform(1, 1000)) }},
		{"sb_rand_gaussian(1, 1000)", func(r *sbrand.Rand) lua.LValue { return lua.LNumber(r.Gaussian(1, 1000)) }},
		{"sb_rand_special(1, 1000)", func(r *sbrand.Rand) lua.LValue { return lua.LNumber(r.Special(1, 1000)) }},
		{"sb_rand_str('@@@@@@@@')", func(r *sbrand.Rand) lua.LValue { return lua.LString(r.String(nil, []byte("@@@@@@@@"))) }},
		{"sb_rnd()", func(r *sbrand.Rand) lua.LValue { return lua.LNumber(uint32(r.UniformUint64())) }},
	}
	for _, tc := range tests {
		t.Run(tc.lua, func(t *testing.T) {
			for _, typ := range []string{"special", "uniform", "gaussian", "pareto", "zipfian"} {
				cfg := sbrand.DefaultConfig()
				cfg.Type = typ
				L, _ := newRandState(t, 77, &cfg)
				twin := sbrand.NewThread(77, 0)
				if err := twin.SetConfig(cfg); err != nil {
					t.Fatal(err)
				}
				for i := 0; i < 20; i++ {
					got := eval(t, L, "return "+tc.lua)
					want := tc.goFn(twin)
					if len(got) != 1 || got[0] != want {
						t.Fatalf("--rand-type=%s call %d: %s = %v, want %v", typ, i, tc.lua, got, want)
					}
				}
			}
		})
	}
}

func TestRandAliases(t *testing.T) {
	L, _ := newRandState(t, 1, nil)
	got := eval(t, L, `return sb_rand == sysbench.rand.default,
		sb_rand_uniform == sysbench.rand.uniform,
		sb_rand_gaussian == sysbench.rand.gaussian,
		sb_rand_special == sysbench.rand.special,
		sb_rand_str == sysbench.rand.string,
		type(sb_rand_uniq), type(sb_rnd)`)
	want := []lua.LValue{lua.LTrue, lua.LTrue, lua.LTrue, lua.LTrue, lua.LTrue, lua.LString("function"), lua.LString("function")}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("value %d = %v, want %v", i, got[i], want[i])
		}
	}
	names := eval(t, L, `local n = {}
		for k in pairs(sysbench.rand) do n[#n+1] = k end
		table.sort(n)
		return table.concat(n, ",")`)
	if s := names[0].String(); s != "default,gaussian,pareto,special,string,uniform,uniform_double,uniform_uint64,unique,varstring,zipfian" {
		t.Errorf("sysbench.rand has %s", s)
	}
}

func TestRandResults(t *testing.T) {
	L, _ := newRandState(t, 5, nil)
	// Types and ranges of results, checked in Lua over many calls.
	eval(t, L, `
		for i = 1, 2000 do
			local v = sysbench.rand.uniform(10, 20)
			assert(type(v) == "number" and v >= 10 and v <= 20 and v == math.floor(v), "uniform")
			v = sysbench.rand.default(1, 5)
			assert(v >= 1 and v <= 5, "default")
			v = sysbench.rand.unique()
			assert(v >= 0 and v <= 4294967295 and v == math.floor(v), "unique")
			v = sysbench.rand.uniform_double()
			assert(v >= 0 and v < 1, "uniform_double")
			v = sb_rnd()
			assert(v >= 0 and v <= 4294967295 and v == math.floor(v), "sb_rnd")
			v = sb_rand_uniq()
			assert(v >= 0 and v <= 4294967295, "sb_rand_uniq()")
			v = sb_rand_uniq(2147483648)
			assert(v >= 2147483648, "sb_rand_uniq(a)")
			v = sb_rand_uniq(nil, 2147483647)
			assert(v <= 2147483647, "sb_rand_uniq(nil, b)")
			local s = sysbench.rand.varstring(1, 4)
			assert(#s >= 1 and #s <= 4 and not s:find("[^0-z]"), "varstring")
			s = sysbench.rand.string("a#@\0#")
			assert(#s == 5 and s:find("^a%d%l%z%z$"), "string")
		end
		return true`)
}

// TestRandBadArguments: the distributions are C functions in the
// reference, bound through LuaJIT's FFI, and answer a bad argument (a
// string too) with the FFI's words; the others as LuaJIT's libraries do.
// The function is named as the calling code named it.
func TestRandBadArguments(t *testing.T) {
	tests := []struct {
		lua  string
		want string
	}{
		{"sysbench.rand.uniform()", "bad argument #1 to 'uniform' (cannot convert 'nil' to 'unsigned int')"},
		{"sysbench.rand.uniform(1)", "bad argument #2 to 'uniform' (cannot convert 'nil' to 'unsigned int')"},
		{"sysbench.rand.uniform('3', '3')", "bad argument #1 to 'uniform' (cannot convert 'string' to 'unsigned int')"},
		{"sysbench.rand.gaussian({}, 2)", "bad argument #1 to 'gaussian' (cannot convert 'table' to 'unsigned int')"},
		{"sysbench.rand.special(1, 'x')", "bad argument #2 to 'special' (cannot convert 'string' to 'unsigned int')"},
		{"sb_rand(nil, 2)", "bad argument #1 to 'sb_rand' (cannot convert 'nil' to 'unsigned int')"},
		{"sysbench.rand.string()", "bad argument #1 to 'string' (string expected, got no value)"},
		{"sysbench.rand.string({})", "bad argument #1 to 'string' (string expected, got table)"},
		{"sysbench.rand.varstring(5, 1)", "bad argument #1 to 'varstring' (min_len must not be greater than max_len)"},
		{"sysbench.rand.varstring(-2, 0)", "bad argument #2 to 'varstring' (max_len must be greater than 0)"},
		{"sysbench.rand.varstring(1)", "bad argument #2 to 'varstring' (number expected, got no value)"},
		{"sb_rand_uniq(10, 5)", "bad argument #1 to 'sb_rand_uniq' (empty range)"},
		{"sb_rand_uniq(1.2, 1.8)", "bad argument #1 to 'sb_rand_uniq' (empty range)"},
		{"sb_rand_uniq(-10, -1)", "bad argument #1 to 'sb_rand_uniq' (empty range)"},
		{"sb_rand_uniq('x')", "bad argument #1 to 'sb_rand_uniq' (number expected, got string)"},
	}
	for _, tc := range tests {
		t.Run(tc.lua, func(t *testing.T) {
			L, _ := newRandState(t, 1, nil)
			err := L.DoString("local v = " + tc.lua)
			if err == nil {
				t.Fatalf("no error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestRandNoGenerator(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	sysbench := L.NewTable()
	L.SetGlobal("sysbench", sysbench)
	RegisterRand(L, sysbench, func(*lua.LState) *sbrand.Rand { return nil })
	if err := L.DoString("sysbench.rand.uniform(1, 2)"); err == nil ||
		!strings.Contains(err.Error(), "no random number generator") {
		t.Errorf("error %v", err)
	}
}

func TestRandUniqCancelled(t *testing.T) {
	// A range holding one value in 2^32 takes billions of draws; the end of
	// the run must still stop the search.
	L, _ := newRandState(t, 1, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	L.SetContext(ctx)
	start := time.Now()
	err := L.DoString("sb_rand_uniq(5, 5)")
	if err == nil {
		t.Fatal("no error")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v to stop", d)
	}
}

func TestRandBufferReuse(t *testing.T) {
	// Returned strings are copies: a later call must not change an earlier
	// result that shares the per-state buffer.
	L, _ := newRandState(t, 9, nil)
	got := eval(t, L, `
		local a = sysbench.rand.string("##########")
		local a2 = a .. ""
		local b = sysbench.rand.varstring(10, 10)
		local c = sysbench.rand.string("@@@@@@@@@@")
		return a == a2, a ~= b, b ~= c`)
	for i, v := range got {
		if v != lua.LTrue {
			t.Errorf("check %d failed", i)
		}
	}
}

// refLuaScript prints, from worker thread 0, one line per draw of the
// functions the reference and we both have, in the reference's number format
// for each type.
const refLuaScript = `
local function draws()
  local out = {}
  for i = 1, 100 do
    out[#out+1] = string.format("%d", sysbench.rand.default(1, 100000))
    out[#out+1] = string.format("%d", sysbench.rand.uniform(1, 100000))
    out[#out+1] = string.format("%d", sysbench.rand.gaussian(1, 100000))
    out[#out+1] = string.format("%d", sysbench.rand.special(1, 100000))
    out[#out+1] = string.format("%d", sysbench.rand.pareto(1, 100000))
    out[#out+1] = sysbench.rand.string("#####-@@@@@-" .. i)
    out[#out+1] = string.format("%.17g", sysbench.rand.uniform_double())
    out[#out+1] = string.format("%d", sb_rand(0, 9))
    out[#out+1] = string.format("%d", sb_rand_uniform(0, 9))
    out[#out+1] = string.format("%d", sb_rand_gaussian(0, 9))
    out[#out+1] = string.format("%d", sb_rand_special(0, 9))
    out[#out+1] = sb_rand_str("###")
    out[#out+1] = string.format("%d", sb_rnd())
    out[#out+1] = tostring(sysbench.rand.uniform_uint64())
  end
  return table.concat(out, "\n") .. "\n"
end
function event()
  local fh = io.open(os.getenv("SB_OUT"), "w")
  fh:write(draws())
  fh:close()
end
return draws
`

// TestRandAgainstReference runs the same Lua against sysbench 1.0.20 and
// against this binding with the same --rand-seed; the outputs must be equal.
func TestRandAgainstReference(t *testing.T) {
	bin := testenv.Tool(t, "sysbench", "apt-get install sysbench")
	for _, tc := range []struct {
		seed    int64
		randArg string
		cfg     func(*sbrand.Config)
	}{
		{2024, "", nil},
		{-3, "--rand-type=uniform", func(c *sbrand.Config) { c.Type = "uniform" }},
		{99, "--rand-type=pareto", func(c *sbrand.Config) { c.Type = "pareto" }},
		{5, "--rand-type=gaussian", func(c *sbrand.Config) { c.Type = "gaussian" }},
	} {
		t.Run(fmt.Sprint(tc.seed, tc.randArg), func(t *testing.T) {
			dir := t.TempDir()
			script := filepath.Join(dir, "draws.lua")
			out := filepath.Join(dir, "out.txt")
			if err := os.WriteFile(script, []byte(refLuaScript), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{script, "run", "--events=1", "--rand-seed=" + strconv.FormatInt(tc.seed, 10)}
			if tc.randArg != "" {
				args = append(args, tc.randArg)
			}
			cmd := exec.Command(bin, args...)
			cmd.Env = append(os.Environ(), "SB_OUT="+out)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("sysbench: %v\n%s", err, b)
			}
			want, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}

			cfg := sbrand.DefaultConfig()
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			L, _ := newRandState(t, tc.seed, &cfg)
			got := eval(t, L, strings.Replace(refLuaScript, "return draws", "return draws()", 1))
			gotLines := strings.Split(got[0].String(), "\n")
			wantLines := strings.Split(string(want), "\n")
			if len(gotLines) != len(wantLines) {
				t.Fatalf("%d lines, reference %d", len(gotLines), len(wantLines))
			}
			for i := range wantLines {
				if gotLines[i] != wantLines[i] {
					t.Fatalf("line %d: %q, reference %q", i+1, gotLines[i], wantLines[i])
				}
			}
		})
	}
}

func BenchmarkRandUniformLua(b *testing.B) {
	L, _ := newRandState(b, 1, nil)
	fn := L.GetField(L.GetField(L.GetGlobal("sysbench"), "rand"), "uniform")
	for b.Loop() {
		if err := L.CallByParam(lua.P{Fn: fn, NRet: 1}, lua.LNumber(1), lua.LNumber(math.MaxInt32)); err != nil {
			b.Fatal(err)
		}
		L.Pop(1)
	}
}

func BenchmarkRandStringLua(b *testing.B) {
	L, _ := newRandState(b, 1, nil)
	fn := L.GetField(L.GetField(L.GetGlobal("sysbench"), "rand"), "string")
	tmpl := lua.LString("###########-###########-###########-###########-###########")
	b.ReportAllocs()
	for b.Loop() {
		if err := L.CallByParam(lua.P{Fn: fn, NRet: 1}, tmpl); err != nil {
			b.Fatal(err)
		}
		L.Pop(1)
	}
}

// TestRandDrawsAllocateNothing: a draw that scripts make on every event
// returns a whole number below 16384 without allocating its Lua value
// (luajit.Int), and the value is the number drawn.
func TestRandDrawsAllocateNothing(t *testing.T) {
	L, _ := newRandState(t, 1, nil)
	rand := L.GetField(L.GetGlobal("sysbench"), "rand")
	for _, name := range []string{"default", "uniform"} {
		fn := L.GetField(rand, name)
		lo, hi := lua.LValue(lua.LNumber(1000)), lua.LValue(lua.LNumber(10000))
		draw := func() lua.LValue {
			L.Push(fn)
			L.Push(lo)
			L.Push(hi)
			L.Call(2, 1)
			v := L.Get(-1)
			L.Pop(1)
			return v
		}
		for range 100 {
			if n, ok := draw().(lua.LNumber); !ok || n < 1000 || n > 10000 || n != lua.LNumber(int64(n)) {
				t.Fatalf("sysbench.rand.%s(1000, 10000) returned %v", name, n)
			}
		}
		if a := allocs.PerRun(200, func() { draw() }); a != 0 {
			t.Errorf("sysbench.rand.%s(1000, 10000) allocates %.1f times a call", name, a)
		}
	}
}
