-- Names the API does not have: a function of sysbench.rand, of the
-- string library, a method of a connection, a type constant.
local con, stmt

function thread_init()
  con = sysbench.sql.driver():connect()
  stmt = con:prepare("SELECT c FROM t WHERE id = ?")
  local p = stmt:bind_create(sysbench.sql.type.INTEGR)
  stmt:bind_param(p)
end

function event()
  local id = sysbench.rand.unifrom(1, 1000)
  con:querry(string.formt("SELECT %d", id))
  stmt:execute(id)
end
