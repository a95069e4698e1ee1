package authoring

// referenceOnly are the names a script's state has under sysbench 1.0.20
// (its LuaJIT 2.1's libraries and its API) that sysbench-go's lacks. A
// script that uses one runs under sysbench and fails under sysbench-go,
// which is no defect of the script's: check never reports them.
// TestReferenceOnly holds the list to the installed sysbench.
var referenceOnly = map[string]bool{
	"debug.upvalueid":   true,
	"debug.upvaluejoin": true,
	"ffi.typeinfo":      true,
	"jit.security":      true,
	"table.move":        true,
	// sysbench's own Lua: the default event loop, the option parser.
	"thread_run":                            true,
	"sysbench.cmdline.read_cmdline_options": true,
}
