#!/usr/bin/env sysbench
-- oltp_update_non_index.lua: UPDATE of the non-indexed column c by primary
-- key, --non_index_updates statements per event, autocommit.

require("oltp_common")

function prepare_statements()
   prepare_non_index_updates()
end

function event()
   execute_non_index_updates()
end
