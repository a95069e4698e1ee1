-- A worker whose thread_done works past --time's bounds on events (a bulk
-- insert's last rows): it writes a row after --slow seconds of CPU
-- (os.clock: the process's, so a second of it is less with two workers).
sysbench.cmdline.options = {slow = {"seconds thread_done works", 3}}

function prepare()
   sysbench.sql.driver():connect():query("CREATE TABLE slow_done (tid INTEGER)")
end

function thread_init()
   con = sysbench.sql.driver():connect()
end

function event()
end

function thread_done()
   local t0 = os.clock()
   while os.clock() - t0 < sysbench.opt.slow do
   end
   con:query("INSERT INTO slow_done VALUES (" .. sysbench.tid .. ")")
end
