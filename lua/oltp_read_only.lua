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

   if use_trx then
      commit()
   end
end
