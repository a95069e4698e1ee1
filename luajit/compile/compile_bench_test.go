package compile_test

import (
	"bytes"
	"testing"

	"github.com/sysbench-go/sysbench-go/lua"
	"github.com/sysbench-go/sysbench-go/luajit"
)

// The compilation of the largest bundled module, which every run of an
// OLTP workload starts with (1.3 ms on the 2-core machine of
// docs/performance.md; 2.2 ms when the inliner's walk asked reflect
// whether each node was an expression).
func BenchmarkCompileOLTPCommon(b *testing.B) {
	src, err := lua.Scripts.ReadFile("oltp_common.lua")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := luajit.Compile(bytes.NewReader(src), "@oltp_common.lua"); err != nil {
			b.Fatal(err)
		}
	}
}
