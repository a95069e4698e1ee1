#!/usr/bin/env sysbench
-- shop_point_select.lua: one primary-key lookup per event, of a product
-- (default) or a user (--point-select-table=users|both). Seed 000:
-- "Primary key ile kayıt getir".

require("shop_common")

function prepare_statements()
   shop_prepare_point_select()
end

function event()
   shop_point_select()
end
