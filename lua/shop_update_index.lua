#!/usr/bin/env sysbench
-- shop_update_index.lua: one UPDATE located through an index per event,
-- autocommit: a restock by primary key (default,
--   UPDATE products SET stock = stock + ? WHERE id = ?)
-- or, with --update-target=status, the status of a user's orders through
-- the user_id index (UPDATE orders SET status = ? WHERE user_id = ?).
-- Seed 000: "İndeksli update".

require("shop_common")

function prepare_statements()
   shop_prepare_update_index()
end

function event()
   shop_update_index()
end
