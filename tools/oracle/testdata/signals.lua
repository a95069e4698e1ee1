-- Waits where --wait-in says (event or thread_init), or in the 'wait'
-- command, sleeping in short steps, for a signal to end it.
ffi.cdef("int usleep(unsigned int);")

sysbench.cmdline.options = {
  ["wait-in"] = {"where to wait: event or thread_init", "event"},
}

sysbench.cmdline.commands = {
  wait = {function()
    print("waiting")
    for _ = 1, 6000 do ffi.C.usleep(10000) end
  end},
}

function thread_init()
  if sysbench.opt.wait_in == "thread_init" then
    if sysbench.tid == 0 then print("waiting") end
    for _ = 1, 6000 do ffi.C.usleep(10000) end
  end
end

function event()
  ffi.C.usleep(10000)
end
