-- An event that waits a quarter of a second and queries nothing: under the
-- test clock of TestLongRunConstantMemory a day of report intervals passes
-- in seconds of real time.
local ffi = require("ffi")
ffi.cdef("int usleep(unsigned int);")

function event()
  ffi.C.usleep(250000)
end
