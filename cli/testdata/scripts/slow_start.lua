-- Throughput that is low by construction for known stretches, timed by the
-- run's own clock (seconds since thread_init): events sleep 20 ms for the
-- first --slow seconds and for --dip-for seconds from --dip-at, 2 ms
-- otherwise (about a tenth of the throughput when slow).
sysbench.cmdline.options = {
  slow = {"seconds after thread_init that events are slow", 0},
  ["dip-at"] = {"seconds after thread_init at which a slow stretch begins", 0},
  ["dip-for"] = {"seconds the slow stretch lasts (0: none)", 0},
}
local ffi = require("ffi")
ffi.cdef("int usleep(unsigned int);")
local t0

function thread_init()
  t0 = os.time()
end

function event()
  local e = os.time() - t0
  local o = sysbench.opt
  if e < o.slow or (o.dip_for > 0 and e >= o.dip_at and e < o.dip_at + o.dip_for) then
    ffi.C.usleep(20000)
  else
    ffi.C.usleep(2000)
  end
end
