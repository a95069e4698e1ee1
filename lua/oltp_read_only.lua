#!/usr/bin/env sysbench
-- oltp_read_only.lua: the read half of the OLTP transaction — point
-- selects and (optionally) the four kinds of range SELECT, inside
-- BEGIN/COMMIT unless --skip_trx is on. Tables come from oltp_common.

require("oltp_common")

function prepare_statements()
   prepare_point_selects()

   if not sysbench.opt.skip_trx then
      prepare_begin()
      prepare_commit()
   end

   if sysbench.opt.range_selects then
      prepare_simple_ranges()
      prepare_sum_ranges()
      prepare_order_ranges()
      prepare_distinct_ranges()
   end
end

local use_trx, use_ranges, steps
-- The helpers, taken from the globals at the first event (see
-- oltp_read_write.lua).
local begin_, commit_, points, simple, sum, order, distinct

function event()
   if use_trx == nil then
      use_trx = not sysbench.opt.skip_trx
      use_ranges = sysbench.opt.range_selects
      begin_, commit_, points = begin, commit, execute_point_selects
      simple, sum = execute_simple_ranges, execute_sum_ranges
      order, distinct = execute_order_ranges, execute_distinct_ranges
      steps = oltp_steps(true, false)
   end

   -- The same helpers run by Go from the next event on (oltp_common;
   -- made anew after the statements are).
   local plan = oltp_plan(steps)
   if plan then
      return plan:run()
   end

   if use_trx then
      begin_()
   end

   points()

   if use_ranges then
      simple()
      sum()
      order()
      distinct()
   end

   if use_trx then
      commit_()
   end
end
