#!/usr/bin/env sysbench
-- oltp_write_only.lua: the write half of the OLTP transaction — indexed
-- UPDATE, non-indexed UPDATE and DELETE+INSERT, inside BEGIN/COMMIT unless
-- --skip_trx is on.

require("oltp_common")

function prepare_statements()
   if not sysbench.opt.skip_trx then
      prepare_begin()
      prepare_commit()
   end

   prepare_index_updates()
   prepare_non_index_updates()
   prepare_delete_inserts()
end

local use_trx

function event()
   if use_trx == nil then
      use_trx = not sysbench.opt.skip_trx
   end

   if use_trx then
      begin()
   end

   execute_index_updates()
   execute_non_index_updates()
   execute_delete_inserts()

   if use_trx then
      commit()
   end
end
