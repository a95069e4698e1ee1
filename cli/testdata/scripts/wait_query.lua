-- Every event runs a query that waits a minute on the server: a run of it
-- must still end soon after its --time.
local con

function thread_init()
  con = sysbench.sql.driver():connect()
end

function event()
  if sysbench.sql.driver():name() == "pgsql" then
    con:query("SELECT pg_sleep(60)")
  else
    con:query("SELECT SLEEP(60)")
  end
end
