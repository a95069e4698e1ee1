#!/usr/bin/env sysbench
-- select_random_ranges.lua: count(k) over --number_of_ranges random
-- "k BETWEEN x AND x+delta" ranges OR-ed together. Each thread draws from
-- its own slice of the key space. Works on sbtest1 only.

require("oltp_common")

sysbench.cmdline.options.number_of_ranges =
   {"How many BETWEEN ranges to OR together in each SELECT", 10}
sysbench.cmdline.options.delta =
   {"Width of each BETWEEN range", 5}

-- prepare comes from oltp_common (any --tables value is accepted there, as
-- in sysbench); cleanup insists on a single table.
local oltp_cleanup = cleanup

function cleanup()
   assert(sysbench.opt.tables == 1,
          "this benchmark does not support --tables > 1")
   oltp_cleanup()
end

local sel, binds, nranges, width, slice_lo, slice_len
local rand_default = sysbench.rand.default

local function prepare_select()
   local cond = string.rep("k BETWEEN ? AND ? OR ", nranges - 1) ..
      "k BETWEEN ? AND ?"
   sel = con:prepare("SELECT count(k) FROM sbtest1 WHERE " .. cond)

   binds = {}
   for i = 1, nranges * 2 do
      binds[i] = sel:bind_create(sysbench.sql.type.INT)
   end
   sel:bind_param(unpack(binds))
end

function thread_init()
   drv = sysbench.sql.driver()
   con = drv:connect()

   nranges = sysbench.opt.number_of_ranges
   width = sysbench.opt.delta
   prepare_select()

   local nthreads = sysbench.opt.threads
   slice_len = sysbench.opt.table_size / nthreads
   slice_lo = slice_len * (sysbench.tid % nthreads)
   rand_default = sysbench.rand.default
end

function thread_done()
   sel:close()
   con:disconnect()
end

function event()
   local lo = math.floor(slice_lo)
   local hi = math.floor(slice_lo + slice_len)
   for i = 1, nranges * 2, 2 do
      local v = rand_default(lo, hi)
      binds[i]:set(v)
      binds[i + 1]:set(v + width)
   end
   sel:execute()
end

-- a reconnect (see --mysql-ignore-errors) loses the prepared statement
function sysbench.hooks.before_restart_event(errdesc)
   local e = errdesc.sql_errno
   if e == 2006 or e == 2011 or e == 2013 or e == 2055 then
      sel:close()
      prepare_select()
   end
end
