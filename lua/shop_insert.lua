#!/usr/bin/env sysbench
-- shop_insert.lua: one single-row INSERT per event, autocommit: a new user
-- (default) or, with --insert-target=orders, an empty order (status new,
-- total 0, no items, so totals still match their items). Ids come from the
-- database. Seed 000: "Tekil insert".

require("shop_common")

function prepare_statements()
   shop_prepare_insert()
end

function event()
   shop_insert()
end
