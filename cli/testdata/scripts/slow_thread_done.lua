-- A worker whose thread_done works past --time's bounds on events (a bulk
-- insert's last rows): a Lua loop that ends --slow seconds of the wall
-- clock after it began (os.time: whole seconds, so one less at worst),
-- then writes a row. The loop sleeps in short steps: it costs no CPU, and
-- a run that abandoned the thread would stop it between two steps.
sysbench.cmdline.options = {slow = {"seconds thread_done works", 3}}
local ffi = require("ffi")
ffi.cdef("int usleep(unsigned int);")

function prepare()
   sysbench.sql.driver():connect():query("CREATE TABLE slow_done (tid INTEGER)")
end

function thread_init()
   con = sysbench.sql.driver():connect()
end

function event()
end

function thread_done()
   local t0 = os.time()
   while os.time() - t0 < sysbench.opt.slow do
      ffi.C.usleep(10000)
   end
   con:query("INSERT INTO slow_done VALUES (" .. sysbench.tid .. ")")
end
