-- A script with its own thread_run and a connection: --reconnect renews
-- it after every N-th sb_event_stop (cli/connections_test.go).
local ffi = require("ffi")
ffi.cdef [[
bool sb_more_events(int thread_id);
void sb_event_start(int thread_id);
void sb_event_stop(int thread_id);
]]

function event() end

function thread_init()
   con = sysbench.sql.driver():connect()
end

function thread_run(tid)
   while ffi.C.sb_more_events(tid) do
      ffi.C.sb_event_start(tid)
      con:query("SELECT 1")
      ffi.C.sb_event_stop(tid)
   end
end
