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
// Lua, the Lua language (luajit/...) imports nothing of the project
// outside itself (sysbench's API, luaapi, builds on it, never the
// reverse), the parser is gopher-lua's AST and nothing of ours but the
// number rules (luajit/number), measuring (metrics) is a leaf that
// printing (report) builds on, the leaf packages import nothing of the
// project, product code imports neither the development tools (tools/)
// nor the test support (internal/), and the command line (cli) is the top
// of the house: nothing imports it but the program's main, which imports
// nothing else of ours but the engine (the runtime's tuning, the signal
// that ends a run).
func TestImportDirection(t *testing.T) {
	t.Parallel()
	goBin := testenv.Tool(t, "go", "the Go toolchain")
	rules := []struct {
		pkg       string
		forbidden []string // import path prefixes
		allowed   []string // exceptions to forbidden
	}{
		{"./logging", []string{"github.com/sysbench-go/sysbench-go/"}, nil},
		{"./options", []string{"github.com/sysbench-go/sysbench-go/"}, nil},
		{"./sbrand", []string{"github.com/sysbench-go/sysbench-go/"}, nil},
		{"./luajit/...", []string{"github.com/sysbench-go/sysbench-go/"}, nil},
		{"./luajit/parse", []string{"github.com/sysbench-go/sysbench-go/"}, []string{"github.com/sysbench-go/sysbench-go/luajit/number"}},
		{"./luajit/number", []string{"github.com/sysbench-go/sysbench-go/"}, nil},
		{"./luajit/vm", []string{"github.com/sysbench-go/sysbench-go/"}, nil},
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

	// Product code is every package but tools/ and internal/: what the
	// binary is built from never depends on a development tool or on
	// test support (their tests may).
	const module = "github.com/sysbench-go/sysbench-go"
	out, err := exec.Command(goBin, "list", "-f", "{{.ImportPath}} {{join .Deps \" \"}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	products := 0
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], module+"/tools/") || strings.HasPrefix(f[0], module+"/internal/") {
			continue
		}
		products++
		for _, dep := range f[1:] {
			if strings.HasPrefix(dep, module+"/tools/") || strings.HasPrefix(dep, module+"/internal/") {
				t.Errorf("%s (product code) depends on %s", f[0], dep)
			}
			if dep == module+"/cli" && f[0] != module {
				t.Errorf("%s depends on the command line (%s): only the program's main may", f[0], dep)
			}
		}
	}
	if products == 0 {
		t.Fatal("go list ./... listed no product package")
	}
	out, err = exec.Command(goBin, "list", "-f", "{{join .Imports \" \"}}", ".").Output()
	if err != nil {
		t.Fatalf("go list .: %v", err)
	}
	for _, imp := range strings.Fields(string(out)) {
		if strings.HasPrefix(imp, module+"/") && imp != module+"/cli" && imp != module+"/engine" {
			t.Errorf("the program's main imports %s: it wires the process to cli, and nothing else", imp)
		}
	}
}

// layers are the product's folders from the top of the house down, as
// README's Layout lists them: a package imports only packages of the
// layers below its own (or of its own folder: drivers/mysql imports
// drivers). A folder that is in no layer fails the test, so a new one
// takes its place here and in the README.
var layers = [][]string{
	{""}, // the program's main
	{"cli"},
	{"capacity"},
	{"compare", "deploy", "control", "live", "telemetry", "authoring"},
	{"luaapi", "builtin"},
	{"luajit"},
	{"engine"},
	{"drivers"},
	{"report"},
	{"metrics", "stats"},
	{"sbrand", "options", "logging"},
	{"lua", "docs"},
}

// TestLayersPointDown: every import of the project's own packages points
// down the layers.
func TestLayersPointDown(t *testing.T) {
	t.Parallel()
	goBin := testenv.Tool(t, "go", "the Go toolchain")
	const module = "github.com/sysbench-go/sysbench-go"
	folder := func(path string) string { // the top folder of a package, "" for the main
		rest := strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
		top, _, _ := strings.Cut(rest, "/")
		return top
	}
	layerOf := map[string]int{}
	for i, l := range layers {
		for _, f := range l {
			layerOf[f] = i
		}
	}
	out, err := exec.Command(goBin, "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], module+"/tools/") || strings.HasPrefix(f[0], module+"/internal/") {
			continue
		}
		from := folder(f[0])
		li, ok := layerOf[from]
		if !ok {
			t.Errorf("%s: its folder %q is in no layer (layout_test.go's layers, README's Layout)", f[0], from)
			continue
		}
		for _, imp := range f[1:] {
			if imp != module && !strings.HasPrefix(imp, module+"/") {
				continue
			}
			to := folder(imp)
			if to == from {
				continue
			}
			if lj, ok := layerOf[to]; ok && lj <= li {
				t.Errorf("%s imports %s: %s is not below %s (README's Layout)", f[0], imp, to, from)
			}
		}
	}
}
