package luaapi

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/drivers/dryrun"
	"github.com/sysbench-go/sysbench-go/luajit"
	"github.com/sysbench-go/sysbench-go/options"
)

// The API as a script sees it, for sysbench-go check: read from a Lua
// state made as a run makes it, so that check knows exactly the names
// the registration gives, whatever is added or renamed later. What a
// name's functions take is in signatures.go, which a test holds to this.

// Surface is what a script can reach before it runs.
type Surface struct {
	// Names are the names reachable from the globals, by the dotted path
	// a script writes ("print", "sysbench.rand.uniform", "DB_ERROR_NONE",
	// "ffi.C" is a table), and what each holds: "table", "function",
	// "number", "string", "boolean" or "userdata".
	Names map[string]string
	// Canonical maps every name of a function to its first name in a
	// breadth-first walk, under sysbench if it has one there (sb_rand is
	// sysbench.rand.default).
	Canonical map[string]string
	// Methods are the method and field names of the API's objects, by
	// their type (sql_connection, sql_statement, sql_param, ...).
	Methods map[string][]string
}

// APISurface is the surface of a state made as a run makes it, for a
// script named script.lua run with the command run.
var APISurface = sync.OnceValues(readSurface)

// surfaceObjects makes one object of each of the API's types, returned
// in the order of surfaceTypes.
const surfaceObjects = `
local drv = sysbench.sql.driver()
local con = drv:connect()
local stmt = con:prepare("SELECT 1")
local param = stmt:bind_create(sysbench.sql.type.INT)
local rs = con:query("SELECT 1")
return drv, con, stmt, param, rs, sysbench.histogram.new(10, 1, 10), sysbench.event_plan()
`

var surfaceTypes = []string{driverType, connType, stmtType, paramType, resultType, histogramType, planType}

// resultFields are the computed fields of a result (its __index is a
// function, so they cannot be listed from the state).
var resultFields = []string{"nrows", "nfields", "counter"}

func readSurface() (*Surface, error) {
	values := options.NewValues()
	env := &Env{Values: values, Out: io.Discard, Threads: 1, Command: "run", DriverName: "surface",
		DriverConfig: drivers.Config{Values: values, DryRun: true}, Ctx: context.Background()}
	env.Rand.Seed = 1
	env.UseDriver("surface", dryrun.New())
	defer env.closeDrivers()
	proto, err := compileChunk(strings.NewReader(surfaceObjects), "=surface")
	if err != nil {
		return nil, err
	}
	s := &Script{env: env, name: "script.lua", path: "script.lua", proto: proto}
	L, rt, err := s.newState(-1, nil)
	if err != nil {
		return nil, err
	}
	defer L.Close()
	defer rt.close()
	for _, name := range []string{"ffi", "bit", "jit"} {
		if t, ok := L.GetGlobal(name).(*lua.LTable); ok {
			luajit.FillLazy(L, t)
		}
	}
	sf := &Surface{Names: map[string]string{}, Canonical: map[string]string{}, Methods: map[string][]string{}}
	sf.walk(L.Get(lua.GlobalsIndex))
	// The objects: run the chunk again for its values.
	fn := L.NewFunctionFromProto(proto)
	if err := luajit.CallProtected(L, fn, len(surfaceTypes)); err != nil {
		return nil, fmt.Errorf("the API's objects: %s", luaError(err))
	}
	for i, typ := range surfaceTypes {
		v := L.Get(-len(surfaceTypes) + i)
		var fields *lua.LTable
		switch v := v.(type) {
		case *lua.LTable:
			fields = v
		case *lua.LUserData:
			if mt, ok := v.Metatable.(*lua.LTable); ok {
				fields, _ = mt.RawGetString("__index").(*lua.LTable)
			}
		}
		var names []string
		if fields != nil {
			fields.ForEach(func(k, _ lua.LValue) {
				if s, ok := k.(lua.LString); ok {
					names = append(names, string(s))
				}
			})
		}
		if typ == resultType {
			// fetch_row and free come through the computed __index.
			for _, m := range []string{"fetch_row", "free"} {
				if L.GetField(v, m) != lua.LNil {
					names = append(names, m)
				}
			}
			names = append(names, resultFields...)
		}
		slices.Sort(names)
		sf.Methods[typ] = names
	}
	return sf, nil
}

// walk records every name reachable from the globals, breadth first and
// keys in order, so that a value is named by its shortest path (string,
// not package.loaded.string).
func (sf *Surface) walk(globals lua.LValue) {
	type node struct {
		t    *lua.LTable
		path string
	}
	root := globals.(*lua.LTable)
	queued := map[*lua.LTable]bool{root: true}
	names := map[*lua.LFunction][]string{}
	var order []*lua.LFunction
	queue := []node{{root, ""}}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		var keys []string
		n.t.ForEach(func(k, _ lua.LValue) {
			if s, ok := k.(lua.LString); ok {
				keys = append(keys, string(s))
			}
		})
		slices.Sort(keys)
		for _, k := range keys {
			path := k
			if n.path != "" {
				path = n.path + "." + k
			}
			v := n.t.RawGetString(k)
			switch v := v.(type) {
			case *lua.LTable:
				if queued[v] {
					continue // another name of a table already named
				}
				queued[v] = true
				sf.Names[path] = "table"
				queue = append(queue, node{v, path})
			case *lua.LFunction:
				sf.Names[path] = "function"
				if names[v] == nil {
					order = append(order, v)
				}
				names[v] = append(names[v], path)
			default:
				sf.Names[path] = v.Type().String()
			}
		}
	}
	for _, fn := range order {
		all := names[fn]
		first := all[0]
		if i := slices.IndexFunc(all, func(p string) bool { return strings.HasPrefix(p, "sysbench.") }); i >= 0 {
			first = all[i]
		}
		for _, p := range all {
			sf.Canonical[p] = first
		}
	}
}

// RequirePath is package.path as a run sets it for a script in dir ("" for
// a bundled script), with getenv for LUA_PATH and HOME: where require
// looks for a Lua module before the bundled ones.
func RequirePath(getenv func(string) string, dir string) string { return luaPath(getenv, dir) }
