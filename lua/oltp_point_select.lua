#!/usr/bin/env sysbench
-- oltp_point_select.lua: one primary-key SELECT per event, no explicit
-- transaction.

require("oltp_common")

function prepare_statements()
   -- a single lookup per event here, whatever --point_selects says (its
   -- default of 10 is meant for the transactional scripts)
   sysbench.opt.point_selects = 1

   prepare_point_selects()
end

function event()
   execute_point_selects()
end
