package luaapi

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/options"
)

// registerCmdline creates sysbench.cmdline.
func registerCmdline(L *lua.LState, sb *lua.LTable, s *Script) {
	t := L.CreateTable(0, 16)
	argv := L.CreateTable(len(s.env.Argv), 1)
	for i, a := range s.env.Argv {
		argv.RawSetInt(i, lua.LString(a))
	}
	t.RawSetString("argv", argv)
	if s.env.Command != "" {
		t.RawSetString("command", lua.LString(s.env.Command))
	}
	if !s.noPath {
		t.RawSetString("script_path", lua.LString(s.path))
	}
	for name, v := range map[string]int{"ARG_NULL": argNull, "ARG_BOOL": argBool, "ARG_INT": argInt,
		"ARG_SIZE": argSize, "ARG_DOUBLE": argDouble, "ARG_STRING": argString, "ARG_LIST": argList,
		"ARG_FILE": argFile, "ARG_MAX": argMax} {
		t.RawSetString(name, lua.LNumber(v))
	}
	t.RawSetString("PARALLEL_COMMAND", lua.LTrue)
	t.RawSetString("print_test_options", L.NewFunction(func(L *lua.LState) int {
		rt := getRuntime(L)
		// As the help command, the list ends with an empty line.
		_, _ = rt.env.Out.Write([]byte(options.FormatHelp(rt.script.options) + "\n"))
		return 0
	}))
	sb.RawSetString("cmdline", t)
}
