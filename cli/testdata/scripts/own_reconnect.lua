-- A script with its own --reconnect, as sysbench 1.1's oltp_*.lua: the run
-- leaves the reconnects to it (cli/connections_test.go).
sysbench.cmdline.options = { reconnect = {"Reconnect after every N events", 0} }
function thread_init() con = sysbench.sql.driver():connect() n = 0 end
function event()
  con:query("SELECT 1")
  n = n + 1
  if sysbench.opt.reconnect > 0 and n % sysbench.opt.reconnect == 0 then con:reconnect() end
end
