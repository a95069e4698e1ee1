package luajit

import "testing"

// TestDebugLibrary compares getinfo's fields and names (metamethods'
// too), getlocal,
// traceback's format, sethook/gethook (remembered, never called: the VM
// has no hooks), getupvalue and setupvalue with luajit 2.1's output. The
// script drops the "[C]" line LuaJIT's command line adds at the bottom of
// a traceback, which sysbench's has not either.
func TestDebugLibrary(t *testing.T) {
	checkScript(t, debugScript, debugWant)
}

const debugScript = `local function f(a, b) local c = 3
  local i = debug.getinfo(1)
  print(i.short_src, i.what, i.currentline, i.linedefined, i.lastlinedefined, i.nups, i.name, i.namewhat, type(i.func))
  print(debug.getlocal(1, 1), debug.getlocal(1, 2), debug.getlocal(1, 3), debug.getlocal(1, 10))
  local i2 = debug.getinfo(2, "Sl") print(i2.what, i2.currentline)
  print((debug.traceback("msg"):gsub("\n\t%[C%]: at 0x%x+", "")))
end
f(1, 2)
local t = {m = function(self) local i = debug.getinfo(1, "n") print(i.name, i.namewhat) end}
t:m()
t.m(t)
g = function() local i = debug.getinfo(1, "n") print(i.name, i.namewhat) end
g()
local p = debug.getinfo(print) print(p.what, p.source, p.short_src, p.currentline, p.linedefined, p.name)
print(debug.getinfo(100), pcall(debug.getinfo, "x"), pcall(debug.getinfo, 1, "q"), pcall(debug.getinfo, {}))
print(debug.gethook())
debug.sethook(function() end, "crl", 5) print(select(2, debug.gethook()))
debug.sethook() print(debug.gethook())
print(pcall(debug.sethook, 1, "c"))
print(type(debug.getregistry()))
print(debug.traceback(nil), debug.traceback(12, 5), debug.traceback({}) ~= nil)
local t = {} print(debug.traceback(t) == t)
local u = 1 local function h() return u end print(debug.getupvalue(h, 1), debug.setupvalue(h, 1, 5), u, debug.getupvalue(h, 2))
print(debug.getmetatable("").__index == string, debug.setmetatable(setmetatable({}, {}), nil))
print(pcall(debug.getlocal, 50, 1))
local function rec(n) if n == 0 then local s = debug.traceback() return s end return (rec(n - 1)) end
print((rec(5):gsub("\n\t%[C%]: at 0x%x+", "")))
local seen
local function mm() local i = debug.getinfo(1, "n") seen = (i.namewhat or "") .. " " .. (i.name or "?") end
local mt = setmetatable({}, {__index = mm, __add = mm, __concat = mm, __eq = mm, __lt = mm, __unm = mm, __newindex = mm, __call = mm})
local o, o2 = setmetatable({}, getmetatable(mt)), setmetatable({}, getmetatable(mt))
local _ = o.x print(seen) _ = o + o print(seen) _ = o .. o print(seen) _ = o == o2 print(seen)
_ = o < o2 print(seen) _ = -o print(seen) o.y = 1 print(seen) o() print(seen)
`

const debugWant = `script.lua	Lua	3	2	8	0	f	local	function
a	b	c	nil
main	9
msg
stack traceback:
	script.lua:7: in function 'f'
	script.lua:9: in main chunk
m	method
m	field
g	global
C	=[C]	[C]	-1	-1	nil
nil	false	false	false	bad argument #1 to '?' (function or level expected)
nil		0
crl	5
nil		0
false	bad argument #1 to '?' (function expected, got number)
table
nil	12
stack traceback:	true
true
u	u	5
true	true
false	bad argument #1 to '?' (level out of range)
stack traceback:
	script.lua:27: in function 'rec'
	script.lua:27: in function 'rec'
	script.lua:27: in function 'rec'
	script.lua:27: in function 'rec'
	script.lua:27: in function 'rec'
	script.lua:27: in function 'rec'
	script.lua:28: in main chunk
metamethod __index
metamethod __add
metamethod __concat
metamethod __eq
metamethod __lt
metamethod __unm
metamethod __newindex
local o
`
