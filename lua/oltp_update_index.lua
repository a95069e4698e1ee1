#!/usr/bin/env sysbench
-- oltp_update_index.lua: UPDATE of the indexed column k by primary key,
-- --index_updates statements per event, autocommit.

require("oltp_common")

function prepare_statements()
   prepare_index_updates()
end

function event()
   execute_index_updates()
end
