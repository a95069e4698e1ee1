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

local use_trx, use_ranges

function event()
   if use_trx == nil then
      use_trx = not sysbench.opt.skip_trx
      use_ranges = sysbench.opt.range_selects
   end

   if use_trx then
      begin()
   end

   execute_point_selects()

   if use_ranges then
      execute_simple_ranges()
      execute_sum_ranges()
      execute_order_ranges()
      execute_distinct_ranges()
   end

   execute_index_updates()
   execute_non_index_updates()
   execute_delete_inserts()

   if use_trx then
      commit()
   end
end
