#!/usr/bin/env sysbench
-- shop_mixed.lua: the mixed OLTP load, one scenario per event: reads
-- (--read-pct, default 60, spread evenly over point select, category filter
-- and join aggregate), indexed updates (--update-pct, 20) and order
-- transactions (--trx-pct, 20). Seed 000: "Karma OLTP".

require("shop_common")

function prepare_statements()
   shop_prepare_mixed()
end

function event()
   shop_mixed()
end
