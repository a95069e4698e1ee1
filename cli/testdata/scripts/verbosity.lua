-- Prints from every hook and logs an ALERT (a second disconnect) and a
-- repeated one, so each --verbosity level shows what it keeps.
function init() print("init") end
function thread_init()
  print("thread_init")
  local con = sysbench.sql.driver():connect()
  con:disconnect()
  con:disconnect()
  con:disconnect()
  con:disconnect()
end
function event() print("event") end
function thread_done() print("thread_done") end
function done() print("done") end
