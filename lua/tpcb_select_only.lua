#!/usr/bin/env sysbench
-- tpcb_select_only.lua: pgbench -S (select-only): one
-- SELECT abalance FROM pgbench_accounts WHERE aid = ? per event, autocommit.

require("tpcb_common")

function prepare_statements()
   tpcb_prepare_select()
end

function event()
   tpcb_select_only()
end
