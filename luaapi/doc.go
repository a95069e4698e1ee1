// Package luaapi is sysbench's Lua API on the luajit package's Lua: the
// sysbench.* tables (sql, rand, opt, cmdline, histogram, hooks), the
// sql_* types, ffi.C's sysbench functions, package.path as sysbench sets
// it, the 0.5-era compatibility globals, event plans and
// --statement-stats, and the engine.Test that runs a script with one Lua
// state per worker goroutine (the script's lifecycle). The language and
// its standard library are the luajit package's; this one imports it.
package luaapi
