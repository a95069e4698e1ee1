#!/usr/bin/env sysbench
-- bulk_insert.lua: every thread streams rows into its own table
-- (sbtest<thread+1>) through one long multi-row INSERT; each event adds one
-- row. prepare creates one table per --threads, cleanup drops them.

local rows_sent = 0

function thread_init()
   drv = sysbench.sql.driver()
   con = drv:connect()
end

function prepare()
   local con = sysbench.sql.driver():connect()

   for i = 1, sysbench.opt.threads do
      print("Creating table 'sbtest" .. i .. "'...")
      con:query("CREATE TABLE IF NOT EXISTS sbtest" .. i .. " (\n" ..
                   "  id INTEGER NOT NULL,\n" ..
                   "  k INTEGER DEFAULT '0' NOT NULL,\n" ..
                   "  PRIMARY KEY (id))")
   end
end

function event()
   if rows_sent == 0 then
      con:bulk_insert_init("INSERT INTO sbtest" .. (sysbench.tid + 1) ..
                              " VALUES")
   end

   rows_sent = rows_sent + 1
   local v = tostring(rows_sent)
   con:bulk_insert_next("(" .. v .. "," .. v .. ")")
end

function thread_done()
   if rows_sent > 0 then
      con:bulk_insert_done()
   end
   con:disconnect()
end

function cleanup()
   local con = sysbench.sql.driver():connect()

   for i = 1, sysbench.opt.threads do
      print("Dropping table 'sbtest" .. i .. "'...")
      con:query("DROP TABLE IF EXISTS sbtest" .. i)
   end
end
