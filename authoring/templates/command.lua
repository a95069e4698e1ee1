#!/usr/bin/env sysbench-go
-- {{FILE}}: a workload with commands of its own: `verify` checks what
-- prepare loaded, `prewarm` reads the table with every thread (to warm
-- the server's cache before a run); the event updates a row by primary
-- key. Written by `sysbench-go new --shape=command`; every line is yours
-- to change. Try it with no server at all, then on yours:
--
--   sysbench-go {{FILE}} --db-driver=sqlite prepare
--   sysbench-go {{FILE}} --db-driver=sqlite verify
--   sysbench-go {{FILE}} --db-driver=sqlite --threads=2 prewarm
--   sysbench-go {{FILE}} --db-driver=sqlite --threads=2 --time=10 run
--   sysbench-go {{FILE}} --db-driver=sqlite cleanup
--   sysbench-go {{FILE}} --db-dry-run --events=1000 --time=0 run   (no database: the client's cost)
--
-- `sysbench-go check {{FILE}}` finds typos and wrong calls before a server
-- is touched; `--trace=1` on run prints what each event sends, with its
-- values, rows and latency. The API: docs/lua-api.md.

-- The table this workload owns: prepare creates it, cleanup drops it.
local TABLE = "{{TABLE}}"

-- Options: --table-size=N on the command line is sysbench.opt.table_size
-- here ('-' and '_' are the same). `sysbench-go {{FILE}} help` lists them.
sysbench.cmdline.options = {
   table_size = {"rows in the table", 10000},
}

-- prepare: create the table and load it with multi-row INSERTs.
function prepare()
   local con = sysbench.sql.driver():connect()
   print(string.format("Creating table '%s'...", TABLE))
   con:query("CREATE TABLE " .. TABLE .. " (" ..
             "id BIGINT NOT NULL PRIMARY KEY, " ..
             "k INTEGER NOT NULL DEFAULT 0, " ..
             "c VARCHAR(120) NOT NULL DEFAULT '')")
   print(string.format("Inserting %d rows into '%s'...", sysbench.opt.table_size, TABLE))
   con:bulk_insert_init("INSERT INTO " .. TABLE .. " (id, k, c) VALUES")
   for id = 1, sysbench.opt.table_size do
      con:bulk_insert_next(string.format("(%d, 0, '%s')", id,
         sysbench.rand.string("###########-###########")))
   end
   con:bulk_insert_done()
   con:disconnect()
end

-- cleanup: drop what prepare created, and nothing else.
function cleanup()
   local con = sysbench.sql.driver():connect()
   print(string.format("Dropping table '%s'...", TABLE))
   con:query("DROP TABLE IF EXISTS " .. TABLE)
   con:disconnect()
end

-- verify: a command of your own, run once: says how many rows the table
-- has, and fails (exit status 1) when it lacks some.
local function verify()
   local con = sysbench.sql.driver():connect()
   local rows = tonumber(con:query_row("SELECT COUNT(*) FROM " .. TABLE)) or 0
   con:disconnect()
   print(string.format("%s: %d rows, %d expected", TABLE, rows, sysbench.opt.table_size))
   return rows >= sysbench.opt.table_size
end

-- prewarm: run by each of --threads threads, each in a Lua state of its
-- own (PARALLEL_COMMAND); sysbench.tid is the thread's number. Each
-- reads its share of the table, the rows whose id modulo --threads is
-- its number.
local function prewarm()
   local con = sysbench.sql.driver():connect()
   local threads, tid = sysbench.opt.threads, sysbench.tid
   local rs = con:query(string.format("SELECT COUNT(*), SUM(k) FROM %s WHERE id %% %d = %d",
                                      TABLE, threads, tid))
   local row = rs:fetch_row()
   print(string.format("thread %d read %s rows", tid, row and row[1] or "no"))
   con:disconnect()
end

-- Commands: `sysbench-go {{FILE}} NAME` runs commands[NAME][1].
sysbench.cmdline.commands = {
   verify = {verify},
   prewarm = {prewarm, sysbench.cmdline.PARALLEL_COMMAND},
}

-- Each thread has its own Lua state: these locals are per thread.
local con, update, k, id

-- thread_init: connect and prepare the statement once per thread.
function thread_init()
   con = sysbench.sql.driver():connect()
   update = con:prepare("UPDATE " .. TABLE .. " SET k = ? WHERE id = ?")
   k = update:bind_create(sysbench.sql.type.INT)
   id = update:bind_create(sysbench.sql.type.BIGINT)
   update:bind_param(k, id)
end

-- event: one UPDATE by primary key.
function event()
   k:set(sysbench.rand.uniform(1, 1000000))
   id:set(sysbench.rand.default(1, sysbench.opt.table_size))
   update:execute()
end

-- thread_done: close what thread_init opened.
function thread_done()
   update:close()
   con:disconnect()
end

-- A report hook: called every --report-interval seconds with the
-- interval's figures (stat.events, stat.writes, stat.latency_pct, ...).
-- This one prints sysbench's own line; sysbench.report_csv and
-- sysbench.report_json print CSV or JSON instead.
function sysbench.hooks.report_intermediate(stat)
   sysbench.report_default(stat)
end
