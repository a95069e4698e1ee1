-- Connection models and the checks before a run (cli/connections_test.go):
-- each thread opens --conns connections and prepares --statements
-- statements on the first; each event queries every connection and runs
-- the first statement, so a connection renewed under it must still work.
-- With --hold, the first event of each thread waits until that file
-- exists: the test counts the server's sessions while the run holds them.
local ffi = require("ffi")
ffi.cdef [[int usleep(unsigned int usec);]]

sysbench.cmdline.options = {
   conns = {"connections each thread opens", 1},
   statements = {"statements each thread prepares in thread_init", 1},
   hold = {"the first event of each thread waits until this file exists", ""},
}

function thread_init()
   drv = sysbench.sql.driver()
   cons, stmts = {}, {}
   for i = 1, sysbench.opt.conns do
      cons[i] = drv:connect()
   end
   for i = 1, sysbench.opt.statements do
      stmts[i] = cons[1]:prepare("SELECT " .. i)
   end
   held = sysbench.opt.hold == ""
end

function event()
   while not held do
      local f = io.open(sysbench.opt.hold)
      if f then
         f:close()
         held = true
      else
         ffi.C.usleep(5000)
      end
   end
   for i = 1, #cons do
      cons[i]:query("SELECT 1")
   end
   if #stmts > 0 then
      local rs = stmts[1]:execute()
      if rs.nrows ~= 1 then
         error("the statement returned " .. rs.nrows .. " rows")
      end
   end
end

function thread_done()
   for i = 1, #cons do
      cons[i]:disconnect()
   end
end
