// Package compile compiles the syntax tree of luajit/parse into
// gopher-lua's bytecode (a *lua.FunctionProto that gopher-lua's VM runs
// unchanged), replacing gopher-lua's own compiler, whose register reuse
// miscompiles multiple assignment (x, y = y, x gives 2 2).
//
// The code generator follows Lua 5.1's design: expressions are described
// (expKind) and placed into registers only when needed, conditions become
// jump lists, and registers are a strict stack above the active locals
// (the rules are in scope.go). Where gopher-lua's VM does something
// differently from LuaJIT and the bytecode can choose, the compiler
// chooses LuaJIT's behaviour: concatenation calls an intrinsic that turns
// numbers into text as LuaJIT does, a numeric for takes numeric strings,
// constant folding never makes NaN or -0.
//
// Files: code.go encodes instructions and jump lists, scope.go owns
// functions, registers, locals, upvalues and blocks, expr.go expressions,
// stmt.go statements and gotos, names.go the names run-time error messages
// give variables, intrinsics.go the Go functions compiled code calls.
package compile

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"

	"github.com/sysbench-go/sysbench-go/luajit/parse"
)

// Error is a chunk LuaJIT would refuse to compile for one of its limits
// (too many registers, constants, too long a jump), in LuaJIT's words.
type Error struct {
	Chunk   string
	Line    int
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %s", e.Chunk, e.Line, e.Message) }

type compiler struct {
	name     string
	noInline bool // the chunk names setfenv or debug (inline.go)
	// inlinable holds the local function statements whose calls compile
	// to their body's call, found by block before it compiles them.
	inlinable map[*parse.LocalFunctionStmt]*ast.FuncCallExpr
}

// Compile compiles a chunk parsed by parse.Parse. source is the chunk
// name as Lua has it ("@file", "=stdin", or the source text itself),
// which becomes the protos' SourceName; messages show its ShortSource.
func Compile(chunk []ast.Stmt, source string) (p *lua.FunctionProto, err error) {
	c := &compiler{name: source, noInline: mentions(chunk, "setfenv", "debug"),
		inlinable: map[*parse.LocalFunctionStmt]*ast.FuncCallExpr{}}
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*Error)
			if !ok {
				panic(r)
			}
			p, err = nil, e
		}
	}()
	fs := newFuncState(c, nil, 0)
	fs.proto.IsVarArg = lua.VarArgIsVarArg
	fs.enterBlock(&blockScope{})
	fs.block(chunk, false)
	return fs.close(0), nil
}

func typeName(v any) string { return fmt.Sprintf("%T", v) }
