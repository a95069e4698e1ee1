#!/usr/bin/env sysbench
-- shop_category_filter.lua: the products of one category, cheapest first,
-- through the category_id index:
--   SELECT id, name, price, stock FROM products WHERE category_id = ?
--   ORDER BY price LIMIT <--category-limit>
-- Seed 000: "İndeksli kategori filtresi".

require("shop_common")

function prepare_statements()
   shop_prepare_category_filter()
end

function event()
   shop_category_filter()
end
