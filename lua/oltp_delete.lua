#!/usr/bin/env sysbench
-- oltp_delete.lua: one DELETE by primary key per event, autocommit. Rows
-- are not put back, so the table thins out over a long run.

require("oltp_common")

function prepare_statements()
   prepare_for_each_table("deletes")
end

local rand_uniform, rand_default = sysbench.rand.uniform, sysbench.rand.default
local n_tables, n_rows

function event()
   if n_tables == nil then
      n_tables = sysbench.opt.tables
      n_rows = sysbench.opt.table_size
   end

   local t = rand_uniform(1, n_tables)
   local id = rand_default(1, n_rows)

   param[t].deletes[1]:set(id)
   stmt[t].deletes:execute()
end
