-- before_restart_event itself raising RESTART_EVENT: the hook is called
-- again until it succeeds, then the event is retried.
local n = 0
sysbench.hooks.before_restart_event = function(e)
  n = n + 1
  if n % 3 ~= 0 then error({errcode = sysbench.error.RESTART_EVENT}) end
end
local k = 0
function event()
  k = k + 1
  if k % 2 == 1 then error({errcode = sysbench.error.RESTART_EVENT}) end
end
function thread_done() print("hook calls " .. n .. " events tries " .. k) end
