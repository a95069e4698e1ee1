-- A stall of 3 seconds in the middle of a run (the 5th event of 10, as a
-- table locked under the workload would make it): an outage to anyone
-- watching, nothing a plain sysbench command line prints.
ffi.cdef("int usleep(unsigned int);")

local events = 0

function event()
  events = events + 1
  if events == 5 then
    ffi.C.usleep(3000000)
  else
    ffi.C.usleep(10000)
  end
end
