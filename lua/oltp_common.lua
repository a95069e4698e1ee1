-- oltp_common.lua: the shared half of the OLTP workloads (sysbench-go).
--
-- The oltp_*.lua and select_random_*.lua scripts load this module with
-- require("oltp_common"). It declares the options, the sbtest tables, the
-- prepare / prewarm / cleanup commands and the statement helpers. The global
-- names (create_table, prepare_for_each_table, execute_point_selects, stmt,
-- param, con, drv, ...) are the ones sysbench 1.0 scripts rely on, so
-- community scripts built on top of this module keep working.
--
-- Drivers: mysql, pgsql and sqlite (the embedded engine of sysbench-go).

function init()
   assert(event ~= nil,
          "oltp_common is a library for the OLTP scripts; run one of them " ..
             "(oltp_read_write, oltp_point_select, ...) instead")
end

if sysbench.cmdline.command == nil then
   error("Command is required. Supported commands: prepare, prewarm, run, " ..
            "cleanup, help")
end

sysbench.cmdline.options = {
   table_size =
      {"Number of rows in each table", 10000},
   range_size =
      {"Number of rows spanned by each range SELECT", 100},
   tables =
      {"Number of tables to use", 1},
   point_selects =
      {"Point SELECT queries to run in each transaction", 10},
   simple_ranges =
      {"Plain range SELECT queries to run in each transaction", 1},
   sum_ranges =
      {"Range SELECT SUM() queries to run in each transaction", 1},
   order_ranges =
      {"Range SELECT ... ORDER BY queries to run in each transaction", 1},
   distinct_ranges =
      {"Range SELECT DISTINCT queries to run in each transaction", 1},
   index_updates =
      {"UPDATE queries on the indexed column in each transaction", 1},
   non_index_updates =
      {"UPDATE queries on a non-indexed column in each transaction", 1},
   delete_inserts =
      {"DELETE-then-INSERT pairs to run in each transaction", 1},
   range_selects =
      {"Switch all range SELECT queries on or off", true},
   auto_inc =
      {"Have the database generate primary key values (AUTO_INCREMENT " ..
          "on MySQL, the matching feature on other databases); when off, " ..
          "the client generates the IDs", true},
   skip_trx =
      {"Send every query in autocommit mode rather than wrapping each " ..
          "event in an explicit transaction", false},
   secondary =
      {"Index the id column with a secondary index instead of the " ..
          "PRIMARY KEY", false},
   create_secondary =
      {"Build a secondary index (on column k) as well as the PRIMARY KEY",
       true},
   mysql_storage_engine =
      {"Storage engine for the tables when the database is MySQL", "innodb"},
   pgsql_variant =
      {"PostgreSQL flavour to target with the pgsql driver. Only " ..
          "'redshift' is recognised; it turns create_secondary off and " ..
          "forces delete_inserts to 0"}
}

-- ---------------------------------------------------------------------------
-- Small helpers
-- ---------------------------------------------------------------------------

local function driver_name(d)
   return (d or sysbench.sql.driver()):name()
end

local function is_mysql_like(name)
   return name == "mysql" or name == "attachsql" or name == "drizzle"
end

local function redshift()
   return sysbench.opt.pgsql_variant == "redshift"
end

-- Whether the database assigns the id of new rows. SQLite can only do that
-- when id is the rowid alias, i.e. when it is the PRIMARY KEY.
function oltp_server_ids(name)
   if not sysbench.opt.auto_inc then
      return false
   end
   if name == "sqlite" and sysbench.opt.secondary then
      return false
   end
   return true
end

-- Random digit strings: 11-digit groups joined by dashes.
-- c: 10 groups (119 characters), pad: 5 groups (59 characters).
local c_value_template = string.rep("###########-", 9) .. "###########"
local pad_value_template = string.rep("###########-", 4) .. "###########"

oltp_c_template = c_value_template
oltp_pad_template = pad_value_template

function get_c_value()
   return sysbench.rand.string(c_value_template)
end

function get_pad_value()
   return sysbench.rand.string(pad_value_template)
end

-- ---------------------------------------------------------------------------
-- Schema and data
-- ---------------------------------------------------------------------------

function create_table(drv, con, table_num)
   local name = drv:name()
   local tname = "sbtest" .. table_num
   local server_ids = oltp_server_ids(name)
   local id_def, key_clause, tail = nil, "", ""
   local id_index_after = false

   if is_mysql_like(name) then
      id_def = sysbench.opt.auto_inc and "INTEGER NOT NULL AUTO_INCREMENT"
         or "INTEGER NOT NULL"
      key_clause = sysbench.opt.secondary and "KEY xid (id)"
         or "PRIMARY KEY (id)"
      tail = "/*! ENGINE = " .. sysbench.opt.mysql_storage_engine .. " */ " ..
         (mysql_table_options or "")
   elseif name == "pgsql" then
      if not sysbench.opt.auto_inc then
         id_def = "INTEGER NOT NULL"
      elseif redshift() then
         id_def = "INTEGER IDENTITY(1,1)"
      else
         id_def = "SERIAL"
      end
      if sysbench.opt.secondary then
         id_index_after = true
      else
         key_clause = "PRIMARY KEY (id)"
      end
      -- The reference's statement ends with its (empty) engine and table
      -- options, each after a blank: an error shows the text as sent.
      tail = " "
   elseif name == "sqlite" then
      if sysbench.opt.secondary then
         id_def = "INTEGER NOT NULL"
         id_index_after = true
      elseif server_ids then
         -- the rowid alias: NULL or a missing id gets the next rowid
         id_def = "INTEGER PRIMARY KEY"
      else
         id_def = "INTEGER NOT NULL"
         key_clause = "PRIMARY KEY (id)"
      end
   else
      error("Unsupported database driver:" .. name)
   end

   print("Creating table '" .. tname .. "'...")

   local cols = "  id " .. id_def .. ",\n" ..
      "  k INTEGER DEFAULT '0' NOT NULL,\n" ..
      "  c CHAR(120) DEFAULT '' NOT NULL,\n" ..
      "  pad CHAR(60) DEFAULT '' NOT NULL"
   if key_clause ~= "" then
      cols = cols .. ",\n  " .. key_clause
   end
   con:query("CREATE TABLE " .. tname .. "(\n" .. cols .. "\n) " .. tail)

   if id_index_after then
      con:query("CREATE INDEX xid_" .. table_num .. " ON " .. tname .. "(id)")
   end

   local rows = sysbench.opt.table_size
   if rows > 0 then
      print("Inserting " .. string.format("%d", rows) ..
               " records into '" .. tname .. "'")
   end

   if server_ids then
      con:bulk_insert_init("INSERT INTO " .. tname .. "(k, c, pad) VALUES")
   else
      con:bulk_insert_init("INSERT INTO " .. tname .. "(id, k, c, pad) VALUES")
   end

   local rand_default = sysbench.rand.default
   local rand_string = sysbench.rand.string
   local ctpl, ptpl = c_value_template, pad_value_template

   for i = 1, rows do
      local c = rand_string(ctpl)
      local pad = rand_string(ptpl)
      local k = rand_default(1, rows)
      -- bulk_insert_next(pieces...) joins the pieces in Go (a sysbench-go
      -- extension: no Lua string per row).
      if server_ids then
         con:bulk_insert_next("(", k, ", '", c, "', '", pad, "')")
      else
         con:bulk_insert_next("(", i, ", ", k, ", '", c, "', '", pad, "')")
      end
   end

   con:bulk_insert_done()

   if sysbench.opt.create_secondary and
      not (name == "pgsql" and redshift())
   then
      print("Creating a secondary index on '" .. tname .. "'...")
      con:query("CREATE INDEX k_" .. table_num .. " ON " .. tname .. "(k)")
   end
end

-- Tables are spread over the threads: thread t builds tables t+1, t+1+T, ...
function cmd_prepare()
   local drv = sysbench.sql.driver()
   local con = drv:connect()
   local nthreads = sysbench.opt.threads

   -- Every table gets --table-size rows: the progress sysbench-go draws
   -- on a terminal counts them against that.
   for i = 1, sysbench.opt.tables do
      sysbench.progress.expect("sbtest" .. i, sysbench.opt.table_size)
   end

   for i = sysbench.tid % nthreads + 1, sysbench.opt.tables, nthreads do
      create_table(drv, con, i)
   end

   con:disconnect()
end

-- Pull the tables into the server's memory before a measured run. Parallel
-- like prepare. MySQL gets the full treatment (clustered index and secondary
-- index walks); PostgreSQL uses pg_prewarm when the extension is installed
-- and full scans otherwise; SQLite just scans.
function cmd_prewarm()
   local drv = sysbench.sql.driver()
   local con = drv:connect()
   local name = drv:name()
   local nthreads = sysbench.opt.threads
   local size = string.format("%d", sysbench.opt.table_size)
   local have_pg_prewarm = false

   if is_mysql_like(name) then
      -- keep the temporary tables of the queries below in memory
      con:query("SET tmp_table_size=2*1024*1024*1024")
      con:query("SET max_heap_table_size=2*1024*1024*1024")
   elseif name == "pgsql" then
      local n = con:query_row(
         "SELECT COUNT(*) FROM pg_extension WHERE extname = 'pg_prewarm'")
      have_pg_prewarm = tonumber(n) ~= nil and tonumber(n) > 0
   end

   for i = sysbench.tid % nthreads + 1, sysbench.opt.tables, nthreads do
      local t = "sbtest" .. i
      print("Prewarming table " .. t)
      if is_mysql_like(name) then
         con:query("ANALYZE TABLE " .. t)
         con:query("SELECT AVG(id) FROM (SELECT * FROM " .. t ..
                      " FORCE KEY (PRIMARY) LIMIT " .. size .. ") t")
         con:query("SELECT COUNT(*) FROM (SELECT * FROM " .. t ..
                      " WHERE k LIKE '%0%' LIMIT " .. size .. ") t")
      elseif name == "pgsql" and have_pg_prewarm then
         -- the heap and every index of the table
         con:query("SELECT pg_prewarm('" .. t .. "'), " ..
                      "(SELECT SUM(pg_prewarm(indexrelid)) FROM pg_index " ..
                      "WHERE indrelid = '" .. t .. "'::regclass)")
      elseif name == "pgsql" then
         con:query("ANALYZE " .. t)
         con:query("SELECT COUNT(*), SUM(LENGTH(c)), SUM(LENGTH(pad)) FROM " .. t)
         con:query("SELECT AVG(id) FROM (SELECT id FROM " .. t ..
                      " ORDER BY id LIMIT " .. size .. ") t")
         con:query("SELECT AVG(k) FROM (SELECT k FROM " .. t ..
                      " ORDER BY k LIMIT " .. size .. ") t")
      else
         con:query("SELECT COUNT(*), SUM(LENGTH(c)), SUM(LENGTH(pad)) FROM " .. t)
         con:query("SELECT AVG(k) FROM (SELECT k FROM " .. t ..
                      " ORDER BY k LIMIT " .. size .. ") t")
      end
   end

   con:disconnect()
end

sysbench.cmdline.commands = {
   prepare = {cmd_prepare, sysbench.cmdline.PARALLEL_COMMAND},
   prewarm = {cmd_prewarm, sysbench.cmdline.PARALLEL_COMMAND},
   warmup = {cmd_prewarm, sysbench.cmdline.PARALLEL_COMMAND}
}

function cleanup()
   local drv = sysbench.sql.driver()
   local con = drv:connect()

   for i = 1, sysbench.opt.tables do
      print("Dropping table 'sbtest" .. i .. "'...")
      con:query("DROP TABLE IF EXISTS sbtest" .. i)
   end

   con:disconnect()
end

-- ---------------------------------------------------------------------------
-- Prepared statements
-- ---------------------------------------------------------------------------

local sqltype = sysbench.sql.type

-- key -> { SQL with "@" standing for the table name, bind types... }
-- A bind type is either a sysbench.sql.type value or {type, max length}.
oltp_statements = {
   point_selects =
      {"SELECT c FROM @ WHERE id=?", sqltype.INT},
   simple_ranges =
      {"SELECT c FROM @ WHERE id BETWEEN ? AND ?", sqltype.INT, sqltype.INT},
   sum_ranges =
      {"SELECT SUM(k) FROM @ WHERE id BETWEEN ? AND ?",
       sqltype.INT, sqltype.INT},
   order_ranges =
      {"SELECT c FROM @ WHERE id BETWEEN ? AND ? ORDER BY c",
       sqltype.INT, sqltype.INT},
   distinct_ranges =
      {"SELECT DISTINCT c FROM @ WHERE id BETWEEN ? AND ? ORDER BY c",
       sqltype.INT, sqltype.INT},
   index_updates =
      {"UPDATE @ SET k=k+1 WHERE id=?", sqltype.INT},
   non_index_updates =
      {"UPDATE @ SET c=? WHERE id=?", {sqltype.CHAR, 120}, sqltype.INT},
   deletes =
      {"DELETE FROM @ WHERE id=?", sqltype.INT},
   inserts =
      {"INSERT INTO @ (id, k, c, pad) VALUES (?, ?, ?, ?)",
       sqltype.INT, sqltype.INT, {sqltype.CHAR, 120}, {sqltype.CHAR, 60}},
}

local write_keys = {
   index_updates = true, non_index_updates = true,
   deletes = true, inserts = true
}

function prepare_begin()
   stmt.begin = con:prepare("BEGIN")
end

function prepare_commit()
   stmt.commit = con:prepare("COMMIT")
end

-- Per statement kind, the statements of every table in table order, kept
-- current by prepare_for_each_table: execute_random(list, ...) draws the
-- table as rand_uniform(1, n_tables) would, in the same call.
local point_list, simple_list, sum_list, order_list, distinct_list
local index_list
local set_list = {
   point_selects = function(l) point_list = l end,
   simple_ranges = function(l) simple_list = l end,
   sum_ranges = function(l) sum_list = l end,
   order_ranges = function(l) order_list = l end,
   distinct_ranges = function(l) distinct_list = l end,
   index_updates = function(l) index_list = l end,
}

function prepare_for_each_table(key)
   local def = oltp_statements[key]
   local nparam = #def - 1
   local list = {}

   for t = 1, sysbench.opt.tables do
      local sql = string.gsub(def[1], "@", "sbtest" .. t)
      local s = con:prepare(sql)
      stmt[t][key] = s
      list[t] = s

      if nparam > 0 then
         local binds = {}
         for p = 1, nparam do
            local btype = def[p + 1]
            if type(btype) == "table" then
               binds[p] = s:bind_create(btype[1], btype[2])
            else
               binds[p] = s:bind_create(btype)
            end
         end
         param[t][key] = binds
         s:bind_param(unpack(binds))
      end
   end
   if set_list[key] then
      set_list[key](list)
   end
end

function prepare_point_selects()
   prepare_for_each_table("point_selects")
end

function prepare_simple_ranges()
   prepare_for_each_table("simple_ranges")
end

function prepare_sum_ranges()
   prepare_for_each_table("sum_ranges")
end

function prepare_order_ranges()
   prepare_for_each_table("order_ranges")
end

function prepare_distinct_ranges()
   prepare_for_each_table("distinct_ranges")
end

function prepare_index_updates()
   prepare_for_each_table("index_updates")
end

function prepare_non_index_updates()
   prepare_for_each_table("non_index_updates")
end

function prepare_delete_inserts()
   prepare_for_each_table("deletes")
   prepare_for_each_table("inserts")
end

-- Per-thread copies of the options read on every event, refreshed after
-- prepare_statements() (a script may adjust sysbench.opt there).
-- Hot-path values, as locals of this module: a global would cost a table
-- lookup on every use inside the event loops.
local n_tables, n_rows, range_span, n_point, n_simple, n_sum, n_order
local n_distinct, n_index_upd, n_non_index_upd, n_delete_ins
local rand_uniform, rand_default
-- With the generator as shipped, the loops below run in one call of the
-- sysbench-go extension stmt:execute_random (same draws, same queries);
-- a script that replaces sysbench.rand.default gets the Lua loops.
local builtin_default = sysbench.rand.default
local fast_random

-- The statement and parameter methods and the stmt/param tables as
-- upvalues: s:execute() looks the method up in two tables on every call,
-- a global in one.
local stmts, params
local execute, execute_random, param_set, param_set_rand_str
local function cache_methods()
   stmts, params = stmt, param
   local s = stmt.begin
   if s == nil then
      for _, v in pairs(stmt[1] or {}) do
         s = v
         break
      end
   end
   if s ~= nil then
      execute, execute_random = s.execute, s.execute_random
   end
   for _, binds in pairs(param[1] or {}) do
      param_set, param_set_rand_str = binds[1].set, binds[1].set_rand_str
      break
   end
end

local function cache_options()
   local opt = sysbench.opt
   n_tables = opt.tables
   n_rows = opt.table_size
   range_span = opt.range_size - 1
   n_point = opt.point_selects
   n_simple = opt.simple_ranges
   n_sum = opt.sum_ranges
   n_order = opt.order_ranges
   n_distinct = opt.distinct_ranges
   n_index_upd = opt.index_updates
   n_non_index_upd = opt.non_index_updates
   n_delete_ins = opt.delete_inserts
   if drv:name() == "pgsql" and redshift() then
      n_delete_ins = 0
   end
   rand_uniform = sysbench.rand.uniform
   rand_default = sysbench.rand.default
   fast_random = rand_default == builtin_default
   cache_methods()
end

function thread_init()
   drv = sysbench.sql.driver()
   con = drv:connect()

   -- stmt[table][key] and param[table][key][n], one set per connection
   stmt = {}
   param = {}
   for t = 1, sysbench.opt.tables do
      stmt[t] = {}
      param[t] = {}
   end

   -- supplied by the script that required this module
   prepare_statements()

   -- SQLite: a deferred BEGIN that later writes can fail to upgrade its
   -- lock under concurrency; take the write lock up front instead.
   if drv:name() == "sqlite" and stmt.begin ~= nil then
      local writes = false
      for key in pairs(stmt[1] or {}) do
         if write_keys[key] then
            writes = true
         end
      end
      if writes then
         stmt.begin:close()
         stmt.begin = con:prepare("BEGIN IMMEDIATE")
      end
   end

   cache_options()
end

function close_statements()
   for t = 1, sysbench.opt.tables do
      for _, s in pairs(stmt[t]) do
         s:close()
      end
   end
   if stmt.begin ~= nil then
      stmt.begin:close()
   end
   if stmt.commit ~= nil then
      stmt.commit:close()
   end
end

function thread_done()
   close_statements()
   con:disconnect()
end

-- ---------------------------------------------------------------------------
-- Event helpers
-- ---------------------------------------------------------------------------

function begin()
   execute(stmts.begin)
end

function commit()
   execute(stmts.commit)
end

function execute_point_selects()
   if fast_random then
      execute_random(point_list, n_point, 1, n_rows)
      return
   end
   local s = stmts[rand_uniform(1, n_tables)].point_selects
   -- execute(values...) binds and runs in one call (a sysbench-go
   -- extension of the API: see docs/lua-api.md).
   for _ = 1, n_point do
      s:execute(rand_default(1, n_rows))
   end
end

local function execute_range(key, count)
   local s = stmts[rand_uniform(1, n_tables)][key]
   for _ = 1, count do
      local id = rand_default(1, n_rows)
      s:execute(id, id + range_span)
   end
end

function execute_simple_ranges()
   if fast_random then
      execute_random(simple_list, n_simple, 1, n_rows, range_span)
      return
   end
   execute_range("simple_ranges", n_simple)
end

function execute_sum_ranges()
   if fast_random then
      execute_random(sum_list, n_sum, 1, n_rows, range_span)
      return
   end
   execute_range("sum_ranges", n_sum)
end

function execute_order_ranges()
   if fast_random then
      execute_random(order_list, n_order, 1, n_rows, range_span)
      return
   end
   execute_range("order_ranges", n_order)
end

function execute_distinct_ranges()
   if fast_random then
      execute_random(distinct_list, n_distinct, 1, n_rows, range_span)
      return
   end
   execute_range("distinct_ranges", n_distinct)
end

function execute_index_updates()
   if fast_random then
      execute_random(index_list, n_index_upd, 1, n_rows)
      return
   end
   local s = stmts[rand_uniform(1, n_tables)].index_updates
   for _ = 1, n_index_upd do
      s:execute(rand_default(1, n_rows))
   end
end

function execute_non_index_updates()
   local t = rand_uniform(1, n_tables)
   local s = stmts[t].non_index_updates
   local p = params[t].non_index_updates
   local c, id = p[1], p[2]

   for _ = 1, n_non_index_upd do
      param_set_rand_str(c, c_value_template)
      param_set(id, rand_default(1, n_rows))
      execute(s)
   end
end

function execute_delete_inserts()
   local t = rand_uniform(1, n_tables)
   local del = stmts[t].deletes
   local ins = stmts[t].inserts
   local p = params[t].inserts
   local ins_c, ins_pad = p[3], p[4]

   for _ = 1, n_delete_ins do
      local id = rand_default(1, n_rows)
      local k = rand_default(1, n_rows)

      param_set_rand_str(ins_c, c_value_template)
      param_set_rand_str(ins_pad, pad_value_template)

      execute(del, id)
      execute(ins, id, k) -- sets the first two parameters, id and k
   end
end

-- After a lost connection has been re-established (possible when those
-- errors are listed in --mysql-ignore-errors) the server has forgotten our
-- prepared statements: prepare them again before the event is retried.
-- (Compared one by one: in gopher-lua a table keyed by these numbers would
-- hold an array of 2055 slots, some 40 KiB in every thread's Lua state.)
local function reconnect_error(errno)
   return errno == 2006 -- server has gone away
      or errno == 2011 -- TCP connection error
      or errno == 2013 -- lost connection during query
      or errno == 2055 -- lost connection (extended)
end

-- ---------------------------------------------------------------------------
-- Events run by Go
-- ---------------------------------------------------------------------------

-- The helpers as this module defines them. A script that replaces one of
-- them (after require, up to its first event) keeps its own: its events
-- run in Lua, through the helpers.
local own_helpers = {
   begin = begin, commit = commit,
   execute_point_selects = execute_point_selects,
   execute_simple_ranges = execute_simple_ranges,
   execute_sum_ranges = execute_sum_ranges,
   execute_order_ranges = execute_order_ranges,
   execute_distinct_ranges = execute_distinct_ranges,
   execute_index_updates = execute_index_updates,
   execute_non_index_updates = execute_non_index_updates,
   execute_delete_inserts = execute_delete_inserts,
}

local function table_list(key)
   local list = {}
   for t = 1, n_tables do
      list[t] = stmts[t][key]
   end
   return list
end

-- What each helper does, as a step of an event plan (sysbench.event_plan,
-- a sysbench-go extension: docs/lua-api.md): the same statements, draws
-- and order as the helper's Lua above.
local plan_step = {
   begin = function(p) p:execute(stmts.begin) end,
   commit = function(p) p:execute(stmts.commit) end,
   execute_point_selects = function(p) p:execute_random(point_list, n_point, 1, n_rows) end,
   execute_simple_ranges = function(p) p:execute_random(simple_list, n_simple, 1, n_rows, range_span) end,
   execute_sum_ranges = function(p) p:execute_random(sum_list, n_sum, 1, n_rows, range_span) end,
   execute_order_ranges = function(p) p:execute_random(order_list, n_order, 1, n_rows, range_span) end,
   execute_distinct_ranges = function(p) p:execute_random(distinct_list, n_distinct, 1, n_rows, range_span) end,
   execute_index_updates = function(p) p:execute_random(index_list, n_index_upd, 1, n_rows) end,
   execute_non_index_updates = function(p)
      p:update_string(table_list("non_index_updates"), n_non_index_upd, 1, n_rows, c_value_template)
   end,
   execute_delete_inserts = function(p)
      p:delete_insert(table_list("deletes"), table_list("inserts"), n_delete_ins, 1, n_rows,
                      c_value_template, pad_value_template)
   end,
}

-- oltp_steps names the helpers of an OLTP transaction in the order its
-- event calls them: BEGIN unless --skip_trx; with reads, the point selects
-- and, with --range_selects, the four range queries; with writes, the
-- indexed and non-indexed UPDATEs and the DELETE+INSERT pairs; COMMIT.
function oltp_steps(reads, writes)
   local steps = {}
   local function add(name) steps[#steps + 1] = name end
   local use_trx = not sysbench.opt.skip_trx
   if use_trx then add("begin") end
   if reads then
      add("execute_point_selects")
      if sysbench.opt.range_selects then
         add("execute_simple_ranges")
         add("execute_sum_ranges")
         add("execute_order_ranges")
         add("execute_distinct_ranges")
      end
   end
   if writes then
      add("execute_index_updates")
      add("execute_non_index_updates")
      add("execute_delete_inserts")
   end
   if use_trx then add("commit") end
   return steps
end

local plan -- the thread's event plan; false: its event runs in Lua

-- oltp_plan returns the plan of an event made of the named helpers, in
-- that order, bound to the script's event function (from the next event
-- on, Go runs the plan without entering Lua), or false when the helpers
-- are not all this module's or draw through a replaced generator.
function oltp_plan(helpers)
   if plan ~= nil then
      return plan
   end
   plan = false
   if not fast_random then
      return false
   end
   for name, f in pairs(own_helpers) do
      if _G[name] ~= f then
         return false
      end
   end
   local p = sysbench.event_plan()
   for _, name in ipairs(helpers) do
      plan_step[name](p)
   end
   p:bind(event)
   plan = p
   return p
end

-- After the statements are prepared again, a plan is made of the new ones.
local function forget_plan()
   if plan then
      plan:bind(nil)
   end
   plan = nil
end

function sysbench.hooks.before_restart_event(errdesc)
   if reconnect_error(errdesc.sql_errno) then
      close_statements()
      prepare_statements()
      forget_plan()
   end
end
