-- Arguments of the wrong kind, written as literals.
local con, stmt

function thread_init()
  con = sysbench.sql.driver():connect()
  stmt = con:prepare("SELECT c FROM t WHERE id = ?")
  stmt:bind_param(stmt:bind_create("INT"))
end

function event()
  stmt:execute(sysbench.rand.uniform("1", "a thousand"))
  con:query({"SELECT 1"})
  print(sysbench.rand.string(42), sysbench.rand.varstring(true, 10))
end
