-- more_results / next_result over a multi-statement query.
function event()
  local con = sysbench.sql.driver():connect()
  local rs = con:query("SELECT 1; SELECT 2, 3")
  local first = rs:fetch_row()[1]
  assert(first == "1", "first result " .. tostring(first))
  assert(con:more_results(), "a second result is pending")
  local rs2 = con:next_result()
  local row = rs2:fetch_row()
  assert(row[1] == "2" and row[2] == "3" and rs2.nfields == 2, "second result")
  assert(not con:more_results(), "no third result")
  con:disconnect()
  print("multi ok")
  return true
end
