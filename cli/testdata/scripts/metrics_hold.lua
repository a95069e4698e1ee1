-- One SELECT per event; thread_done waits for the file --release names,
-- so that a test reads the metrics of a run whose events are all done
-- before the run ends.
sysbench.cmdline.options = {
  release = {"a file whose creation lets thread_done end", ""},
}

local ffi = require("ffi")
ffi.cdef("int usleep(unsigned int);")

function thread_init()
  drv = sysbench.sql.driver()
  con = drv:connect()
end

function event()
  con:query("SELECT 1")
end

function thread_done()
  while true do
    local f = io.open(sysbench.opt.release, "r")
    if f then
      f:close()
      break
    end
    ffi.C.usleep(2000)
  end
  con:disconnect()
end
