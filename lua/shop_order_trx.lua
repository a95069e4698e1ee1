#!/usr/bin/env sysbench
-- shop_order_trx.lua: place an order in one transaction: read the prices of
-- N products (--order-items-min..--order-items-max), INSERT the order with
-- the total computed from those prices, INSERT its items, decrement each
-- product's stock, COMMIT. Seed 000: "Sipariş transaction".

require("shop_common")

function prepare_statements()
   shop_prepare_order_trx()
end

function event()
   shop_order_trx()
end
