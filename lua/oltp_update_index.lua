#!/usr/bin/env sysbench
-- oltp_update_index.lua: UPDATE of the indexed column k by primary key,
-- --index_updates statements per event, autocommit.

require("oltp_common")

function prepare_statements()
   prepare_index_updates()
end

local steps = {"execute_index_updates"}

function event()
   -- The helper run by Go from the next event on (oltp_common; made anew
   -- after the statements are).
   local plan = oltp_plan(steps)
   if plan then
      return plan:run()
   end
   execute_index_updates()
end
