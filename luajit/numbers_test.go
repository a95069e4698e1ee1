package luajit

import (
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/internal/allocs"
)

// TestInt: the shared boxes hold the numbers they stand for, and the
// numbers outside them are made as before.
func TestInt(t *testing.T) {
	for _, v := range []int64{0, 1, 255, 256, 10000, smallInts - 1, smallInts, -1, -300, 1 << 40} {
		if got := Int(v); got != lua.LNumber(v) {
			t.Errorf("Int(%d) = %v", v, got)
		}
	}
	if a := allocs.PerRun(100, func() { _ = Int(9999) }); a != 0 {
		t.Errorf("Int(9999) allocates %.1f times", a)
	}
}
