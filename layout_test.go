package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

// TestImportDirection keeps the data flowing one way (docs: STYLE): the
// engine knows no Lua and no driver, drivers know neither the engine nor
// Lua, the parser is gopher-lua's AST and nothing of ours but the number
// rules (luajit/number), measuring (metrics) is a leaf that printing (report)
// builds on, and the leaf packages import nothing of the project.
func TestImportDirection(t *testing.T) {
	goBin := testenv.Tool(t, "go", "the Go toolchain")
	rules := []struct {
		pkg       string
		forbidden []string // import path prefixes
		allowed   []string // exceptions to forbidden
	}{
		{"./logging", []string{"github.com/sysbench-go/sysbench-go/"}, nil},
		{"./options", []string{"github.com/sysbench-go/sysbench-go/"}, nil},
		{"./sbrand", []string{"github.com/sysbench-go/sysbench-go/"}, nil},
		{"./luajit/parse", []string{"github.com/sysbench-go/sysbench-go/"}, []string{"github.com/sysbench-go/sysbench-go/luajit/number"}},
		{"./luajit/number", []string{"github.com/sysbench-go/sysbench-go/"}, nil},
		{"./metrics", []string{"github.com/sysbench-go/sysbench-go/"}, nil},
		{"./stats", []string{"github.com/sysbench-go/sysbench-go/"}, nil},
		{"./report", []string{"github.com/sysbench-go/sysbench-go/engine", "github.com/sysbench-go/sysbench-go/luaapi", "github.com/sysbench-go/sysbench-go/drivers", "github.com/sysbench-go/sysbench-go/lua", "github.com/sysbench-go/sysbench-go/builtin", "github.com/sysbench-go/sysbench-go/logging", "github.com/sysbench-go/sysbench-go/options", "github.com/yuin/gopher-lua"}, nil},
		{"./engine", []string{"github.com/sysbench-go/sysbench-go/luaapi", "github.com/sysbench-go/sysbench-go/drivers", "github.com/sysbench-go/sysbench-go/lua", "github.com/sysbench-go/sysbench-go/builtin", "github.com/yuin/gopher-lua"}, nil},
		{"./drivers/...", []string{"github.com/sysbench-go/sysbench-go/engine", "github.com/sysbench-go/sysbench-go/luaapi", "github.com/sysbench-go/sysbench-go/lua", "github.com/sysbench-go/sysbench-go/builtin", "github.com/yuin/gopher-lua"}, nil},
		{"./builtin", []string{"github.com/sysbench-go/sysbench-go/luaapi", "github.com/sysbench-go/sysbench-go/drivers", "github.com/sysbench-go/sysbench-go/lua", "github.com/yuin/gopher-lua"}, nil},
		{"./luaapi", []string{"github.com/sysbench-go/sysbench-go/builtin"}, nil},
		{"./telemetry", []string{"github.com/sysbench-go/sysbench-go/engine", "github.com/sysbench-go/sysbench-go/luaapi", "github.com/sysbench-go/sysbench-go/lua", "github.com/sysbench-go/sysbench-go/builtin", "github.com/yuin/gopher-lua"}, nil},
	}
	for _, r := range rules {
		out, err := exec.Command(goBin, "list", "-deps", r.pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", r.pkg, err)
		}
		self := strings.TrimPrefix(strings.TrimSuffix(r.pkg, "/..."), "./")
		for _, dep := range strings.Fields(string(out)) {
			if dep == "github.com/sysbench-go/sysbench-go/"+self || strings.HasPrefix(dep, "github.com/sysbench-go/sysbench-go/"+self+"/") || slices.Contains(r.allowed, dep) {
				continue
			}
			for _, f := range r.forbidden {
				if dep == f || strings.HasPrefix(dep, strings.TrimSuffix(f, "/")+"/") || (strings.HasSuffix(f, "/") && strings.HasPrefix(dep, f)) {
					t.Errorf("%s depends on %s", r.pkg, dep)
				}
			}
		}
	}
}
