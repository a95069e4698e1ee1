-- Raises a RESTART_EVENT error every other call: each event succeeds on the
-- second try, and before_restart_event sees the descriptor.
local n = 0
restarts = 0
sysbench.hooks.before_restart_event = function(err)
  restarts = restarts + 1
  assert(err.errcode == sysbench.error.RESTART_EVENT)
end
function event()
  n = n + 1
  if n % 2 == 1 then
    error({errcode = sysbench.error.RESTART_EVENT, sql_errno = 1213})
  end
end
function thread_done()
  assert(restarts == n / 2, "restarts " .. restarts .. " n " .. n)
  print("restarts=" .. restarts)
end
