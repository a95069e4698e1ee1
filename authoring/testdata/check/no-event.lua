-- A script meant to run (it prepares a connection per thread) without
-- an event function.
local con

function thread_init()
  con = sysbench.sql.driver():connect()
end

function events()
  con:query("SELECT 1")
end
