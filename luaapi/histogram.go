package luaapi

import (
	"fmt"
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/luajit"
)

// scriptHistogram is sysbench.histogram: log-spaced buckets between a
// minimum and a maximum, as the reference's script-level histograms.
type scriptHistogram struct {
	counts []uint64
	mult   float64
	deduct float64
}

func newScriptHistogram(size int, lo, hi float64) *scriptHistogram {
	h := &scriptHistogram{counts: make([]uint64, size), deduct: math.Log(lo)}
	h.mult = float64(size-1) / (math.Log(hi) - h.deduct)
	return h
}

func (h *scriptHistogram) update(v float64) {
	if v <= 0 {
		v = math.SmallestNonzeroFloat64
	}
	i := int(math.Floor((math.Log(v)-h.deduct)*h.mult + 0.5))
	if i < 0 {
		i = 0
	} else if i >= len(h.counts) {
		i = len(h.counts) - 1
	}
	h.counts[i]++
}

func (h *scriptHistogram) print(L *lua.LState) {
	w := getRuntime(L).env.Out
	var maxc uint64
	for _, c := range h.counts {
		if c > maxc {
			maxc = c
		}
	}
	if maxc == 0 {
		return
	}
	stars := strings.Repeat("*", 40)
	fmt.Fprintf(w, "       value  ------------- distribution ------------- count\n")
	for i, c := range h.counts {
		if c == 0 {
			continue
		}
		width := int(math.Floor(float64(c)*40/float64(maxc) + 0.5))
		fmt.Fprintf(w, "%12.3f |%-40s %d\n", math.Exp(float64(i)/h.mult+h.deduct), stars[:width], c)
	}
}

const histogramType = "sb_histogram"

func checkHistogram(L *lua.LState, n int) *scriptHistogram {
	ud := luajit.CheckUserData(L, n)
	if h, ok := ud.Value.(*scriptHistogram); ok {
		return h
	}
	luajit.ArgError(L, n, "sb_histogram expected")
	return nil
}

// registerHistogram creates sysbench.histogram.
func registerHistogram(L *lua.LState, sb *lua.LTable) {
	methods := L.CreateTable(0, 2)
	methods.RawSetString("update", L.NewFunction(func(L *lua.LState) int {
		checkHistogram(L, 1).update(float64(luajit.CheckNumber(L, 2)))
		return 0
	}))
	methods.RawSetString("print", L.NewFunction(func(L *lua.LState) int {
		checkHistogram(L, 1).print(L)
		return 0
	}))
	mt := newUDType(L, histogramType, methods)
	t := L.CreateTable(0, 1)
	t.RawSetString("new", L.NewFunction(func(L *lua.LState) int {
		size := luajit.CheckInt(L, 1)
		lo, hi := float64(luajit.CheckNumber(L, 2)), float64(luajit.CheckNumber(L, 3))
		if size < 1 || lo <= 0 || hi <= lo {
			luajit.ArgError(L, 1, "invalid histogram parameters")
		}
		ud := L.NewUserData()
		ud.Value = newScriptHistogram(size, lo, hi)
		L.SetMetatable(ud, mt)
		L.Push(ud)
		return 1
	}))
	sb.RawSetString("histogram", t)
}
