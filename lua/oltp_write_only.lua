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

local use_trx, steps
-- The helpers, taken from the globals at the first event (see
-- oltp_read_write.lua).
local begin_, commit_, index_upd, non_index_upd, delete_ins

function event()
   if use_trx == nil then
      use_trx = not sysbench.opt.skip_trx
      begin_, commit_ = begin, commit
      index_upd, non_index_upd = execute_index_updates, execute_non_index_updates
      delete_ins = execute_delete_inserts
      steps = oltp_steps(false, true)
   end

   -- The same helpers run by Go from the next event on (oltp_common;
   -- made anew after the statements are).
   local plan = oltp_plan(steps)
   if plan then
      return plan:run()
   end

   if use_trx then
      begin_()
   end

   index_upd()
   non_index_upd()
   delete_ins()

   if use_trx then
      commit_()
   end
end
