-- sb_loader.lua: the parallel prepare (and cleanup helpers) shared by the shop_* and tpcb_*
-- workloads (sysbench-go).
--
-- Thread 0 creates the tables and a state table holding one row (id 1)
-- with a threads_done column; the other threads wait for that row. Each
-- thread loads its slice of every table with multi-row INSERTs, printing
-- progress, then counts itself done in the state table; the thread that
-- brings the count to --threads finishes the job (keys, indexes,
-- statistics).
--
-- Used as `local loader = require("sb_loader")`; it defines no globals.
--
-- Drivers: mysql (MySQL, MariaDB), pgsql and sqlite.

local loader = {}

-- Fails unless the workload family (in the message) runs on driver name.
function loader.check_driver(name, family)
   if name ~= "mysql" and name ~= "pgsql" and name ~= "sqlite" then
      error("the " .. family .. " workloads do not support the '" .. name ..
               "' driver")
   end
end

-- Drops the tables, printing each as the reference's cleanup does.
function loader.drop_tables(tables)
   local con = sysbench.sql.driver():connect()
   for _, t in ipairs(tables) do
      print("Dropping table '" .. t .. "'...")
      con:query("DROP TABLE IF EXISTS " .. t)
   end
   con:disconnect()
end

-- Closes the prepared statements in list (nil: none).
function loader.close_all(list)
   for _, st in ipairs(list or {}) do
      st:close()
   end
end

function loader.table_exists(con, name, tbl)
   local q
   if name == "mysql" then
      q = "SELECT COUNT(*) FROM information_schema.tables " ..
         "WHERE table_schema = DATABASE() AND table_name = '" .. tbl .. "'"
   elseif name == "pgsql" then
      q = "SELECT COUNT(*) FROM information_schema.tables " ..
         "WHERE table_schema = current_schema() AND table_name = '" .. tbl .. "'"
   else
      q = "SELECT COUNT(*) FROM sqlite_master " ..
         "WHERE type = 'table' AND name = '" .. tbl .. "'"
   end
   return tonumber(con:query_row(q)) > 0
end

local function pause(con, name)
   if name == "mysql" then
      con:query("SELECT SLEEP(0.05)")
   elseif name == "pgsql" then
      con:query("SELECT pg_sleep(0.05)")
   end
   -- sqlite: the catalog query itself is the (short) wait
end

-- Threads other than 0 wait until thread 0 has created the tables and the
-- row of the state table; what names the tables in the timeout error.
function loader.wait_for_schema(con, name, state, what)
   local deadline = os.time() + 60
   while not (loader.table_exists(con, name, state) and
              tonumber(con:query_row("SELECT COUNT(*) FROM " .. state)) > 0) do
      if os.time() > deadline then
         error("timed out waiting for thread 0 to create the " .. what ..
                  " tables")
      end
      pause(con, name)
   end
end

-- Bumps threads_done in the state table and returns the new count. The
-- row lock makes the counts distinct.
function loader.count_thread_done(con, name, state)
   con:query(name == "sqlite" and "BEGIN IMMEDIATE" or "BEGIN")
   con:query("UPDATE " .. state .. " SET threads_done = threads_done + 1 " ..
                "WHERE id = 1")
   local n = tonumber(con:query_row(
                         "SELECT threads_done FROM " .. state .. " WHERE id = 1"))
   con:query("COMMIT")
   return n
end

-- [first, last] of an n-row range split over nthreads.
function loader.slice(n, tid, nthreads)
   return math.floor(tid * n / nthreads) + 1,
      math.floor((tid + 1) * n / nthreads)
end

-- Says how many rows each table gets in all, every thread together, for
-- the progress sysbench-go draws on a terminal: plan is a list of
-- {table, rows}. Every thread may say it (the numbers replace).
function loader.expect(plan)
   for _, p in ipairs(plan) do
      sysbench.progress.expect(p[1], p[2])
   end
end

-- Thread 0 says how many rows a table gets.
function loader.announce(tid, rows, tbl)
   if tid == 0 then
      print(string.format("Inserting %d rows into '%s'", rows, tbl))
   end
end

-- Progress for one thread's slice of a table: add(n) counts n rows loaded
-- and prints a line at least 5 s after the last one.
local Progress = {}
Progress.__index = Progress

function loader.progress(tid, tbl, total)
   local now = os.time()
   return setmetatable({tid = tid, tbl = tbl, total = total, done = 0,
                        tick = 0, start = now, last = now}, Progress)
end

function Progress:add(n)
   self.done = self.done + n
   self.tick = self.tick + n
   if self.tick < 2000 then
      return
   end
   self.tick = 0
   local now = os.time()
   if now - self.last >= 5 then
      self.last = now
      print(string.format("Thread %d: %d of %d rows loaded into '%s' " ..
                             "(%d rows/s)", self.tid, self.done, self.total,
                          self.tbl,
                          math.floor(self.done / math.max(1, now - self.start))))
   end
end

-- Loads rows first..last of tbl in one multi-row INSERT: insert is the
-- statement up to VALUES, row(id) the "(...)" of one row.
function loader.load_slice(con, tid, tbl, insert, first, last, row)
   if last < first then
      return
   end
   local p = loader.progress(tid, tbl, last - first + 1)
   con:bulk_insert_init(insert)
   for id = first, last do
      con:bulk_insert_next(row(id))
      p:add(1)
   end
   con:bulk_insert_done()
end

-- MySQL client errors for a lost connection: listed in
-- --mysql-ignore-errors, the driver reconnects and the event restarts.
-- (Not a table keyed by the numbers: gopher-lua would give it an array of
-- 2055 slots in every thread's Lua state.)
local function lost_connection(errno)
   return errno == 2006 or errno == 2011 or errno == 2013 or errno == 2055
end

-- Installs sysbench.hooks.before_restart_event for a workload whose events
-- run transactions: after a reconnect the server has forgotten the
-- prepared statements, so reprepare() makes them again; any other
-- ignorable error (deadlock, MySQL lock wait timeout, busy SQLite file)
-- rolls back what the failed event left open, so the retry cannot commit
-- half a transaction. get_con returns the thread's connection.
function loader.restart_hook(reprepare, get_con)
   sysbench.hooks.before_restart_event = function(errdesc)
      if lost_connection(errdesc.sql_errno) then
         reprepare()
         return
      end
      local con = get_con()
      pcall(con.query, con, "ROLLBACK")
   end
end

return loader
