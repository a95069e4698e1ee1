package luaapi

import "testing"

// TestTableNewClear checks require "table.new" and "table.clear".
// The values come from luajit 2.1 (see luajit_test.go).
func TestTableNewClear(t *testing.T) {
	runLuaJITCases(t, []luajitCase{
		// require "table.new" and "table.clear", which then appear in table
		{"table.new", "nil"},
		{"table.clear", "nil"},
		{"type(require(\"table.new\"))", "\"function\""},
		{"(function() local new = require \"table.new\" return new == table.new, package.loaded[\"table.new\"] == new end)()", "true, true"},
		{"(function() local clear = require \"table.clear\" return clear == table.clear end)()", "true"},
		{"(function() local t = require(\"table.new\")(10, 5) return #t, next(t) end)()", "0, nil"},
		{"(function() local t = require(\"table.new\")(-1, 0) return #t end)()", "0"},
		{"(function() local t = require(\"table.new\")(1e10, 0) return #t end)()", "0"},
		{"(function() local t = require(\"table.new\")(\"3\", \"4\") t[1] = 1 return #t end)()", "1"},
		{"(function() local new = require \"table.new\" return new(0, -1) end)()", "error: table overflow"},
		{"(function() local new = require \"table.new\" return new(0, 2^27) end)()", "error: table overflow"},
		{"(function() local new = require \"table.new\" local v = new() return v end)()", "error: bad argument #1 to 'new' (number expected, got no value)"},
		{"(function() local new = require \"table.new\" local v = new(1) return v end)()", "error: bad argument #2 to 'new' (number expected, got no value)"},
		{"(function() local new = require \"table.new\" local v = new(\"x\", 1) return v end)()", "error: bad argument #1 to 'new' (number expected, got string)"},
		// clear keeps the table and its metatable
		{"(function() local clear = require \"table.clear\" local t = {1, 2, 3, x = 1, [100] = 5} local u = t clear(t) return t == u, #t, next(t) end)()", "true, 0, nil"},
		{"(function() local clear = require \"table.clear\" local mt = {} local t = setmetatable({1}, mt) clear(t) return getmetatable(t) == mt end)()", "true"},
		{"(function() local clear = require \"table.clear\" local t = {1, 2, 3} clear(t) t[#t + 1] = \"a\" t[#t + 1] = \"b\" return #t, t[1], t[2], t[3] end)()", "2, \"a\", \"b\", nil"},
		{"(function() local clear = require \"table.clear\" local t = {a = 1, b = 2} clear(t) t.c = 3 local n = 0 for k in pairs(t) do n = n + 1 end return n, t.a, t.c end)()", "1, nil, 3"},
		{"(function() local clear = require \"table.clear\" local t = {[true] = 1, [2.5] = 2} clear(t) return next(t) end)()", "nil"},
		{"(function() local clear = require \"table.clear\" clear() end)()", "error: bad argument #1 to 'clear' (table expected, got no value)"},
		{"(function() local clear = require \"table.clear\" clear(1) end)()", "error: bad argument #1 to 'clear' (table expected, got number)"},
	})
}

// TestTableClearReuse: a table cleared and refilled over and over holds
// only what it was given last.
func TestTableClearReuse(t *testing.T) {
	L := newLuaJITState(t)
	got := evalCase(t, L, `(function()
		local clear = require "table.clear"
		local t = {}
		for round = 1, 3 do
			for i = 1, 1000 do t[i] = i end
			t.k, t[true] = 1, 2
			clear(t)
		end
		t[#t + 1] = "a"
		return #t, t[1], t.k, next(t, 1)
	end)()`)
	if got != `1, "a", nil, nil` {
		t.Errorf("got %s", got)
	}
}
