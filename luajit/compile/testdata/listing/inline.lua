-- get_id's calls compile to its body's call (no GETUPVAL, no CALL of
-- the wrapper); count's and pick's do not: count is reassigned, pick
-- takes a parameter.
local function get_id() return sysbench.rand.default(1, sysbench.opt.table_size) end
local function count() return n() end
local function pick(a) return f(a) end
count = nil
function event()
  local id = get_id()
  stmt:execute(get_id())
  return pick(1), count()
end
