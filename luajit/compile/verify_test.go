package compile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/luajit/parse"
)

// verify checks what gopher-lua's VM takes on trust: registers within the
// function's frame, constants and nested functions that exist, jumps that
// land inside the code, a final RETURN, and debug tables of the code's
// length.
func verify(p *lua.FunctionProto) error {
	n := len(p.Code)
	if len(p.DbgSourcePositions) != n {
		return fmt.Errorf("%d lines for %d instructions", len(p.DbgSourcePositions), n)
	}
	if n == 0 || opOf(p.Code[n-1]) != lua.OP_RETURN {
		return fmt.Errorf("the code does not end with RETURN")
	}
	regs := int(p.NumUsedRegisters)
	reg := func(pc, r int) error {
		if r >= regs {
			return fmt.Errorf("pc %d: register %d of %d", pc, r, regs)
		}
		return nil
	}
	rk := func(pc, x int) error {
		if isK(x) {
			if indexK(x) >= len(p.Constants) {
				return fmt.Errorf("pc %d: constant %d of %d", pc, indexK(x), len(p.Constants))
			}
			return nil
		}
		return reg(pc, x)
	}
	pseudo := pseudoInstructions(p, n)
	for pc, i := range p.Code {
		if pseudo[pc] {
			continue
		}
		op, a, b, c := opOf(i), argA(i), argB(i), argC(i)
		var errs []error
		switch op {
		case lua.OP_MOVE:
			errs = append(errs, reg(pc, a), reg(pc, b))
		case lua.OP_LOADK, lua.OP_GETGLOBAL, lua.OP_SETGLOBAL:
			errs = append(errs, reg(pc, a))
			if argBx(i) >= len(p.Constants) {
				errs = append(errs, fmt.Errorf("pc %d: constant %d of %d", pc, argBx(i), len(p.Constants)))
			}
		case lua.OP_GETTABLE, lua.OP_GETTABLEKS, lua.OP_SELF:
			errs = append(errs, reg(pc, a), reg(pc, b), rk(pc, c))
		case lua.OP_SETTABLE, lua.OP_SETTABLEKS, lua.OP_ADD, lua.OP_SUB, lua.OP_MUL, lua.OP_DIV,
			lua.OP_MOD, lua.OP_POW:
			errs = append(errs, reg(pc, a), rk(pc, b), rk(pc, c))
		case lua.OP_EQ, lua.OP_LT, lua.OP_LE:
			errs = append(errs, rk(pc, b), rk(pc, c))
			if pc+1 >= n || opOf(p.Code[pc+1]) != lua.OP_JMP {
				errs = append(errs, fmt.Errorf("pc %d: a test not followed by a jump", pc))
			}
		case lua.OP_UNM, lua.OP_LEN, lua.OP_NOT:
			errs = append(errs, reg(pc, a), rk(pc, b))
		case lua.OP_JMP, lua.OP_FORLOOP, lua.OP_FORPREP:
			if d := pc + 1 + argSBx(i); d < 0 || d >= n {
				errs = append(errs, fmt.Errorf("pc %d: jump to %d of %d", pc, d, n))
			}
		case lua.OP_CLOSURE:
			if argBx(i) >= len(p.FunctionPrototypes) {
				errs = append(errs, fmt.Errorf("pc %d: function %d of %d", pc, argBx(i), len(p.FunctionPrototypes)))
			}
			errs = append(errs, reg(pc, a))
		case lua.OP_GETUPVAL, lua.OP_SETUPVAL:
			errs = append(errs, reg(pc, a))
			if b >= int(p.NumUpvalues) {
				errs = append(errs, fmt.Errorf("pc %d: upvalue %d of %d", pc, b, p.NumUpvalues))
			}
		}
		if err := errors.Join(errs...); err != nil {
			return err
		}
	}
	for i, child := range p.FunctionPrototypes {
		if err := verify(child); err != nil {
			return fmt.Errorf("function %d: %w", i, err)
		}
	}
	return nil
}

// FuzzCompile: every chunk the parser accepts compiles, or fails with one
// of LuaJIT's limits as an *Error, and its bytecode verifies.
func FuzzCompile(f *testing.F) {
	for _, p := range programs {
		f.Add(p.src)
	}
	if b, err := os.ReadFile("../../lua/oltp_common.lua"); err == nil {
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, src string) {
		chunk, err := parse.Parse(strings.NewReader(src), "x.lua")
		if err != nil {
			return
		}
		p, err := Compile(chunk, "x.lua")
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is not an *Error", err)
			}
			return
		}
		if err := verify(p); err != nil {
			t.Fatalf("%v\n%s", err, Listing(p))
		}
	})
}

// TestBundledScriptsVerify: the workloads shipped with the binary compile
// to code that verifies.
func TestBundledScriptsVerify(t *testing.T) {
	files, _ := filepath.Glob("../../lua/*.lua")
	if len(files) == 0 {
		t.Fatal("no bundled scripts")
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := verify(compileChunk(t, string(src))); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
