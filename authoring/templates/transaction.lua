#!/usr/bin/env sysbench-go
-- {{FILE}}: a transaction of several statements — read a row by primary
-- key, change it, read a range — committed as one event. Written by
-- `sysbench-go new --shape=transaction`; every line is yours to change.
-- Try it with no server at all, then on yours:
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
   range_size = {"rows the range read covers", 10},
   skip_trx = {"run the statements without BEGIN/COMMIT", false},
}

-- prepare: create the table, its secondary index, and load it with
-- multi-row INSERTs.
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
   con:query("CREATE INDEX " .. TABLE .. "_k ON " .. TABLE .. " (k)")
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
local con, read, update, range
local p = {}

-- thread_init: connect and prepare the statements once per thread; each
-- parameter (bind_create) is set before its statement runs.
function thread_init()
   con = sysbench.sql.driver():connect()
   read = con:prepare("SELECT k, c FROM " .. TABLE .. " WHERE id = ?")
   p.read_id = read:bind_create(sysbench.sql.type.BIGINT)
   read:bind_param(p.read_id)

   update = con:prepare("UPDATE " .. TABLE .. " SET k = k + 1, c = ? WHERE id = ?")
   p.c = update:bind_create(sysbench.sql.type.VARCHAR, 120)
   p.update_id = update:bind_create(sysbench.sql.type.BIGINT)
   update:bind_param(p.c, p.update_id)

   range = con:prepare("SELECT COUNT(*) FROM " .. TABLE .. " WHERE k BETWEEN ? AND ?")
   p.lo = range:bind_create(sysbench.sql.type.INT)
   p.hi = range:bind_create(sysbench.sql.type.INT)
   range:bind_param(p.lo, p.hi)
end

-- event: one transaction. A deadlock or a serialization failure (which
-- sysbench ignores by default) restarts the whole event.
function event()
   if not sysbench.opt.skip_trx then
      con:query("BEGIN")
   end
   local id = sysbench.rand.default(1, sysbench.opt.table_size)
   p.read_id:set(id)
   read:execute()
   p.c:set_rand_str("###########-###########-###########")
   p.update_id:set(id)
   update:execute()
   local k = sysbench.rand.default(1, sysbench.opt.table_size)
   p.lo:set(k)
   p.hi:set(k + sysbench.opt.range_size - 1)
   range:execute()
   if not sysbench.opt.skip_trx then
      con:query("COMMIT")
   end
end

-- thread_done: close what thread_init opened.
function thread_done()
   read:close()
   update:close()
   range:close()
   con:disconnect()
end

-- A report hook: called every --report-interval seconds with the
-- interval's figures (stat.events, stat.reads, stat.writes, ...). This
-- one prints sysbench's own line; sysbench.report_csv and
-- sysbench.report_json print CSV or JSON instead.
function sysbench.hooks.report_intermediate(stat)
   sysbench.report_default(stat)
end
