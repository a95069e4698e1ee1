package luajit

import "testing"

// TestJIT checks the jit table for scripts that check or toggle the compiler (jit.status is ours: false).
// The values come from luajit 2.1 (see luajit_test.go).
func TestJIT(t *testing.T) {
	runLuaJITCases(t, []luajitCase{
		{"jit.version", "\"LuaJIT 2.1.0-beta3\""},
		{"jit.version_num", "20100"},
		{"jit.os", "\"Linux\""},
		{"jit.arch", "\"x64\""},
		{"require(\"jit\") == jit", "true"},
		{"require(\"jit.opt\") == jit.opt", "true"},
		{"type(jit.opt.start)", "\"function\""},
		{"jit.opt.start(\"hotloop=10\")", ""},
		{"jit.on()", ""},
		{"jit.off()", ""},
		{"jit.flush()", ""},
		{"jit.on(function() end, true)", ""},
		{"jit.off(true)", ""},
		{"jit.on(5)", "error: bad argument #1 to 'on' (function expected, got number)"},
		{"jit.off({})", "error: bad argument #1 to 'off' (function expected, got table)"},
	})
}
