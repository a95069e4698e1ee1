-- tpcb_common.lua: the shared half of the pgbench TPC-B-like workloads
-- (sysbench-go).
--
-- The tables are pgbench's own (pgbench_branches, pgbench_tellers,
-- pgbench_accounts, pgbench_history), so `run` works on a database made by
-- `pgbench -i -s N` as well as on one made by `prepare`. Per scale unit:
-- 1 branch, 10 tellers, 100,000 accounts. The tpcb_*.lua scripts load this
-- module with require("tpcb_common"), define prepare_statements() and
-- event(), and call the tpcb_* helpers below.
--
-- Drivers: mysql (MySQL, MariaDB), pgsql and sqlite.

local loader = require("sb_loader")

if sysbench.cmdline.command == nil then
   -- The words of the reference's OLTP scripts.
   error("Command is required. Supported commands: prepare, run, check, cleanup, help")
end

sysbench.cmdline.options = {
   scale =
      {"pgbench scale factor: 1 branch, 10 tellers and 100,000 accounts " ..
          "per unit (fractions allowed for small tests). 0 means 1 for " ..
          "prepare and, for run, the scale of the existing tables " ..
          "(SELECT count(*) FROM pgbench_branches)", 0,
       sysbench.cmdline.ARG_DOUBLE},
   pgbench_random =
      {"Draw aid, tid, bid and delta uniformly, as pgbench does; off " ..
          "draws aid with --rand-type instead", true},
   mysql_storage_engine =
      {"Storage engine for the tables when the database is MySQL", "innodb"},
   force_cleanup =
      {"cleanup: drop the pgbench tables even where no tpcb_meta table " ..
          "says this tool's prepare created them (by default cleanup " ..
          "refuses, as for a database made by pgbench -i)", false},
}

local ACCOUNTS_PER_BRANCH = 100000
local TELLERS_PER_BRANCH = 10

-- Table sizes for a scale factor.
function tpcb_sizes(scale)
   if type(scale) ~= "number" or scale <= 0 then
      error("--scale must be a positive number, got " .. tostring(scale))
   end
   local function rows(per)
      return math.max(1, math.floor(per * scale + 0.5))
   end
   return {branches = rows(1), tellers = rows(TELLERS_PER_BRANCH),
           accounts = rows(ACCOUNTS_PER_BRANCH)}
end

local TPCB_TABLES = {"pgbench_accounts", "pgbench_branches",
                     "pgbench_history", "pgbench_tellers"}
-- Create order, and drop order.
local TPCB_CREATE = {"pgbench_history", "pgbench_tellers", "pgbench_accounts",
                     "pgbench_branches"}

-- pgbench's definitions. PostgreSQL gets the primary keys after the load
-- (named <table>_pkey, as pgbench -i names them); MySQL gets them inline
-- (the clustered index) and SQLite as the rowid.
local function table_ddl(name)
   local key, ts, tail = " INTEGER NOT NULL", "TIMESTAMP", ""
   if name == "mysql" then
      key, ts = " INTEGER NOT NULL PRIMARY KEY", "DATETIME"
      tail = " /*! ENGINE = " .. sysbench.opt.mysql_storage_engine .. " */"
   elseif name == "sqlite" then
      key = " INTEGER NOT NULL PRIMARY KEY"
   end
   return {
      pgbench_branches = "CREATE TABLE pgbench_branches (bid" .. key ..
         ", bbalance INTEGER, filler CHAR(88))" .. tail,
      pgbench_tellers = "CREATE TABLE pgbench_tellers (tid" .. key ..
         ", bid INTEGER, tbalance INTEGER, filler CHAR(84))" .. tail,
      pgbench_accounts = "CREATE TABLE pgbench_accounts (aid" .. key ..
         ", bid INTEGER, abalance INTEGER, filler CHAR(84))" .. tail,
      pgbench_history = "CREATE TABLE pgbench_history (tid INTEGER, " ..
         "bid INTEGER, aid INTEGER, delta INTEGER, mtime " .. ts ..
         ", filler CHAR(22))" .. tail,
      -- coordinates the parallel prepare, and stays: tables_created is
      -- the marker cleanup reads
      tpcb_meta = "CREATE TABLE tpcb_meta (id INTEGER NOT NULL " ..
         "PRIMARY KEY, threads_done INTEGER NOT NULL, " ..
         "tables_created VARCHAR(255) NOT NULL)" .. tail,
   }
end

-- ---------------------------------------------------------------------------
-- Parallel prepare (sb_loader.lua)
-- ---------------------------------------------------------------------------

local function bid_of(id, per_branch, branches)
   return math.min(branches, math.floor((id - 1) / per_branch) + 1)
end

-- Thread 0 creates the tables and fills branches and tellers; every thread
-- loads its slice of the accounts with multi-row INSERTs; the last one to
-- finish adds the primary keys and gathers statistics, as pgbench -i does.
function tpcb_cmd_prepare()
   local drv = sysbench.sql.driver()
   local name = drv:name()
   loader.check_driver(name, "tpcb")
   local nthreads = sysbench.opt.threads
   local tid = sysbench.tid % nthreads
   local scale = sysbench.opt.scale
   if scale == 0 then
      scale = 1
   end
   local n = tpcb_sizes(scale)
   loader.expect({{"pgbench_branches", n.branches},
                  {"pgbench_tellers", n.tellers},
                  {"pgbench_accounts", n.accounts}})
   local con = drv:connect()

   if tid == 0 then
      loader.create_tables(con, name, table_ddl(name), "tpcb_meta",
                           "INSERT INTO tpcb_meta VALUES (1, 0, '')",
                           TPCB_CREATE)

      loader.announce(tid, n.branches, "pgbench_branches")
      loader.load_slice(con, tid, "pgbench_branches",
                        "INSERT INTO pgbench_branches (bid, bbalance, " ..
                           "filler) VALUES", 1, n.branches,
                        function(bid)
                           return "(" .. bid .. ",0,NULL)"
                        end)
      loader.announce(tid, n.tellers, "pgbench_tellers")
      loader.load_slice(con, tid, "pgbench_tellers",
                        "INSERT INTO pgbench_tellers (tid, bid, " ..
                           "tbalance, filler) VALUES", 1, n.tellers,
                        function(t)
                           return "(" .. t .. "," ..
                              bid_of(t, TELLERS_PER_BRANCH, n.branches) ..
                              ",0,NULL)"
                        end)
      loader.announce(tid, n.accounts, "pgbench_accounts")
   else
      loader.wait_for_schema(con, name, "tpcb_meta", "pgbench", TPCB_CREATE)
   end

   local first, last = loader.slice(n.accounts, tid, nthreads)
   loader.load_slice(con, tid, "pgbench_accounts",
                     "INSERT INTO pgbench_accounts (aid, bid, abalance, " ..
                        "filler) VALUES", first, last,
                     function(aid)
                        return "(" .. aid .. "," ..
                           bid_of(aid, ACCOUNTS_PER_BRANCH, n.branches) ..
                           ",0,'')"
                     end)

   if loader.count_thread_done(con, name, "tpcb_meta") == nthreads then
      if name == "pgsql" then
         for _, t in ipairs({{"pgbench_branches", "bid"},
                             {"pgbench_tellers", "tid"},
                             {"pgbench_accounts", "aid"}}) do
            print("Creating the primary key of '" .. t[1] .. "'...")
            con:query("ALTER TABLE " .. t[1] .. " ADD PRIMARY KEY (" ..
                         t[2] .. ")")
         end
         print("Vacuuming...")
         for _, t in ipairs(TPCB_TABLES) do
            con:query("VACUUM ANALYZE " .. t)
         end
      elseif name == "mysql" then
         con:query("ANALYZE TABLE pgbench_branches, pgbench_tellers, " ..
                      "pgbench_accounts, pgbench_history")
      else
         con:query("ANALYZE")
      end
   end
   con:disconnect()
end

-- Compares the balances with the history. Fails when the accounts do not
-- add up to the history's deltas; tellers and branches only match it after
-- tpcb_like runs (tpcb_simple_update leaves them alone).
function tpcb_cmd_check()
   local con = sysbench.sql.driver():connect()
   local function sum(q)
      return tonumber(con:query_row(q) or 0) or 0
   end
   local h = sum("SELECT COALESCE(SUM(delta), 0) FROM pgbench_history")
   local a = sum("SELECT COALESCE(SUM(abalance), 0) FROM pgbench_accounts")
   local t = sum("SELECT COALESCE(SUM(tbalance), 0) FROM pgbench_tellers")
   local b = sum("SELECT COALESCE(SUM(bbalance), 0) FROM pgbench_branches")
   print("sum(history.delta):   " .. h)
   print("sum(accounts.abalance): " .. a)
   print("sum(tellers.tbalance):  " .. t)
   print("sum(branches.bbalance): " .. b)
   if t ~= h or b ~= h then
      print("tellers and branches do not match the history (expected " ..
               "after tpcb_simple_update runs)")
   end
   con:disconnect()
   if a ~= h then
      error("the account balances do not add up to the history")
   end
end

sysbench.cmdline.commands = {
   prepare = {tpcb_cmd_prepare, sysbench.cmdline.PARALLEL_COMMAND},
   check = {tpcb_cmd_check},
}

-- Drops the tables tpcb_meta says prepare created, then tpcb_meta. A
-- database made by pgbench -i has none: its tables are refused unless
-- --force-cleanup (sb_loader.lua). tpcb_load_state is the marker of older
-- versions, which created it after the tables and dropped it once loaded.
function cleanup()
   loader.cleanup("tpcb", "tpcb_meta", TPCB_CREATE, "tpcb_load_state")
end

-- ---------------------------------------------------------------------------
-- Run
-- ---------------------------------------------------------------------------

local sqltype = sysbench.sql.type
local n_accounts, n_tellers, n_branches = 1, 1, 1
local s = {}
local draw_aid = sysbench.rand.uniform
local rand_uniform = sysbench.rand.uniform

-- --scale when given; otherwise the existing tables say: the scale is the
-- number of branches (as pgbench reads it), the id ranges their maxima.
local function load_sizes()
   local scale = sysbench.opt.scale
   if scale > 0 then
      local n = tpcb_sizes(scale)
      n_accounts, n_tellers, n_branches = n.accounts, n.tellers, n.branches
      return
   end
   if not loader.table_exists(con, drv:name(), "pgbench_branches") then
      error("no pgbench_branches table: run prepare (or pgbench -i) first, " ..
               "or pass --scale")
   end
   n_branches = tonumber(con:query_row("SELECT COUNT(*) FROM pgbench_branches"))
   if n_branches == nil or n_branches < 1 then
      error("pgbench_branches is empty: run prepare (or pgbench -i) first")
   end
   n_tellers = tonumber(con:query_row("SELECT MAX(tid) FROM pgbench_tellers"))
   n_accounts = tonumber(con:query_row("SELECT MAX(aid) FROM pgbench_accounts"))
   if n_tellers == nil or n_accounts == nil then
      error("pgbench_tellers or pgbench_accounts is empty")
   end
end

local function prep(sql, ...)
   local st = con:prepare(sql)
   local params = {}
   for i, t in ipairs({...}) do
      params[i] = st:bind_create(t)
   end
   if #params > 0 then
      st:bind_param(unpack(params))
   end
   s.all[#s.all + 1] = st
   return st, params
end

function tpcb_prepare_select()
   s.select, s.select_p = prep(
      "SELECT abalance FROM pgbench_accounts WHERE aid = ?", sqltype.INT)
end

-- The statements of pgbench's built-in scripts. with_tellers adds the
-- teller and branch updates of the full TPC-B-like transaction.
function tpcb_prepare_update(with_tellers)
   local is_sqlite = drv:name() == "sqlite"
   s.begin = prep(is_sqlite and "BEGIN IMMEDIATE" or "BEGIN")
   s.commit = prep("COMMIT")
   s.account, s.account_p = prep(
      "UPDATE pgbench_accounts SET abalance = abalance + ? WHERE aid = ?",
      sqltype.INT, sqltype.INT)
   tpcb_prepare_select()
   if with_tellers then
      s.teller, s.teller_p = prep(
         "UPDATE pgbench_tellers SET tbalance = tbalance + ? WHERE tid = ?",
         sqltype.INT, sqltype.INT)
      s.branch, s.branch_p = prep(
         "UPDATE pgbench_branches SET bbalance = bbalance + ? WHERE bid = ?",
         sqltype.INT, sqltype.INT)
   end
   s.history, s.history_p = prep(
      "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) " ..
         "VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)",
      sqltype.INT, sqltype.INT, sqltype.INT, sqltype.INT)
end

function thread_init()
   drv = sysbench.sql.driver()
   loader.check_driver(drv:name(), "tpcb")
   con = drv:connect()
   load_sizes()
   if sysbench.opt.pgbench_random then
      draw_aid = sysbench.rand.uniform
   else
      draw_aid = sysbench.rand.default
   end
   s = {all = {}}
   -- supplied by the script that required this module
   prepare_statements()
end

function thread_done()
   loader.close_all(s.all)
   con:disconnect()
end

-- pgbench -S
function tpcb_select_only()
   s.select_p[1]:set(draw_aid(1, n_accounts))
   s.select:execute()
end

-- pgbench's tpcb-like (default) script, or with with_tellers false its
-- simple-update (-N) script:
--   BEGIN;
--   UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
--   SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
--   UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
--   UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
--   INSERT INTO pgbench_history (tid, bid, aid, delta, mtime)
--     VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
--   END;
function tpcb_update(with_tellers)
   local aid = draw_aid(1, n_accounts)
   local bid = rand_uniform(1, n_branches)
   local tid = rand_uniform(1, n_tellers)
   -- sysbench.rand takes unsigned bounds: shift [0, 10000]
   local delta = rand_uniform(0, 10000) - 5000

   s.begin:execute()
   s.account_p[1]:set(delta)
   s.account_p[2]:set(aid)
   s.account:execute()
   s.select_p[1]:set(aid)
   s.select:execute()
   if with_tellers then
      s.teller_p[1]:set(delta)
      s.teller_p[2]:set(tid)
      s.teller:execute()
      s.branch_p[1]:set(delta)
      s.branch_p[2]:set(bid)
      s.branch:execute()
   end
   local h = s.history_p
   h[1]:set(tid)
   h[2]:set(bid)
   h[3]:set(aid)
   h[4]:set(delta)
   s.history:execute()
   s.commit:execute()
end

-- ---------------------------------------------------------------------------
-- Errors
-- ---------------------------------------------------------------------------

loader.restart_hook(function()
   loader.close_all(s.all)
   s = {all = {}}
   prepare_statements()
end, function() return con end)
