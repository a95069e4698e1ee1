#!/usr/bin/env sysbench
-- tpcb_like.lua: pgbench's default TPC-B-like transaction, one per event:
-- UPDATE pgbench_accounts, SELECT abalance, UPDATE pgbench_tellers, UPDATE
-- pgbench_branches, INSERT INTO pgbench_history, in BEGIN/COMMIT. Runs on
-- tables made by prepare or by `pgbench -i`. Seed 002's pgbench run.

require("tpcb_common")

function prepare_statements()
   tpcb_prepare_update(true)
end

function event()
   tpcb_update(true)
end
