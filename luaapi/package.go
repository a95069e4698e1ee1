package luaapi

import (
	"os"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/luajit"
)

// package.path and package.cpath are sysbench 1.0.20's: ./?.lua,
// ./?/init.lua and ./src/lua/?.lua first (so require("padding/x") works
// from a repository's root), then the luarocks and system directories,
// replaced by LUA_PATH / LUA_CPATH when set, where ";;" stands for the
// default as in Lua. sysbench's own script directory (/usr/share/sysbench)
// is not searched: its modules are bundled, found by the bundled loader;
// the directory of a script run from a file comes last.
//
// package.loaders has LuaJIT's four entries: package.preload's searcher,
// the Lua file searcher (luajit/load.go), the bundled modules (second for a
// bundled script, whose own modules come first), and a C module searcher
// along package.cpath, which can only report what it finds: C modules
// cannot be loaded.

// luaPath is package.path for a script in dir ("" for a bundled script or
// standard input), with getenv for LUA_PATH and HOME.
func luaPath(getenv func(string) string, dir string) string {
	def := "./?.lua;./?/init.lua;./src/lua/?.lua;"
	if home := getenv("HOME"); home != "" {
		def += home + "/.luarocks/share/lua/5.1/?.lua;" + home + "/.luarocks/share/lua/5.1/?/init.lua;" +
			home + "/.luarocks/share/lua/?.lua;" + home + "/.luarocks/share/lua/?/init.lua;"
	}
	def += "/usr/local/share/lua/5.1/?.lua;/usr/share/lua/5.1/?.lua;"
	path := withEnv(getenv("LUA_PATH"), def)
	if dir != "" && dir != "." {
		if !strings.HasSuffix(path, ";") {
			path += ";"
		}
		// Not filepath.Join: "./?.lua" names the files as LuaJIT would.
		path += strings.TrimSuffix(dir, "/") + "/?.lua;"
	}
	return path
}

// luaCPath is package.cpath, with getenv for LUA_CPATH and HOME.
func luaCPath(getenv func(string) string) string {
	def := "./?.so;"
	if home := getenv("HOME"); home != "" {
		def += home + "/.luarocks/lib/lua/5.1/?.so;" + home + "/.luarocks/lib/lua/?.so;"
	}
	def += "/usr/local/lib/lua/5.1/?.so;/usr/lib/lua/5.1/?.so;/usr/lib/x86_64-linux-gnu/sysbench;"
	return withEnv(getenv("LUA_CPATH"), def)
}

// withEnv is env with each ";;" made ";"+def+";", or def when env is "".
func withEnv(env, def string) string {
	if env == "" {
		return def
	}
	return strings.ReplaceAll(env, ";;", ";"+def+";")
}

// setRequirePaths sets package.path, package.cpath, package.loaded.package
// and the loaders after the Lua file searcher.
func (s *Script) setRequirePaths(L *lua.LState) {
	pkg, ok := L.GetGlobal("package").(*lua.LTable)
	if !ok {
		return
	}
	pkg.RawSetString("path", lua.LString(luaPath(os.Getenv, s.dir)))
	pkg.RawSetString("cpath", lua.LString(luaCPath(os.Getenv)))
	luajit.SetLoaded(L, "package", pkg)
	pkg.RawSetString("loadlib", L.NewFunction(func(L *lua.LState) int {
		luajit.CheckStr(L, 1)
		luajit.CheckStr(L, 2)
		L.Push(lua.LNil)
		L.Push(lua.LString("C modules are not supported by sysbench-go"))
		L.Push(lua.LString("open"))
		return 3
	}))
	loaders, ok := pkg.RawGetString("loaders").(*lua.LTable)
	if !ok {
		return
	}
	env := s.env
	bundled := L.NewFunction(func(L *lua.LState) int {
		name := luajit.CheckStr(L, 1)
		p, err := env.bundledProto(name)
		if err != nil {
			luajit.LibError(L, err.Error())
		}
		if p == nil {
			L.Push(lua.LString("\n\tno bundled module '" + name + "'"))
			return 1
		}
		L.Push(L.NewFunctionFromProto(p))
		return 1
	})
	if s.bundled {
		// A bundled script's modules come from the bundle first.
		tableInsert(loaders, 2, bundled)
	} else {
		loaders.Append(bundled)
	}
	loaders.Append(L.NewFunction(searchCModule))
}

func tableInsert(t *lua.LTable, pos int, v lua.LValue) {
	n := t.Len()
	for i := n; i >= pos; i-- {
		t.RawSetInt(i+1, t.RawGetInt(i))
	}
	t.RawSetInt(pos, v)
}

// searchCModule is the C searcher: the files package.cpath names, of
// which one that exists is an error, since it cannot be loaded.
func searchCModule(L *lua.LState) int {
	name := luajit.CheckStr(L, 1)
	cpath, ok := L.GetField(L.GetGlobal("package"), "cpath").(lua.LString)
	if !ok {
		luajit.LibError(L, "'package.cpath' must be a string")
	}
	if cand, tried := luajit.FindOnPath(string(cpath), name); cand == "" {
		L.Push(lua.LString(tried))
	} else {
		luajit.LibError(L, "error loading module '"+name+"' from file '"+cand+"':\n\tC modules are not supported by sysbench-go")
	}
	return 1
}
