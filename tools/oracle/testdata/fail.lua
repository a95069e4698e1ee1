-- Fails where --where says after --after events of thread 0: in event,
-- thread_done or done; in thread_init of every thread (the same message
-- from each); with a SQL error (sql: a query on a table that does not
-- exist); or in the parallel command parallel_fail, in every thread.
ffi.cdef("int usleep(unsigned int);")

sysbench.cmdline.options = {
  where = {"event, thread_init, thread_done, done or sql", "event"},
  after = {"events before the failure", 3},
}

sysbench.cmdline.commands = {
  parallel_fail = {function() error("the same failure in every thread") end, sysbench.cmdline.PARALLEL_COMMAND},
}

local events = 0
local con

function thread_init()
  if sysbench.opt.where == "thread_init" then
    error("the same failure in every thread")
  end
  if sysbench.opt.where == "sql" then
    con = sysbench.sql.driver():connect()
  end
end

function event()
  events = events + 1
  ffi.C.usleep(10000)
  if sysbench.tid ~= 0 or events <= sysbench.opt.after then
    return
  end
  if sysbench.opt.where == "event" then
    error("failed after " .. sysbench.opt.after .. " events")
  elseif sysbench.opt.where == "sql" then
    con:query("SELECT * FROM no_such_table")
  end
end

function thread_done()
  if sysbench.opt.where == "thread_done" and sysbench.tid == 0 then
    error("failed in thread_done")
  end
end

function done()
  if sysbench.opt.where == "done" then
    error("failed in done")
  end
end
