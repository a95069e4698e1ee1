package luajit

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	lua "github.com/yuin/gopher-lua"
)

// Chunks loaded at run time — loadstring, load, loadfile, dofile and
// require of a Lua file — compile through the same LuaJIT-dialect parser
// as the script itself, so a module written for LuaJIT loads, and a bad
// one fails with LuaJIT's message.

// registerLoaders replaces the base library's loaders and package.loaders'
// Lua file searcher with ones that use our compiler.
func registerLoaders(L *lua.LState) {
	L.SetGlobal("loadstring", L.NewFunction(func(L *lua.LState) int {
		src := L.CheckString(1)
		return pushChunk(L, strings.NewReader(src), L.OptString(2, src))
	}))
	L.SetGlobal("load", L.NewFunction(func(L *lua.LState) int {
		if s, ok := L.Get(1).(lua.LString); ok {
			return pushChunk(L, strings.NewReader(string(s)), L.OptString(2, string(s)))
		}
		fn := L.CheckFunction(1)
		name := L.OptString(2, "=(load)")
		var b strings.Builder
		for {
			L.Push(fn)
			L.Call(0, 1)
			piece := L.Get(-1)
			L.Pop(1)
			if piece == lua.LNil {
				break
			}
			s, ok := piece.(lua.LString)
			if !ok {
				if n, isNum := piece.(lua.LNumber); isNum {
					s = lua.LString(n.String())
				} else {
					L.Push(lua.LNil)
					L.Push(lua.LString("reader function must return a string"))
					return 2
				}
			}
			if s == "" {
				break
			}
			b.WriteString(string(s))
		}
		return pushChunk(L, strings.NewReader(b.String()), name)
	}))
	L.SetGlobal("loadfile", L.NewFunction(func(L *lua.LState) int {
		fn, err := LoadFile(L, L.CheckString(1))
		if err != nil {
			L.Push(lua.LNil)
			L.Push(lua.LString(err.Error()))
			return 2
		}
		L.Push(fn)
		return 1
	}))
	L.SetGlobal("dofile", L.NewFunction(func(L *lua.LState) int {
		fn, err := LoadFile(L, L.CheckString(1))
		if err != nil {
			L.Error(lua.LString(err.Error()), 0)
		}
		top := L.GetTop()
		L.Push(fn)
		L.Call(0, lua.MultRet)
		return L.GetTop() - top
	}))
	L.SetGlobal("require", L.NewFunction(require))
	pkg, ok := L.GetGlobal("package").(*lua.LTable)
	if !ok {
		return
	}
	if loaders, ok := pkg.RawGetString("loaders").(*lua.LTable); ok && loaders.Len() >= 2 {
		// [1] is package.preload's searcher, [2] the Lua file searcher.
		loaders.RawSetInt(2, L.NewFunction(func(L *lua.LState) int {
			return searchModule(L, L.CheckString(1))
		}))
	}
}

// loading marks a module whose loader is running, to catch loops.
var loading = &lua.LUserData{}

// require is Lua 5.1's: package.loaded, then each of package.loaders,
// with LuaJIT's messages (and none of gopher-lua's), raised as
// luaL_error raises them: with the position of the line that called
// require.
func require(L *lua.LState) int {
	name := L.CheckString(1)
	loaded, ok := L.GetField(L.Get(lua.RegistryIndex), "_LOADED").(*lua.LTable)
	if !ok {
		LibError(L, "'package.loaded' must be a table")
	}
	if v := loaded.RawGetString(name); lua.LVAsBool(v) {
		if v == loading {
			LibError(L, fmt.Sprintf("loop or previous error loading module '%s'", name))
		}
		L.Push(v)
		return 1
	}
	loaders, ok := L.GetField(L.GetGlobal("package"), "loaders").(*lua.LTable)
	if !ok {
		LibError(L, "'package.loaders' must be a table")
	}
	var tried strings.Builder
	var loader lua.LValue
	for i := 1; loader == nil; i++ {
		f := loaders.RawGetInt(i)
		if f == lua.LNil {
			LibError(L, fmt.Sprintf("module '%s' not found:%s", name, tried.String()))
		}
		L.Push(f)
		L.Push(lua.LString(name))
		L.Call(1, 1)
		switch v := L.Get(-1).(type) {
		case *lua.LFunction:
			loader = v
		case lua.LString:
			// gopher-lua's preload searcher leaves out the "\n\t".
			if !strings.HasPrefix(string(v), "\n") {
				tried.WriteString("\n\t")
			}
			tried.WriteString(string(v))
		}
		L.Pop(1)
	}
	loaded.RawSetString(name, loading)
	L.Push(loader)
	L.Push(lua.LString(name))
	L.Call(1, 1)
	ret := L.Get(-1)
	L.Pop(1)
	if ret != lua.LNil {
		loaded.RawSetString(name, ret)
	}
	if loaded.RawGetString(name) == loading {
		loaded.RawSetString(name, lua.LTrue)
	}
	L.Push(loaded.RawGetString(name))
	return 1
}

// pushChunk compiles a chunk and pushes the function, or nil and LuaJIT's
// message.
func pushChunk(L *lua.LState, src io.Reader, chunkname string) int {
	p, err := Compile(src, chunkname)
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	L.Push(L.NewFunctionFromProto(p))
	return 1
}

// LoadFile compiles a file once for the states that share State.Files
// (once per run), as loadfile does: an error is LuaJIT's message.
func LoadFile(L *lua.LState, path string) (*lua.LFunction, error) {
	files := Of(L).Files
	if p, ok := files.Load(path); ok {
		return L.NewFunctionFromProto(p.(*lua.FunctionProto)), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot open %s: %s", path, strerror(err))
	}
	defer f.Close()
	p, err := Compile(f, "@"+path)
	if err != nil {
		return nil, err
	}
	files.Store(path, p)
	return L.NewFunctionFromProto(p), nil
}

// searchModule is package.loaders' Lua file searcher: the first file that
// package.path's templates name, or the list of files tried.
func searchModule(L *lua.LState, name string) int {
	path, ok := L.GetField(L.GetGlobal("package"), "path").(lua.LString)
	if !ok {
		L.RaiseError("'package.path' must be a string")
	}
	cand, tried := FindOnPath(string(path), name)
	if cand == "" {
		L.Push(lua.LString(tried))
		return 1
	}
	fn, err := LoadFile(L, cand)
	if err != nil {
		L.Error(lua.LString(fmt.Sprintf("error loading module '%s' from file '%s':\n\t%s", name, cand, err.Error())), 0)
	}
	L.Push(fn)
	return 1
}

// strerror is the C library's text for a system error ("No such file or
// directory"), which LuaJIT's messages carry; Go's is in lower case.
func strerror(err error) string {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return err.Error()
	}
	s := errno.Error()
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// FindOnPath is the first regular file the templates of path (";"
// separated, "?" standing for name with its dots made "/") name, or ""
// and the "\n\tno file '...'" lines of the files tried, as Lua's
// searchers report them.
func FindOnPath(path, name string) (found, tried string) {
	file := strings.ReplaceAll(name, ".", "/")
	var b strings.Builder
	for _, tmpl := range strings.Split(path, ";") {
		if tmpl == "" {
			continue
		}
		cand := strings.ReplaceAll(tmpl, "?", file)
		if st, err := os.Stat(cand); err == nil && !st.IsDir() {
			return cand, ""
		}
		b.WriteString("\n\tno file '" + cand + "'")
	}
	return "", b.String()
}
