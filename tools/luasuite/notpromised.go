package main

import "strings"

// NotPromised is a part of LuaJIT's suite that tests what sysbench-go does
// not promise (docs/lua-api.md): LuaJIT's compiler and JIT internals, and
// FFI beyond C scalar types, arrays of them and the few sysbench C
// functions. docs/differences.md cites these entries.
type NotPromised struct {
	// Match is a directory ("lib/ffi"), a file ("lib/ffi/jit_struct.lua")
	// or one block ("lib/string/dump.lua --- strip").
	Match    string
	Category string // "jit" or "ffi"
	Reason   string
}

// notPromised is the one list of what is not promised, most specific
// entries first: a block takes the first entry that matches it.
var notPromised = []NotPromised{
	// LuaJIT's compiler: its bytecode.
	{"lib/string/dump.lua", "jit", "string.dump and loading its output: LuaJIT's bytecode format, which " +
		"sysbench-go neither writes nor reads (precompiled bytecode is refused)"},

	// FFI beyond C scalar types, arrays of them and sysbench's C functions.
	{"lib/ffi/bit64.lua --- tobit/band assorted C types", "ffi", "enum types declared with ffi.cdef"},
	{"lib/ffi/bit64.lua --- tobit/band negative unsigned enum", "ffi", "enum types declared with ffi.cdef"},
	{"lib/ffi/err.lua --- error in FFI metamethod: set correct PC.", "ffi",
		"a struct type with ffi.metatype and a C function redirected with asm(\"strchr\")"},
	{"lib/ffi/istype.lua --- 3", "ffi", "pointer types"},
	{"lib/ffi/istype.lua --- 4", "ffi", "typedefs of arrays and structs declared with ffi.cdef, struct pointers"},
	{"lib/ffi/jit_array.lua --- int array pointer arithmetic", "ffi", "pointer arithmetic on arrays"},
	{"lib/ffi/jit_array.lua --- double array pointer arithmetic", "ffi", "pointer arithmetic on arrays"},
	{"lib/ffi/jit_array.lua --- double array pointer comparisons", "ffi", "pointer arithmetic on arrays"},
	{"lib/ffi/jit_array.lua --- fixed index of minus one", "ffi", "pointer arithmetic on arrays"},
	{"lib/ffi/jit_complex.lua", "ffi", "complex numbers and structs holding them"},
	{"lib/ffi/jit_misc.lua --- errno", "ffi", "ffi.errno(n) setting errno (sysbench-go's ffi.errno() is always 0)"},
	{"lib/ffi/jit_misc.lua --- string", "ffi", "pointer arithmetic on arrays"},
	{"lib/ffi/jit_misc.lua --- fill", "ffi", "pointer arithmetic on arrays"},
	{"lib/ffi/jit_misc.lua --- copy array elements", "ffi", "pointer arithmetic on arrays"},
	{"lib/ffi/jit_misc.lua --- copy from string", "ffi", "pointer arithmetic on arrays"},
	{"lib/ffi/jit_misc.lua --- copy structures", "ffi", "struct types"},
	{"lib/ffi/jit_misc.lua --- init struct from first field, complex", "ffi", "struct types and complex numbers"},
	{"lib/ffi/jit_misc.lua --- int array as parameterised type", "ffi", "parameterised struct types (ffi.typeof with $)"},
	{"lib/ffi/jit_misc.lua --- double array as parameterised type", "ffi", "parameterised struct types (ffi.typeof with $)"},
	{"lib/ffi/jit_misc.lua --- typeof constructed typeof", "ffi", "struct types"},
	{"lib/ffi/jit_struct.lua", "ffi", "struct and union types"},
	{"lib/ffi/meta_tostring.lua", "ffi", "function-pointer and complex declarators, unions"},
	{"lib/ffi/redir.lua", "ffi", "C functions and variables declared with ffi.cdef (asm redirects to strlen, errno)"},
	{"lib/ffi/type_punning.lua", "ffi", "union types"},
	{"opt/sink/ffi.lua --- incrementing pointer", "ffi", "pointer arithmetic on arrays"},
	{"opt/sink/ffi.lua --- mutating complex", "ffi", "complex numbers"},
	{"opt/sink/ffi.lua --- mutating struct", "ffi", "struct types"},
	{"opt/sink/ffi.lua --- mutating struct 2", "ffi", "struct types"},
	{"opt/sink/ffi.lua --- escaping loop counter to float", "ffi", "struct types"},
	{"opt/sink/ffi.lua --- 64 bit crash bug", "ffi", "casting Lua strings to const char * pointers"},
	{"opt/sink/ffi_nosink.lua --- pointer to self", "ffi", "struct types holding pointers"},
	{"opt/sink/ffi_nosink.lua --- strchr", "ffi", "C library functions other than sysbench's (strchr)"},
}

// matches reports whether the entry covers the block name of file.
func (e NotPromised) matches(file, name string) bool {
	if f, block, ok := strings.Cut(e.Match, " --- "); ok {
		return f == file && block == name
	}
	return e.Match == file || strings.HasPrefix(file, e.Match+"/")
}

// notPromisedFor finds the entry covering a block.
func notPromisedFor(file, name string) (NotPromised, bool) {
	for _, e := range notPromised {
		if e.matches(file, name) {
			return e, true
		}
	}
	return NotPromised{}, false
}

// unusedNotPromised lists the entries that match no block of rs: stale
// after the suite changed.
func unusedNotPromised(rs []Result) []NotPromised {
	var out []NotPromised
	for _, e := range notPromised {
		used := false
		for _, r := range rs {
			if e.matches(r.File, r.Name) {
				used = true
				break
			}
		}
		if !used {
			out = append(out, e)
		}
	}
	return out
}
