package luajit

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

// TestTableLibrary checks insert, remove, concat, maxn, getn, foreach and
// foreachi against values recorded with luajit 2.1 (see luajit_test.go).
func TestTableLibrary(t *testing.T) {
	runLuaJITCases(t, []luajitCase{
		// insert and remove with numeric-string positions, LuaJIT's moves and errors
		{"(function() local t = {1, 2, 3} table.insert(t, \"2\", \"x\") return table.concat(t, \",\") end)()", "\"1,x,2,3\""},
		{"(function() local t = {1, 2, 3} table.insert(t, 10, \"x\") return t[10], t[4] end)()", "\"x\", nil"},
		{"(function() local t = {1, 2, 3} table.insert(t, -1, \"x\") return t[-1], t[0], t[1], t[2] end)()", "\"x\", nil, nil, 1"},
		{"(function() local t = {} table.insert(t, \"a\") table.insert(t, \"b\") return table.concat(t) end)()", "\"ab\""},
		{"table.insert({1})", "error: wrong number of arguments to 'insert'"},
		{"table.insert({1}, 1, 2, 3)", "error: wrong number of arguments to 'insert'"},
		{"table.insert({1}, \"x\", 2)", "error: bad argument #2 to 'insert' (number expected, got string)"},
		{"table.insert(nil, 1)", "error: bad argument #1 to 'insert' (table expected, got nil)"},
		{"(function() local t = {1, 2, 3} return table.remove(t, \"2\"), #t, t[2] end)()", "2, 2, 3"},
		{"(function() local t = {1, 2, 3} return table.remove(t), #t end)()", "3, 2"},
		{"(function() local q = {1, 2, 3, 4} local s = 0 for i = 5, 8 do q[#q + 1] = i s = s + table.remove(q, 1) end return table.concat(q, \",\"), #q, s, q[5] end)()", "\"5,6,7,8\", 4, 10, nil"},
		{"(function() local t = {\"a\", \"b\", \"c\", \"d\"} return table.remove(t, 2), table.concat(t), #t, t[4] end)()", "\"b\", \"acd\", 3, nil"},
		// the array part's moves in one copy: front inserts into a queue, slots nil after #t
		{"(function() local q = {} for i = 1, 39 do table.insert(q, i) while #q > 5 do table.remove(q, 1) end if i % 3 == 0 then table.insert(q, 1, -i) end end return table.concat(q, \",\"), #q, q[7] end)()", "\"-39,35,36,37,38,39\", 6, nil"},
		{"(function() local t = {1, 2, 3, 4} t[4] = nil table.insert(t, 2, \"x\") local a = table.concat(t, \",\") .. \"/\" .. #t table.remove(t, 1) return a, table.concat(t, \",\"), #t, t[4] end)()", "\"1,x,2,3/4\", \"x,2,3\", 3, nil"},
		{"select(\"#\", table.remove({1, 2, 3}, 5)), select(\"#\", table.remove({1, 2, 3}, 0)), select(\"#\", table.remove({}))", "0, 0, 0"},
		{"table.remove({1}, \"x\")", "error: bad argument #2 to 'remove' (number expected, got string)"},
		{"table.remove()", "error: bad argument #1 to 'remove' (table expected, got nil)"},
		{"(function() local log = {} local t = setmetatable({}, {__newindex = function(t, k, v) log[#log+1] = k rawset(t, k, v) end}) t[1], t[2] = 1, 2 rawset(t, 1, 1) return table.remove(t, 1) end)()", "1"},
		// concat
		{"table.concat({1, 2.5, \"x\", 1e15, 1/3}, \", \"), table.concat({1, 2, 3}, 0), table.concat({}, \"x\")", "\"1, 2.5, x, 1e+15, 0.33333333333333\", \"10203\", \"\""},
		{"table.concat({1, 2, 3}, \"\", 2), table.concat({1, 2, 3}, \"\", \"2\", \"3\"), table.concat({1, 2, 3}, \"-\", 3, 2)", "\"23\", \"23\", \"\""},
		{"table.concat({1, {}, 3})", "error: invalid value (table) at index 2 in table for 'concat'"},
		{"table.concat({1, 2}, \"\", 1, 3)", "error: invalid value (nil) at index 3 in table for 'concat'"},
		{"table.concat({1, true})", "error: invalid value (boolean) at index 2 in table for 'concat'"},
		{"table.concat({1}, {})", "error: bad argument #2 to 'concat' (string expected, got table)"},
		{"table.concat({[1] = \"a\", [2] = \"b\"}, \",\", nil, 2)", "\"a,b\""},
		// maxn, getn, foreach, foreachi
		{"table.maxn({1, 2, nil, 4}), table.maxn({[10] = 1, [2.5] = 1, x = 1}), table.maxn({}), table.maxn({[-5] = 1})", "4, 10, 0, 0"},
		{"table.getn({1, 2, 3})", "3"},
		{"table.getn()", "error: bad argument #1 to 'getn' (table expected, got nil)"},
		{"table.maxn()", "error: bad argument #1 to 'maxn' (table expected, got no value)"},
		{"table.foreachi({5, 6}, function(i, v) if v == 6 then return i * 10 end end)", "20"},
		{"table.foreach({5}, function(k, v) return k + v end)", "6"},
		{"table.foreachi({})", "error: bad argument #2 to 'foreachi' (function expected, got nil)"},
		{"table.foreach({}, 1)", "error: bad argument #2 to 'foreach' (function expected, got number)"},
		{"select(\"#\", table.foreachi({1}, function() end))", "0"},
		// sort's argument checks
		{"table.sort({3, 1, 2}, 1)", "error: bad argument #2 to 'sort' (function expected, got number)"},
		{"table.sort()", "error: bad argument #1 to 'sort' (table expected, got no value)"},
	})
}
