-- A prepared statement with literals in its text, and the same statement
-- run as a query: --statement-stats lists the first as it was prepared,
-- the second with its literals made '?' (issue 28, item 5).

local prepared = "SELECT v + 100 FROM sbtest_literals WHERE id = ? AND 'abc' = 'abc'"

function prepare()
  local con = sysbench.sql.driver():connect()
  con:query("DROP TABLE IF EXISTS sbtest_literals")
  con:query("CREATE TABLE sbtest_literals (id INTEGER PRIMARY KEY, v INTEGER)")
  con:query("INSERT INTO sbtest_literals (id, v) VALUES (1, 5)")
end

function cleanup()
  sysbench.sql.driver():connect():query("DROP TABLE IF EXISTS sbtest_literals")
end

function thread_init()
  con = sysbench.sql.driver():connect()
  stmt = con:prepare(prepared)
  param = stmt:bind_create(sysbench.sql.type.INT)
  stmt:bind_param(param)
end

function event()
  param:set(1)
  stmt:execute()
  con:query("SELECT v + 100 FROM sbtest_literals WHERE id = 1 AND 'abc' = 'abc'")
end

function thread_done()
  stmt:close()
  con:disconnect()
end
