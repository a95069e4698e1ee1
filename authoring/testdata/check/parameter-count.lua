-- Statements whose binds differ from their '?' placeholders.
local con, point, range, forgot

function thread_init()
  con = sysbench.sql.driver():connect()
  point = con:prepare("SELECT c FROM t WHERE id = ? AND k = ?")
  point:bind_param(point:bind_create(sysbench.sql.type.INT))
  range = con:prepare(string.format("SELECT c FROM t%d WHERE id BETWEEN ? AND ? -- '?'", 1))
  local lo, hi = range:bind_create(sysbench.sql.type.INT), range:bind_create(sysbench.sql.type.INT)
  range:bind_param(lo, hi)
  forgot = con:prepare("DELETE FROM t WHERE id = ?")
end

function event()
  point:execute()
  range:execute(1, 10, 100)
  forgot:execute()
end
