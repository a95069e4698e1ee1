package luaapi

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/luajit"
)

// languageNames are the names a LuaJIT state has without sysbench's API.
func languageNames(t *testing.T) map[string]string {
	t.Helper()
	lj := luajit.NewState(io.Discard, nil)
	defer lj.Close()
	lj.OpenLuaJIT()
	for _, name := range []string{"ffi", "bit", "jit"} {
		if tb, ok := lj.L.GetGlobal(name).(*lua.LTable); ok {
			luajit.FillLazy(lj.L, tb)
		}
	}
	sf := &Surface{Names: map[string]string{}, Canonical: map[string]string{}}
	sf.walk(lj.L.Get(lua.GlobalsIndex))
	return sf.Names
}

// TestSignaturesCoverAPI: every function sysbench's API adds to a state,
// and every method of its objects, has a signature, and every signature
// names a function of the state under its first name, so that check's
// arity table cannot drift from what is registered.
func TestSignaturesCoverAPI(t *testing.T) {
	t.Parallel()
	sf, err := APISurface()
	if err != nil {
		t.Fatal(err)
	}
	lang := languageNames(t)
	sigs := Signatures()
	for path, kind := range sf.Names {
		if kind != "function" || sf.Canonical[path] != path {
			continue
		}
		if _, ok := lang[path]; ok || strings.HasPrefix(path, "ffi.") || strings.HasPrefix(path, "package.") {
			continue // the language's, not sysbench's
		}
		if _, ok := sigs[path]; !ok {
			t.Errorf("%s: a function of the API without a signature (luaapi/signatures.go)", path)
		}
	}
	fields := ObjectFields()
	for typ, names := range sf.Methods {
		for _, m := range names {
			if _, ok := sigs[typ+":"+m]; !ok && !slices.Contains(fields[typ], m) {
				t.Errorf("%s:%s: a method without a signature", typ, m)
			}
		}
	}
	for name := range sigs {
		if typ, m, ok := strings.Cut(name, ":"); ok {
			if !slices.Contains(sf.Methods[typ], m) {
				t.Errorf("signature %s: %s has no method %s", name, typ, m)
			}
			continue
		}
		if sf.Names[name] != "function" {
			t.Errorf("signature %s: no such function in a script's state", name)
		} else if c := sf.Canonical[name]; c != name {
			t.Errorf("signature %s: the function's first name is %s", name, c)
		}
	}
	for _, want := range []string{"sysbench.rand.uniform", "db_query", "sb_rand", "thread_id", "DB_ERROR_NONE",
		"sysbench.sql.type.INT", "sysbench.cmdline.ARG_INT", "ffi.C", "bit.band", "jit.version"} {
		if _, ok := sf.Names[want]; !ok {
			t.Errorf("the surface lacks %s", want)
		}
	}
	if c := sf.Canonical["sb_rand"]; c != "sysbench.rand.default" {
		t.Errorf("sb_rand is named %q first, want sysbench.rand.default", c)
	}
}

// TestHooksAreTheCalledOnes: the hook names check knows are the names
// this package's code calls: callGlobal(L, "name"), the commands that
// call the global of their name, callHook("name") and
// getPath(L, "sysbench", "hooks", "name").
func TestHooksAreTheCalledOnes(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	globalCall := regexp.MustCompile(`(?:callGlobal\([^,]+, |GetGlobal\()"([a-z_]+)"`)
	hookCall := regexp.MustCompile(`(?:"hooks", |callHook\()"([a-z_]+)"`)
	// The commands that call the global of their name.
	commandCall := regexp.MustCompile(`case ((?:"[a-z_]+",? ?)+):\n\s*if s\.master\.GetGlobal\(name\)`)
	quoted := regexp.MustCompile(`"([a-z_]+)"`)
	var globals, hooks []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range globalCall.FindAllStringSubmatch(string(src), -1) {
			globals = append(globals, m[1])
		}
		for _, m := range hookCall.FindAllStringSubmatch(string(src), -1) {
			hooks = append(hooks, m[1])
		}
		for _, m := range commandCall.FindAllStringSubmatch(string(src), -1) {
			for _, q := range quoted.FindAllStringSubmatch(m[1], -1) {
				globals = append(globals, q[1])
			}
		}
	}
	// Lookups of globals that are not the script's functions.
	globals = slices.DeleteFunc(globals, func(s string) bool { return s == "sysbench" || s == "package" })
	wantGlobals, wantHooks := Hooks()
	check := func(what string, found, want []string) {
		slices.Sort(found)
		found = slices.Compact(found)
		w := slices.Sorted(slices.Values(want))
		if !slices.Equal(found, w) {
			t.Errorf("%s called by the code: %v; known to check (Hooks): %v", what, found, w)
		}
	}
	check("globals", globals, wantGlobals)
	check("sysbench.hooks", hooks, wantHooks)
}
