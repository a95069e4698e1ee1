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

local steps = {"execute_point_selects"}

function event()
   -- The helper run by Go from the next event on (oltp_common; made anew
   -- after the statements are).
   local plan = oltp_plan(steps)
   if plan then
      return plan:run()
   end
   execute_point_selects()
end
