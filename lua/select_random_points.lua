#!/usr/bin/env sysbench
-- select_random_points.lua: SELECT rows whose k matches any of
-- --random_points random values (an IN() list). Each thread draws its values
-- from its own slice of the key space so that threads do not overlap.
-- Works on sbtest1 only.

require("oltp_common")

sysbench.cmdline.options.random_points =
   {"How many random values to put in the IN() list of each SELECT", 10}

-- prepare comes from oltp_common (any --tables value is accepted there, as
-- in sysbench); cleanup insists on a single table.
local oltp_cleanup = cleanup

function cleanup()
   assert(sysbench.opt.tables == 1,
          "this benchmark does not support --tables > 1")
   oltp_cleanup()
end

local sel, binds, npoints, slice_lo, slice_len
local rand_default = sysbench.rand.default

local function prepare_select()
   local marks = string.rep("?, ", npoints - 1) .. "?"
   sel = con:prepare("SELECT id, k, c, pad FROM sbtest1 WHERE k IN (" ..
                        marks .. ")")

   binds = {}
   for i = 1, npoints do
      binds[i] = sel:bind_create(sysbench.sql.type.INT)
   end
   sel:bind_param(unpack(binds))
end

function thread_init()
   drv = sysbench.sql.driver()
   con = drv:connect()

   npoints = sysbench.opt.random_points
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
   for i = 1, npoints do
      binds[i]:set(rand_default(lo, hi))
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
