-- The prelude: every block's chunk starts with it.
local helper = require "common.helper"
local counter = 0
local function add(a, b) return a + b end

do --- passes
  assert(add(1, 2) == 3)
  assert(helper.twice(21) == 42)
end

do --- fails on an assertion
  assert(add(1, 2) == 4, "add is wrong")
end

do --- has a prelude of its own 1
  counter = counter + 1
  assert(counter == 1)
end

do --- has a prelude of its own 2
  counter = counter + 1
  assert(counter == 1)
end

do --- returns early
  if counter == 0 then return end
  error("not reached")
end

do --- only from LuaJIT 2.1 on +luajit>=2.1
  assert(true)
end

do --- only under Lua 5.2 +lua>=5.2
  error("deselected: never runs")
end

do --- never under LuaJIT -luajit
  error("deselected: never runs")
end
