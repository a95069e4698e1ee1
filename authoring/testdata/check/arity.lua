-- Calls of the API with the wrong number of arguments.
local con, stmt, h

function thread_init()
  con = sysbench.sql.driver():connect()
  stmt = con:prepare("SELECT c FROM t WHERE id = ?")
  stmt:bind_param(stmt:bind_create())
  h = sysbench.histogram.new(10, 1)
end

function event()
  local id = sysbench.rand.uniform(1)
  con:query()
  stmt:execute(id)
  h:update(sysbench.rand.default(1, 10, 100))
end
