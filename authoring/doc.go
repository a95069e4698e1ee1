// Package authoring owns what helps a person write a workload before a
// server is touched: the commented templates `sysbench-go new` writes
// (templates/), and the static checks of `sysbench-go check`, which read
// a script with our own LuaJIT-dialect parser and know sysbench's API
// from a Lua state made as a run makes it (luaapi.APISurface) and from
// the signatures registered beside it (luaapi.Signatures).
//
// check reports what it can prove from the source: a syntax error,
// a global read and never defined, a call of the API with the wrong
// number or kind of arguments or of a name the API does not have, an
// option read and not declared or declared and never read, a misspelt
// hook, a missing event function, a statement bound with a number of
// parameters other than its placeholders. Where a script leaves the
// answer to run time (a module it loads that check cannot find, options
// declared in a loop, tables indexed by computed names) it says nothing:
// a finding must be a real defect.
package authoring
