package luaapi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPackagePath checks package.path and package.cpath against what
// sysbench 1.0.20 prints for `print(package.path)` (HOME=/root), less its
// own script directory /usr/share/sysbench (our modules are bundled), and
// with the directory of a file script last.
func TestPackagePath(t *testing.T) {
	const def = "./?.lua;./?/init.lua;./src/lua/?.lua;/root/.luarocks/share/lua/5.1/?.lua;/root/.luarocks/share/lua/5.1/?/init.lua;/root/.luarocks/share/lua/?.lua;/root/.luarocks/share/lua/?/init.lua;/usr/local/share/lua/5.1/?.lua;/usr/share/lua/5.1/?.lua;"
	const cdef = "./?.so;/root/.luarocks/lib/lua/5.1/?.so;/root/.luarocks/lib/lua/?.so;/usr/local/lib/lua/5.1/?.so;/usr/lib/lua/5.1/?.so;/usr/lib/x86_64-linux-gnu/sysbench;"
	for _, tc := range []struct {
		name, luaPathEnv, luaCPathEnv, home, dir string
		path, cpath                              string
	}{
		{"defaults", "", "", "/root", "", def, cdef},
		{"no HOME", "", "", "", "", "./?.lua;./?/init.lua;./src/lua/?.lua;/usr/local/share/lua/5.1/?.lua;/usr/share/lua/5.1/?.lua;",
			"./?.so;/usr/local/lib/lua/5.1/?.so;/usr/lib/lua/5.1/?.so;/usr/lib/x86_64-linux-gnu/sysbench;"},
		{"LUA_PATH replaces", "x/?.lua", "y/?.so", "/root", "", "x/?.lua", "y/?.so"},
		{"LUA_PATH ;; is the default", "x/?.lua;;", "", "/root", "", "x/?.lua;" + def + ";", cdef},
		{"LUA_PATH ;; in the middle", "x/?.lua;;y/?.lua", ";;", "/root", "", "x/?.lua;" + def + ";y/?.lua", ";" + cdef + ";"},
		{"script directory last", "", "", "/root", "/opt/scripts/", def + "/opt/scripts/?.lua;", cdef},
		{"script directory after LUA_PATH", "x/?.lua", "", "/root", "/opt/scripts", "x/?.lua;/opt/scripts/?.lua;", cdef},
		{"script in the working directory", "", "", "/root", ".", def, cdef},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"LUA_PATH": tc.luaPathEnv, "LUA_CPATH": tc.luaCPathEnv, "HOME": tc.home}
			getenv := func(k string) string { return env[k] }
			if got := luaPath(getenv, tc.dir); got != tc.path {
				t.Errorf("path\n got: %s\nwant: %s", got, tc.path)
			}
			if got := luaCPath(getenv); got != tc.cpath {
				t.Errorf("cpath\n got: %s\nwant: %s", got, tc.cpath)
			}
		})
	}
}

// TestRequireFromRepositoryRoot: require("padding/x") finds
// ./padding/x.lua and require("m") finds ./src/lua/m.lua, as under
// sysbench; a missing module lists every place tried, the bundled
// modules after package.path and C files last; package.loaders has
// LuaJIT's four entries.
func TestRequireFromRepositoryRoot(t *testing.T) {
	root := t.TempDir()
	for name, body := range map[string]string{
		"padding/x.lua": `return "padding"`,
		"src/lua/m.lua": `return "src"`,
		"script/.keep":  ``,
	} {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(root)
	t.Setenv("LUA_PATH", "")
	out := runScriptIn(t, filepath.Join(root, "script"), `
print(require("padding/x"), require("m"), #package.loaders)
print(select(2, pcall(require, "nosuch")))
`)
	lines := strings.SplitN(out, "\n", 2)
	if lines[0] != "padding\tsrc\t4" {
		t.Errorf("first line %q", lines[0])
	}
	for _, want := range []string{"module 'nosuch' not found:", "\tno field package.preload['nosuch']",
		"\tno file './nosuch.lua'", "\tno file './src/lua/nosuch.lua'", "\tno bundled module 'nosuch'",
		"\tno file './nosuch.so'", "\tno file '" + root + "/script/nosuch.lua'"} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if strings.Index(out, "no bundled module") > strings.Index(out, "nosuch.so") {
		t.Errorf("C files are searched last:\n%s", out)
	}
}
