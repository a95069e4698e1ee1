-- Exercises the non-SQL Lua API; every check raises on failure.
sysbench.cmdline.options = {
  count = {"how many", 10},
  name = {"a name", "abc"},
  flag = {"a flag", false},
  items = {"a list", {"a", "b"}},
  size = {"a size", "1K", sysbench.cmdline.ARG_SIZE},
}
sysbench.cmdline.commands = {
  hello = {function() print("hello from " .. sysbench.tid) end},
  par = {function() print("parallel " .. sysbench.tid) end, sysbench.cmdline.PARALLEL_COMMAND},
}
local function check(c, msg) if not c then error("check failed: " .. msg, 2) end end
function thread_init()
  local o = sysbench.opt
  check(type(o.count) == "number", "count is a number")
  check(type(o.name) == "string", "name is a string")
  check(type(o.flag) == "boolean", "flag is a boolean")
  check(type(o.items) == "table", "items is a table")
  check(o.size == 1024 or o.size == 2048, "size parsed")
  check(type(o.threads) == "number", "threads typed")
  check(sysbench.version == "1.0.20", "version")
  check(sysbench.version_string == "sysbench 1.0.20", "version_string")
  check(sysbench.error.RESTART_EVENT ~= nil, "error table")
  check(thread_id == sysbench.tid, "thread_id compat")
  local s = sysbench.rand.string("###-@@@")
  check(#s == 7 and s:match("^%d%d%d%-%l%l%l$"), "rand.string " .. s)
  local u = sysbench.rand.uniform(5, 9)
  check(u >= 5 and u <= 9, "uniform range")
  local d = sysbench.rand.default(1, 100)
  check(d >= 1 and d <= 100, "default range")
  local h = sysbench.histogram.new(10, 1, 100)
  h:update(5)
  local ffi = require("ffi")
  ffi.cdef[[int usleep(unsigned int);]]
  ffi.C.usleep(1)
  ffi.C.sb_counter_inc(sysbench.tid, ffi.C.SB_CNT_READ)
  local r = ffi.C.sb_rand_uniform(3, 4)
  check(r == 3 or r == 4, "ffi.C.sb_rand_uniform")
  check(sb_rnd() >= 0 and sb_rand_uniq(5, 4294967295) >= 5, "0.5-era rand globals")
  check(pcall(function() return ffi.C.nosuchfunc end) == false, "unknown ffi symbol fails")
end
function event()
end
