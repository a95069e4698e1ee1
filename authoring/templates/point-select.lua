#!/usr/bin/env sysbench-go
-- {{FILE}}: point reads by primary key, the simplest workload there is.
-- Written by `sysbench-go new --shape=point-select`; every line is yours
-- to change. Try it with no server at all, then on yours:
--
--   sysbench-go {{FILE}} --db-driver=sqlite prepare
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
   point_selects = {"point selects per event", 1},
}

-- prepare: create the table and load it with multi-row INSERTs
-- (bulk_insert_* batches rows into statements of up to 512 KiB).
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
      con:bulk_insert_next(string.format("(%d, %d, '%s')", id,
         sysbench.rand.default(1, sysbench.opt.table_size),
         sysbench.rand.string("###########-###########-###########")))
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

-- Each thread has its own Lua state: these locals are per thread.
local con, point, id

-- thread_init: connect and prepare the statements once per thread. A
-- parameter made by bind_create is set before each execute.
function thread_init()
   con = sysbench.sql.driver():connect()
   point = con:prepare("SELECT c FROM " .. TABLE .. " WHERE id = ?")
   id = point:bind_create(sysbench.sql.type.BIGINT)
   point:bind_param(id)
end

-- event: one transaction of the workload, timed as one event. Its
-- latency is what the report's percentiles are made of.
function event()
   for _ = 1, sysbench.opt.point_selects do
      id:set(sysbench.rand.default(1, sysbench.opt.table_size))
      point:execute()
   end
end

-- thread_done: close what thread_init opened.
function thread_done()
   point:close()
   con:disconnect()
end

-- A report hook: called every --report-interval seconds with the
-- interval's figures (stat.events, stat.reads, stat.latency_pct, ...).
-- This one prints sysbench's own line; sysbench.report_csv and
-- sysbench.report_json print CSV or JSON instead.
function sysbench.hooks.report_intermediate(stat)
   sysbench.report_default(stat)
end
