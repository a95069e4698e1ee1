-- A small transaction per event that prepares its statement on the spot,
-- for faults_test.go: a connection killed under it (or a server restarted)
-- is found lost by a query, a prepare or an execute, whichever comes next.
-- The run ends when the test sets sbgo_fault_ctl.stop: event() returns
-- true then.
function prepare()
  local con = sysbench.sql.driver():connect()
  con:query("DROP TABLE IF EXISTS sbgo_fault_rows")
  con:query("DROP TABLE IF EXISTS sbgo_fault_ctl")
  con:query("CREATE TABLE sbgo_fault_rows (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)")
  con:query("CREATE TABLE sbgo_fault_ctl (id INTEGER PRIMARY KEY, stop INTEGER NOT NULL)")
  for i = 1, 10 do
    con:query(string.format("INSERT INTO sbgo_fault_rows (id, v) VALUES (%d, 0)", i))
  end
  con:query("INSERT INTO sbgo_fault_ctl (id, stop) VALUES (1, 0)")
  con:disconnect()
end

local con

function thread_init()
  con = sysbench.sql.driver():connect()
end

function event()
  con:query("BEGIN")
  local st = con:prepare("UPDATE sbgo_fault_rows SET v = v + 1 WHERE id = ?")
  local p = st:bind_create(sysbench.sql.type.INT)
  st:bind_param(p)
  p:set(sysbench.rand.uniform(1, 10))
  st:execute()
  st:close()
  local stop = con:query_row("SELECT stop FROM sbgo_fault_ctl WHERE id = 1")
  con:query("COMMIT")
  return tonumber(stop) == 1
end

function thread_done()
  con:disconnect()
end
