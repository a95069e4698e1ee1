-- What --trace shows of an event: a query and its row, a prepared
-- statement with the value bound to it and its row, a failed query (its
-- error caught); thread_init's prepare before the events.
local con, stmt, p

function thread_init()
  con = sysbench.sql.driver():connect()
  stmt = con:prepare("SELECT ? + 1")
  p = stmt:bind_create(sysbench.sql.type.INT)
  stmt:bind_param(p)
end

function event()
  con:query("SELECT 1")
  p:set(41)
  local rs = stmt:execute()
  local row = rs:fetch_row()
  assert(sysbench.opt.db_dry_run or tonumber(row[1]) == 42, "the row the script reads is the one traced")
  pcall(con.query, con, "SELECT no_such_column FROM no_such_table")
end

function thread_done()
  stmt:close()
  con:disconnect()
end
