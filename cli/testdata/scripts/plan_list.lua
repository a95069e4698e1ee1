-- An event plan given a list that holds something else than statements
-- refuses it with a Lua error.
function thread_init()
  local plan = sysbench.event_plan()
  print("plan", pcall(plan.execute, plan, {1}))
end
function event() end
