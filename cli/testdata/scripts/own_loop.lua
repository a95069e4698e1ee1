-- A script with its own thread_run driving the engine through ffi.
local ffi = require("ffi")
ffi.cdef[[
bool sb_more_events(int thread_id);
void sb_event_start(int thread_id);
void sb_event_stop(int thread_id);
]]
function event() end
function thread_run(tid)
  while ffi.C.sb_more_events(tid) do
    ffi.C.sb_event_start(tid)
    ffi.C.sb_event_stop(tid)
  end
end
