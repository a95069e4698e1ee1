-- An event that waits --wait µs on average (a uniform draw from half to
-- one and a half of it) and queries nothing. On the fake clock of
-- runSimulated its latencies and throughput are the script's own: the
-- rounds of a load differ by their --rand-seed alone, whatever else the
-- machine runs, and twice the wait is half the rate.
sysbench.cmdline.options = {wait = {"mean µs an event waits", 200}}
local ffi = require("ffi")
ffi.cdef("int usleep(unsigned int);")

function event()
  local w = sysbench.opt.wait
  ffi.C.usleep(sysbench.rand.uniform(w / 2, w * 3 / 2))
end
