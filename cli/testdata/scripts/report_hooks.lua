-- Intermediate reports through the reference's CSV or JSON formatter.
-- --pause=US sleeps after each event's work, for a run on the fake clock
-- (runSimulated), whose seconds pass only while the run waits.
sysbench.cmdline.options = {
  format = {"csv, json or default", "csv"},
  pause = {"microseconds each event sleeps", 0},
}
local ffi = require("ffi")
ffi.cdef("int usleep(unsigned int);")
function init()
  local f = sysbench.opt.format
  sysbench.hooks.report_intermediate = sysbench["report_" .. f]
end
function event()
  local x = 0 for i = 1, 100 do x = x + i end
  if sysbench.opt.pause > 0 then ffi.C.usleep(sysbench.opt.pause) end
end
