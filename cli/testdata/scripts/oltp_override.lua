-- oltp_read_write's event with one helper replaced by the script: the
-- replacement runs, not the one-call path that stands for the helpers.
require("oltp_read_write")

local own_calls = 0
local module_points = execute_point_selects
function execute_point_selects()
   own_calls = own_calls + 1
   module_points()
end

local module_done = thread_done
function thread_done()
   print("replaced helper calls: " .. own_calls)
   module_done()
end
