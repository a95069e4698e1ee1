-- Each event holds its connection for --sleep-ms on the server (SLEEP on
-- MySQL and MariaDB, pg_sleep on PostgreSQL): with N threads the server
-- completes at most N * 1000 / sleep-ms events a second, the capacity
-- search's ground truth against real servers.
sysbench.cmdline.options = {
   ["sleep-ms"] = {"milliseconds each event sleeps on the server", 20},
}

function thread_init()
   drv = sysbench.sql.driver()
   con = drv:connect()
   local s = sysbench.opt.sleep_ms / 1000
   if drv:name() == "pgsql" then
      q = string.format("SELECT pg_sleep(%g)", s)
   else
      q = string.format("SELECT SLEEP(%g)", s)
   end
end

function event()
   con:query(q)
end

function thread_done()
   con:disconnect()
end
