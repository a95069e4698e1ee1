// Package luajit is the Lua language sysbench-go runs: LuaJIT 2.1's
// dialect on gopher-lua 1.1.2's VM. A host calls NewState for a Lua state
// with the standard libraries, adds its own globals, then OpenLuaJIT.
//
// What it promises: a script written for the LuaJIT sysbench 1.0.20 runs
// on (2.1.0-beta3) reads, runs and fails as there. LuaJIT's own test
// suite is the yardstick (make luasuite; docs/compatibility.md lists the
// blocks it passes and those not promised).
//
//   - parse reads LuaJIT 2.1's syntax (\x, \z and \u{} escapes, 0b and
//     LL/ULL literals) into gopher-lua's syntax tree, with LuaJIT's
//     syntax error messages;
//   - compile turns that tree into gopher-lua's bytecode (with the
//     intrinsics and error positions LuaJIT's messages need);
//   - number owns numbers as text and text as numbers (%.14g, %g, %a,
//     tonumber's rules);
//   - vm is the one place that reaches into gopher-lua's unexported
//     fields, each checked when the program starts;
//   - this package is the standard library as LuaJIT has it, one file per
//     library as gopher-lua keeps them (base.go, string.go, table.go,
//     math.go, io.go, os.go, debug.go, coroutine.go, load.go, pcall.go),
//     LuaJIT's extensions (bit.go, jit.go, ffi.go with ctype.go and
//     cdata.go for 64-bit integers), patterns (pattern.go), string.format
//     (format.go) and os.date (date.go).
//
// What gopher-lua's VM decides, and stays as it is: tables, strings,
// closures and the garbage collector are Go's (collectgarbage("count")
// reports the Go heap); numbers are float64 only, so 64-bit integers are
// cdata; the call stack ends with "stack overflow" some 16,000 calls
// deep; coroutines run on goroutines of their own; there is no JIT,
// string.dump and precompiled bytecode are refused.
//
// The host's seams, and nothing more: State carries where print writes
// (Out), the compiled files a run's states share (Files), the host's
// functions in ffi.C (FFIC) and the host's own value (Host); CallProtected
// and Where make calls and errors as LuaJIT does; Compile compiles a
// chunk; CdataInt64, CdataNumber and PushUint64 read and make 64-bit
// cdata; FFIObject marks a host's userdata as cdata; CheckStr, LibError,
// SetLoaded, FillLazy, LoadFile and FindOnPath are the library helpers a
// host's own functions and loaders share. This package imports nothing
// of sysbench's API (luaapi), which builds on it (TestImportDirection).
package luajit
