-- Misuse of sysbench.sql in one event, run by sql_test.go on each server.
-- Every line shows what a call returned or raised; the ALERT and FATAL
-- lines of the API and the driver come between them, as they are printed.
local function show(label, ...)
  local parts = {}
  for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
  print(label .. ": " .. table.concat(parts, " | "))
end

function event()
  show("driver, unknown name", pcall(sysbench.sql.driver, "no-such-driver"))
  show("driver, unknown name, from Lua", pcall(function() local d = sysbench.sql.driver("no-such-driver") end))
  local drv = sysbench.sql.driver()
  local con = drv:connect()
  show("types", type(drv), type(con), tostring(drv), tostring(con))

  -- a failed prepare on a connection without an earlier error
  show("prepare, no table", pcall(con.prepare, con, "SELECT * FROM sbgo_no_such_table"))
  show("prepare, no table, from Lua", pcall(function() local s = con:prepare("SELECT * FROM sbgo_no_such_table") end))

  con:query("DROP TABLE IF EXISTS sbgo_misuse")
  show("create", con:query("CREATE TABLE sbgo_misuse (a INT NOT NULL, b VARCHAR(10))"))
  show("query_row of a write", con:query_row("INSERT INTO sbgo_misuse VALUES (1, 'x')"))
  show("query_row of no rows", con:query_row("SELECT a FROM sbgo_misuse WHERE a > 100"))
  show("query_row", con:query_row("SELECT a, b FROM sbgo_misuse"))

  -- parameters
  local stmt = con:prepare("UPDATE sbgo_misuse SET a = a + ?")
  show("bind_create DATE", pcall(stmt.bind_create, stmt, sysbench.sql.type.DATE))
  show("bind_create DATE, from Lua", pcall(function() local p = stmt:bind_create(sysbench.sql.type.DATE) end))
  local p = stmt:bind_create(sysbench.sql.type.INT)
  show("bind_param()", stmt:bind_param())
  show("bind_param(p)", stmt:bind_param(p))
  show("set_rand_str on INT", pcall(p.set_rand_str, p, "###"))
  p:set(10)
  -- a connection has one result object, valid while the last query's
  -- result set is not freed: here a write has replaced it
  local sel = con:query("SELECT a FROM sbgo_misuse")
  local rs = stmt:execute()
  show("execute of a write", type(rs), tostring(rs))
  show("free", pcall(sel.free, sel))
  show("free again", pcall(sel.free, sel))
  show("fetch_row", sel:fetch_row())
  con:query("INSERT INTO sbgo_misuse VALUES (2, NULL)")
  rs = con:query("SELECT a, b FROM sbgo_misuse ORDER BY a")
  show("select", rs.nrows, rs.nfields)
  local row = rs:fetch_row()
  show("row 1", row[1], row[2])
  row = rs:fetch_row()
  show("row 2", row[1], row[2])
  show("past the end", rs:fetch_row())
  show("free", rs:free())
  show("after free", rs.nrows, rs.nfields)
  show("fetch_row after free", rs:fetch_row())
  show("free after free, from Lua", pcall(function() rs:free() end))
  rs = con:query("SELECT a FROM sbgo_misuse WHERE a > 100")
  show("empty select", rs.nrows, rs.nfields)
  show("fetch_row of no rows", rs:fetch_row())
  show("fetch_row of no rows again", rs:fetch_row())
  rs = con:query("SELECT a FROM sbgo_misuse")
  con:query("UPDATE sbgo_misuse SET b = 'y'")
  show("fetch_row after another query", rs:fetch_row())

  -- bulk inserts
  show("bulk_insert_next before init", pcall(function() con:bulk_insert_next("(9, 'z')") end))
  show("bulk_insert_init, too long", pcall(con.bulk_insert_init, con, string.rep("x", 600 * 1024)))
  show("bulk_insert_init", con:bulk_insert_init("INSERT INTO sbgo_misuse VALUES"))
  show("bulk_insert_next, too long", pcall(function() con:bulk_insert_next(string.rep("y", 600 * 1024)) end))
  show("bulk_insert_next", con:bulk_insert_next("(3, 'b')"))
  show("bulk_insert_done", con:bulk_insert_done())
  show("bulk rows", con:query_row("SELECT COUNT(*) FROM sbgo_misuse"))

  -- SQL errors and the error hook
  show("fatal error", pcall(con.query, con, "INSERT INTO sbgo_misuse VALUES (NULL, 'n')"))
  show("fatal error, from Lua", pcall(function() con:query("INSERT INTO sbgo_misuse VALUES (NULL, 'n')") end))
  show("fatal error in query_row", pcall(function() con:query_row("INSERT INTO sbgo_misuse VALUES (NULL, 'm')") end))
  if drv:name() == "mysql" then con:query("SET sql_mode = 'STRICT_TRANS_TABLES'") end
  local s = con:prepare("INSERT INTO sbgo_misuse VALUES (?, 'p')")
  local v = s:bind_create(sysbench.sql.type.INT)
  s:bind_param(v)
  v:set(2 ^ 40)
  show("fatal error of a statement", pcall(function() s:execute() end))
  -- (a table: gopher-lua detaches a closure's upvalues from the enclosing
  -- function's locals when an error is raised)
  local verdict = {ignore = false}
  sysbench.hooks.sql_error_ignorable = function(e)
    show("hook", type(e.connection), tostring(e.connection), e.query, e.sql_errno, e.sql_state, e.sql_errmsg)
    return verdict.ignore
  end
  show("error the hook refuses", pcall(function() con:query("INSERT INTO sbgo_misuse VALUES (NULL, 'h')") end))
  verdict.ignore = true
  local ok, e = pcall(function() con:query("INSERT INTO sbgo_misuse VALUES (NULL, 'i')") end)
  show("error the hook ignores", ok, type(e), e.errcode, e.sql_state)
  sysbench.hooks.sql_error_ignorable = nil

  -- PostgreSQL says it cannot reconnect (sysbench 1.0.20 crashes on
  -- MariaDB 10.11 here, so MySQL's reconnect is tested elsewhere)
  if drv:name() == "pgsql" then
    show("reconnect", con:reconnect())
    show("after reconnect", con:query_row("SELECT COUNT(*) FROM sbgo_misuse"))
  end

  -- a closed connection
  con:query("DROP TABLE sbgo_misuse")
  rs = con:query("SELECT 1")
  local s2 = con:prepare("SELECT 1")
  show("disconnect", con:disconnect())
  show("query", pcall(con.query, con, "SELECT 1"))
  show("query, from Lua", pcall(function() con:query("SELECT 1") end))
  show("query_row, from Lua", pcall(function() con:query_row("SELECT 1") end))
  show("prepare, from Lua", pcall(function() local s = con:prepare("SELECT 1") end))
  show("execute, from Lua", pcall(function() s2:execute() end))
  show("execute", pcall(s2.execute, s2))
  show("bind_param", s2:bind_param(p))
  show("close", s2:close())
  show("fetch_row", rs:fetch_row())
  show("free", pcall(rs.free, rs))
  show("bulk_insert_init", con:bulk_insert_init("INSERT INTO t VALUES"))
  show("bulk_insert_next", con:bulk_insert_next("(1)"))
  show("bulk_insert_done", con:bulk_insert_done())
  show("disconnect again", con:disconnect())
end
