-- Conflicting transactions on purpose, for retries_test.go: every event
-- of every thread updates the same rows.
--   --mode=deadlock   even threads take row 1 then row 2, odd threads row 2
--                     then row 1, pausing between: deadlocks (MySQL 1213,
--                     PostgreSQL 40P01)
--   --mode=serialize  PostgreSQL: a REPEATABLE READ read-modify-write of
--                     row 1, pausing between: serialization failures (40001)
-- The server aborts one transaction of each conflict; the driver reports
-- an ignorable error, and the event is retried or fails (--max-tries).
sysbench.cmdline.options = {
  mode = {"deadlock or serialize", "deadlock"},
  pause = {"seconds between the two statements", 0.05},
}

function prepare()
  local con = sysbench.sql.driver():connect()
  con:query("DROP TABLE IF EXISTS sbgo_conflict")
  con:query("CREATE TABLE sbgo_conflict (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)")
  con:query("INSERT INTO sbgo_conflict (id, v) VALUES (1, 0), (2, 0)")
end

function cleanup()
  sysbench.sql.driver():connect():query("DROP TABLE IF EXISTS sbgo_conflict")
end

local drv, con

function thread_init()
  drv = sysbench.sql.driver()
  con = drv:connect()
end

local function pause()
  if drv:name() == "pgsql" then
    con:query(string.format("SELECT pg_sleep(%f)", sysbench.opt.pause))
  else
    con:query(string.format("SELECT SLEEP(%f)", sysbench.opt.pause))
  end
end

function event()
  if sysbench.opt.mode == "serialize" then
    con:query("BEGIN ISOLATION LEVEL REPEATABLE READ")
    con:query("SELECT v FROM sbgo_conflict WHERE id = 1")
    pause()
    con:query("UPDATE sbgo_conflict SET v = v + 1 WHERE id = 1")
    con:query("COMMIT")
    return
  end
  local a, b = 1, 2
  if sysbench.tid % 2 == 1 then
    a, b = 2, 1
  end
  con:query("BEGIN")
  con:query("UPDATE sbgo_conflict SET v = v + 1 WHERE id = " .. a)
  pause()
  con:query("UPDATE sbgo_conflict SET v = v + 1 WHERE id = " .. b)
  con:query("COMMIT")
end

-- After a victim's error PostgreSQL keeps the transaction open, aborted:
-- end it before the next try (MySQL has rolled it back already).
sysbench.hooks.before_restart_event = function(err)
  con:query("ROLLBACK")
end
