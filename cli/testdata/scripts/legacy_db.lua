-- The 0.5-era SQL API (db_* globals) against a real database.
function thread_init(thread_id)
  db_connect()
  local tbl = "sbgo_legacy_" .. thread_id
  db_query("DROP TABLE IF EXISTS " .. tbl)
  db_query("CREATE TABLE " .. tbl .. " (id INTEGER PRIMARY KEY, v VARCHAR(20))")
  db_bulk_insert_init("INSERT INTO " .. tbl .. " (id, v) VALUES")
  for i = 1, 10 do db_bulk_insert_next("(" .. i .. ", 'x" .. i .. "')") end
  db_bulk_insert_done()
  params = {5}
  stmt = db_prepare("SELECT v FROM " .. tbl .. " WHERE id = ?")
  db_bind_param(stmt, params)
  table_name = tbl
  assert(DB_ERROR_NONE ~= nil and DB_ERROR_RESTART_TRANSACTION ~= nil and DB_ERROR_FAILED ~= nil)
end
function event(thread_id)
  params[1] = sb_rand(1, 10)   -- read at execute time, as the 0.5 API does
  local rs = db_execute(stmt)
  db_store_results(rs)
  local row = rs:fetch_row()
  assert(row[1] == "x" .. params[1], "row " .. tostring(row[1]) .. " for id " .. params[1])
  db_free_results(rs)
end
function thread_done(thread_id)
  db_close(stmt)
  db_query("DROP TABLE " .. table_name)
  db_disconnect()
  print("legacy db ok " .. thread_id)
end
