#!/usr/bin/env sysbench
-- oltp_insert.lua: one single-row INSERT per event, autocommit.
--
-- With --auto_inc=on the database picks the id. With --auto_inc=off the ids
-- come from sysbench.rand.unique(), and prepare leaves the tables empty so
-- that those ids cannot collide with rows created by prepare.

require("oltp_common")

sysbench.cmdline.commands.prepare = {
   function()
      if not oltp_server_ids(sysbench.sql.driver():name()) then
         sysbench.opt.table_size = 0
      end
      cmd_prepare()
   end,
   sysbench.cmdline.PARALLEL_COMMAND
}

local sqltype = sysbench.sql.type
local ins = {}      -- per table: statement and its parameters
local id_mode       -- "none": id omitted, "zero": id=0, "unique": client id
local n_tables, n_rows
local rand_uniform, rand_default, rand_unique

function prepare_statements()
   local name = drv:name()

   if oltp_server_ids(name) then
      -- MySQL turns an id of 0 into the next AUTO_INCREMENT value; the
      -- other databases need the column left out
      id_mode = is_mysql_driver(name) and "zero" or "none"
   else
      id_mode = "unique"
   end

   for t = 1, sysbench.opt.tables do
      local tname = "sbtest" .. t
      local e = {}
      if id_mode == "none" then
         e.stmt = con:prepare("INSERT INTO " .. tname ..
                                 " (k, c, pad) VALUES (?, ?, ?)")
      else
         e.stmt = con:prepare("INSERT INTO " .. tname ..
                                 " (id, k, c, pad) VALUES (?, ?, ?, ?)")
         e.id = e.stmt:bind_create(sqltype.INT)
      end
      e.k = e.stmt:bind_create(sqltype.INT)
      e.c = e.stmt:bind_create(sqltype.CHAR, 120)
      e.pad = e.stmt:bind_create(sqltype.CHAR, 60)
      if e.id then
         e.stmt:bind_param(e.id, e.k, e.c, e.pad)
      else
         e.stmt:bind_param(e.k, e.c, e.pad)
      end
      ins[t] = e
      -- registered so that close_statements() finds it
      stmt[t].inserts = e.stmt
   end

   n_tables = sysbench.opt.tables
   n_rows = sysbench.opt.table_size
   rand_uniform = sysbench.rand.uniform
   rand_default = sysbench.rand.default
   rand_unique = sysbench.rand.unique
end

function is_mysql_driver(name)
   return name == "mysql" or name == "attachsql" or name == "drizzle"
end

local c_tpl, pad_tpl = oltp_c_template, oltp_pad_template

function event()
   local e = ins[rand_uniform(1, n_tables)]

   e.k:set(rand_default(1, n_rows))
   e.c:set_rand_str(c_tpl)
   e.pad:set_rand_str(pad_tpl)

   if id_mode == "zero" then
      e.id:set(0)
   elseif id_mode == "unique" then
      -- map the unsigned 32-bit value onto the signed INT range
      e.id:set(rand_unique() - 2147483648)
   end

   e.stmt:execute()
end
