#!/usr/bin/env sysbench
-- oltp_read_write.lua: the classic sysbench OLTP transaction — point
-- selects, range SELECTs, an indexed UPDATE, a non-indexed UPDATE and a
-- DELETE+INSERT pair, inside BEGIN/COMMIT unless --skip_trx is on.

require("oltp_common")

function prepare_statements()
   if not sysbench.opt.skip_trx then
      prepare_begin()
      prepare_commit()
   end

   prepare_point_selects()

   if sysbench.opt.range_selects then
      prepare_simple_ranges()
      prepare_sum_ranges()
      prepare_order_ranges()
      prepare_distinct_ranges()
   end

   prepare_index_updates()
   prepare_non_index_updates()
   prepare_delete_inserts()
end

local use_trx, use_ranges, steps
-- The helpers, taken from the globals at the first event (after
-- thread_init, so a redefinition up to then counts): in gopher-lua every
-- global read is a hash lookup, ten per event here.
local begin_, commit_, points, simple, sum, order, distinct
local index_upd, non_index_upd, delete_ins

function event()
   if use_trx == nil then
      use_trx = not sysbench.opt.skip_trx
      use_ranges = sysbench.opt.range_selects
      begin_, commit_, points = begin, commit, execute_point_selects
      simple, sum = execute_simple_ranges, execute_sum_ranges
      order, distinct = execute_order_ranges, execute_distinct_ranges
      index_upd, non_index_upd = execute_index_updates, execute_non_index_updates
      delete_ins = execute_delete_inserts
      steps = oltp_steps(true, true)
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

   index_upd()
   non_index_upd()
   delete_ins()

   if use_trx then
      commit_()
   end
end
