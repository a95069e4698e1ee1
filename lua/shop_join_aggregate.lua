#!/usr/bin/env sysbench
-- shop_join_aggregate.lua: how many items one user bought and for how much,
-- orders joined to order_items through the user_id and order_id indexes.
-- Seed 000: "Join + aggregate".

require("shop_common")

function prepare_statements()
   shop_prepare_join_aggregate()
end

function event()
   shop_join_aggregate()
end
