-- oltp_read_write, with each thread appending "PID TID" (its process and
-- its sysbench.tid) to the file --tid-file names, so that the instances
-- of a distributed run can share one file and one set of options.
require("oltp_read_write")

sysbench.cmdline.options.tid_file = {"the file the threads append their process id and sysbench.tid to", ""}

local base_init = thread_init

function thread_init()
  base_init()
  local stat = assert(io.open("/proc/self/stat")):read("*l")
  local pid = stat:match("^(%d+)")
  local f = assert(io.open(sysbench.opt.tid_file, "a"))
  f:write(pid, " ", sysbench.tid, "\n")
  f:close()
end
