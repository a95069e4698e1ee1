-- thread_init says it waits, then waits a minute on the server: a signal
-- then interrupts the run before it starts.
local con

function thread_init()
  con = sysbench.sql.driver():connect()
  print("thread_init waits")
  if sysbench.sql.driver():name() == "pgsql" then
    con:query("SELECT pg_sleep(60)")
  else
    con:query("SELECT SLEEP(60)")
  end
end

function event()
end
