#!/usr/bin/env sysbench-go
-- {{FILE}}: inserts with a growing key. Each thread appends rows in a
-- key range of its own, from where its last run stopped, so runs can
-- follow each other and threads never collide. Written by `sysbench-go
-- new --shape=insert`; every line is yours to change. Try it with no
-- server at all, then on yours:
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

-- Thread t's keys are [(t+1)*SPAN, (t+2)*SPAN): prepare's rows lie below.
local SPAN = 2^32

-- Options: --rows-per-event=N on the command line is
-- sysbench.opt.rows_per_event here ('-' and '_' are the same).
-- `sysbench-go {{FILE}} help` lists them.
sysbench.cmdline.options = {
   table_size = {"rows prepare loads", 1000},
   rows_per_event = {"rows each event inserts, one INSERT each, in one transaction", 1},
}

-- prepare: create the table and load its first rows.
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
      con:bulk_insert_next(string.format("(%d, %d, '%s')", id, id,
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

-- Each thread has its own Lua state: these locals are per thread.
local con, insert, id, k, c
local next_id

-- thread_init: connect, prepare the INSERT, and find where this thread's
-- keys stopped (query_row gives the first row's columns as strings).
function thread_init(tid)
   con = sysbench.sql.driver():connect()
   local lo = (tid + 1) * SPAN
   local last = con:query_row(string.format(
      "SELECT MAX(id) FROM %s WHERE id >= %d AND id < %d", TABLE, lo, lo + SPAN))
   next_id = (tonumber(last) or lo - 1) + 1
   insert = con:prepare("INSERT INTO " .. TABLE .. " (id, k, c) VALUES (?, ?, ?)")
   id = insert:bind_create(sysbench.sql.type.BIGINT)
   k = insert:bind_create(sysbench.sql.type.INT)
   c = insert:bind_create(sysbench.sql.type.VARCHAR, 120)
   insert:bind_param(id, k, c)
end

-- event: rows_per_event INSERTs, each with the next key; the key moves
-- on only once the event commits, so that a restarted event (a
-- deadlock) inserts the same keys again.
function event()
   local n = sysbench.opt.rows_per_event
   if n > 1 then
      con:query("BEGIN")
   end
   for i = 0, n - 1 do
      id:set(next_id + i)
      k:set(sysbench.rand.default(1, sysbench.opt.table_size))
      c:set_rand_str("###########-###########")
      insert:execute()
   end
   if n > 1 then
      con:query("COMMIT")
   end
   next_id = next_id + n
end

-- thread_done: close what thread_init opened.
function thread_done()
   insert:close()
   con:disconnect()
end

-- A report hook: called every --report-interval seconds with the
-- interval's figures (stat.events, stat.writes, stat.latency_pct, ...).
-- This one prints sysbench's own line; sysbench.report_csv and
-- sysbench.report_json print CSV or JSON instead.
function sysbench.hooks.report_intermediate(stat)
   sysbench.report_default(stat)
end
