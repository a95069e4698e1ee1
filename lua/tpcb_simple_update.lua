#!/usr/bin/env sysbench
-- tpcb_simple_update.lua: pgbench -N (simple-update): the TPC-B-like
-- transaction without the pgbench_tellers and pgbench_branches updates, so
-- the hot branch rows stop serialising the clients.

require("tpcb_common")

function prepare_statements()
   tpcb_prepare_update(false)
end

function event()
   tpcb_update(false)
end
