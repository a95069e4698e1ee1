-- sb_loader.lua: the parallel prepare (and cleanup helpers) shared by the shop_* and tpcb_*
-- workloads (sysbench-go).
--
-- Thread 0 creates a state table holding one row (id 1) with a
-- threads_done and a tables_created column, then the tables; the other
-- threads wait until the row lists every table. Each thread loads its
-- slice of every table with multi-row INSERTs, printing progress, then
-- counts itself done in the state table; the thread that brings the count
-- to --threads finishes the job (keys, indexes, statistics).
--
-- The state table stays: it is the marker that says which tables this
-- tool's prepare created. Their names are common (users, orders,
-- pgbench_accounts), so cleanup drops a table only when the marker lists
-- it, and refuses (naming it) one that exists otherwise, unless
-- --force-cleanup says to (docs/safety.md).
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


-- Closes the prepared statements in list (nil: none).
function loader.close_all(list)
   for _, st in ipairs(list or {}) do
      st:close()
   end
end

-- Whether table tbl (or, with column, that column of it) exists; nil
-- when the catalog gives no answer (a dry run).
local function exists(con, name, tbl, column)
   local q
   if name == "sqlite" then
      q = "SELECT COUNT(*) FROM sqlite_master " ..
         "WHERE type = 'table' AND name = '" .. tbl .. "'"
      if column then
         q = "SELECT COUNT(*) FROM pragma_table_info('" .. tbl ..
            "') WHERE name = '" .. column .. "'"
      end
   else
      local schema = name == "mysql" and "DATABASE()" or "current_schema()"
      q = "SELECT COUNT(*) FROM information_schema." ..
         (column and "columns" or "tables") .. " WHERE table_schema = " ..
         schema .. " AND table_name = '" .. tbl .. "'"
      if column then
         q = q .. " AND column_name = '" .. column .. "'"
      end
   end
   local n = con:query_row(q)
   if n == nil then
      return nil
   end
   return tonumber(n) > 0
end

function loader.table_exists(con, name, tbl)
   return exists(con, name, tbl) == true
end

local function refuse_existing(t)
   error("prepare refused: table '" .. t .. "' already exists: nothing " ..
            "created (cleanup drops the tables of an earlier prepare)", 0)
end

-- Thread 0 of prepare: the marker (state) table first, its row inserted
-- by the statement row with tables_created empty, then each table of
-- tables, added to tables_created in the transaction that creates it
-- (where the database's DDL is transactional: PostgreSQL, SQLite), so
-- that however far prepare gets, the marker lists what it made. A table
-- that exists already stops it before it creates anything.
function loader.create_tables(con, name, ddl, marker, row, tables)
   for _, t in ipairs({marker, unpack(tables)}) do
      if exists(con, name, t) then
         refuse_existing(t)
      end
   end
   print("Creating table '" .. marker .. "'...")
   con:query(ddl[marker])
   con:query(row)
   local made = {}
   for _, t in ipairs(tables) do
      print("Creating table '" .. t .. "'...")
      made[#made + 1] = t
      con:query("BEGIN")
      con:query(ddl[t])
      con:query("UPDATE " .. marker .. " SET tables_created = '" ..
                   table.concat(made, " ") .. "' WHERE id = 1")
      con:query("COMMIT")
   end
end

-- The tables a marker lists as created by prepare, as a set; nil without
-- a marker. legacy names an older marker without tables_created whose
-- presence says that prepare created every table of tables: the older
-- prepares created it after them.
local function marked(con, name, marker, tables, legacy)
   local listed
   if exists(con, name, marker) then
      if exists(con, name, marker, "tables_created") then
         listed = con:query_row("SELECT tables_created FROM " .. marker ..
                                   " WHERE id = 1") or ""
      else
         listed = table.concat(tables, " ")
      end
   elseif legacy and exists(con, name, legacy) then
      listed = table.concat(tables, " ")
   end
   if listed == nil then
      return nil
   end
   local set = {}
   for t in string.gmatch(listed, "%S+") do
      set[t] = true
   end
   return set
end

-- cleanup of a workload family whose tables are not sysbench's own:
-- drops the tables (in the order given) that its marker lists, then the
-- marker (and legacy, an older one). A table that exists and that no
-- marker lists was not made by this tool's prepare (an application's
-- users, a database made by pgbench -i): cleanup refuses, in one line
-- naming it, before it drops anything, unless --force-cleanup is on. In
-- a dry run the catalog gives no answer and every table is named as
-- dropped, which is how compare learns a script's tables.
function loader.cleanup(family, marker, tables, legacy)
   local drv = sysbench.sql.driver()
   local name = drv:name()
   local con = drv:connect()
   if not sysbench.opt.force_cleanup then
      local made = marked(con, name, marker, tables, legacy) or {}
      local foreign = {}
      for _, t in ipairs(tables) do
         if not made[t] and exists(con, name, t) then
            foreign[#foreign + 1] = "'" .. t .. "'"
         end
      end
      if #foreign > 0 then
         local what = #foreign == 1 and "table " .. foreign[1] .. " exists" or
            "tables " .. table.concat(foreign, ", ") .. " exist"
         local why = "no " .. marker .. " table says it was"
         if exists(con, name, marker) then
            why = marker .. " does not list it"
         end
         con:disconnect()
         error("cleanup refused: " .. what .. " but " .. why .. " created by " ..
                  "the " .. family .. " workloads' prepare: nothing dropped " ..
                  "(--force-cleanup=on drops " ..
                  (#foreign == 1 and "it" or "them") .. ")", 0)
      end
   end
   local drop = {}
   for _, t in ipairs(tables) do
      drop[#drop + 1] = t
   end
   drop[#drop + 1] = marker
   if legacy then
      drop[#drop + 1] = legacy
   end
   for _, t in ipairs(drop) do
      if t ~= legacy or exists(con, name, t) then
         print("Dropping table '" .. t .. "'...")
         con:query("DROP TABLE IF EXISTS " .. t)
      end
   end
   con:disconnect()
end

local function pause(con, name)
   if name == "mysql" then
      con:query("SELECT SLEEP(0.05)")
   elseif name == "pgsql" then
      con:query("SELECT pg_sleep(0.05)")
   end
   -- sqlite: the catalog query itself is the (short) wait
end

-- Threads other than 0 wait until thread 0 has created the tables: the
-- row of the state table lists them all; what names the tables in the
-- timeout error.
function loader.wait_for_schema(con, name, state, what, tables)
   local deadline = os.time() + 60
   local ready = "SELECT COUNT(*) FROM " .. state ..
      " WHERE id = 1 AND tables_created = '" .. table.concat(tables, " ") .. "'"
   while not (loader.table_exists(con, name, state) and
              tonumber(con:query_row(ready)) > 0) do
      -- Thread 0 creates the state table before the others: one of them
      -- that exists while it does not (looked at in that order) is not
      -- this prepare's, and thread 0 refuses to go on.
      for _, t in ipairs(tables) do
         if loader.table_exists(con, name, t) then
            if not loader.table_exists(con, name, state) then
               refuse_existing(t)
            end
            break
         end
      end
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
