-- Exercises sysbench.sql from Lua; every check raises on failure.
local function check(c, msg) if not c then error("check failed: " .. msg, 2) end end
local drv, con, tbl
function thread_init()
  drv = sysbench.sql.driver()
  check(drv:name() == sysbench.opt.db_driver, "driver name " .. drv:name())
  con = drv:connect()
  tbl = "sbgo_api_" .. sysbench.tid
  con:query("DROP TABLE IF EXISTS " .. tbl)
  con:query("CREATE TABLE " .. tbl .. " (id INTEGER PRIMARY KEY, v VARCHAR(20), f DOUBLE PRECISION)")
  -- bulk insert
  con:bulk_insert_init("INSERT INTO " .. tbl .. " (id, v, f) VALUES")
  for i = 1, 100 do con:bulk_insert_next(string.format("(%d, 'v%d', %d.5)", i, i, i)) end
  con:bulk_insert_done()
  local n = con:query_row("SELECT COUNT(*) FROM " .. tbl)
  check(tonumber(n) == 100, "bulk insert count " .. tostring(n))
  -- result API
  local rs = con:query("SELECT id, v FROM " .. tbl .. " WHERE id <= 3 ORDER BY id")
  check(rs.nrows == 3, "nrows " .. rs.nrows)
  check(rs.nfields == 2, "nfields " .. rs.nfields)
  local row = rs:fetch_row()
  check(row[1] == "1" and row[2] == "v1", "first row")
  rs:free()
  -- NULLs come back as nil
  con:query("INSERT INTO " .. tbl .. " (id, v, f) VALUES (1000, NULL, NULL)")
  local a, b = con:query_row("SELECT id, v FROM " .. tbl .. " WHERE id = 1000")
  check(a == "1000" and b == nil, "NULL as nil")
  -- prepared statements and params
  local st = con:prepare("SELECT v FROM " .. tbl .. " WHERE id = ?")
  local p = st:bind_create(sysbench.sql.type.INT)
  st:bind_param(p)
  p:set(42)
  local r2 = st:execute()
  check(r2:fetch_row()[1] == "v42", "prepared select")
  st:close()
  local ins = con:prepare("INSERT INTO " .. tbl .. " (id, v, f) VALUES (?, ?, ?)")
  local pi, pv, pf = ins:bind_create(sysbench.sql.type.INT), ins:bind_create(sysbench.sql.type.VARCHAR, 20), ins:bind_create(sysbench.sql.type.DOUBLE)
  ins:bind_param(pi, pv, pf)
  pi:set(2000); pv:set_rand_str("###-@@@"); pf:set(1.25)
  ins:execute()
  local v, f = con:query_row("SELECT v, f FROM " .. tbl .. " WHERE id = 2000")
  check(v and v:match("^%d%d%d%-%l%l%l$"), "set_rand_str value " .. tostring(v))
  check(tonumber(f) == 1.25, "double param " .. tostring(f))
  dup = ins
  dup_id = pi
  -- a failing bulk insert fails as the reference's, ignorable or not (it
  -- is counted as an error), and the connection's buffer can be used again
  local prefix = "INSERT INTO " .. tbl .. " (id, v, f) VALUES"
  con:bulk_insert_init(prefix)
  con:bulk_insert_next("(1, 'dup', 1)")
  local ok, e = pcall(con.bulk_insert_done, con)
  check(not ok and e == "db_bulk_insert_done() failed", "bulk insert duplicate: " .. tostring(e))
  con:bulk_insert_init(prefix)
  con:bulk_insert_next("(3000, 'xxxxxxxxxx', 3)")
  con:bulk_insert_done()
  check(con:query_row("SELECT v FROM " .. tbl .. " WHERE id = 3000") == "xxxxxxxxxx", "bulk insert after a failed one")
  -- bulk_insert_next(pieces...) joins its arguments as Lua's .. would
  con:bulk_insert_init(prefix)
  con:bulk_insert_next("(", 4000, ", 'w", 7, "', ", 2.5, ")")
  con:bulk_insert_done()
  local bv, bf = con:query_row("SELECT v, f FROM " .. tbl .. " WHERE id = 4000")
  check(bv == "w7" and tonumber(bf) == 2.5, "bulk_insert_next pieces: " .. tostring(bv) .. " " .. tostring(bf))
  -- bulk inserts flush at the driver's batch size (MySQL: under 256 KiB)
  -- and take a single row up to the reference's 512 KiB, not beyond
  local big = tbl .. "_big"
  con:query("DROP TABLE IF EXISTS " .. big)
  local text = drv:name() == "mysql" and "MEDIUMTEXT" or "TEXT" -- MySQL's TEXT stops at 64 KiB
  con:query("CREATE TABLE " .. big .. " (id INTEGER PRIMARY KEY, t " .. text .. ")")
  local pad = string.rep("x", 200)
  con:bulk_insert_init("INSERT INTO " .. big .. " (id, t) VALUES")
  for i = 1, 3000 do con:bulk_insert_next("(", i, ", '", pad, "')") end
  con:bulk_insert_next("(", 5000, ", '", string.rep("y", 300 * 1024), "')")
  con:bulk_insert_done()
  local cnt, total = con:query_row("SELECT COUNT(*), SUM(LENGTH(t)) FROM " .. big)
  check(tonumber(cnt) == 3001 and tonumber(total) == 3000 * 200 + 300 * 1024,
        "large bulk insert: " .. tostring(cnt) .. " rows, " .. tostring(total) .. " bytes")
  con:bulk_insert_init("INSERT INTO " .. big .. " (id, t) VALUES")
  local okb, eb = pcall(con.bulk_insert_next, con, "(6000, '" .. string.rep("z", 512 * 1024) .. "')")
  check(not okb and eb == "db_bulk_insert_next() failed", "row over 512 KiB: " .. tostring(eb))
  con:bulk_insert_done()
  con:query("DROP TABLE " .. big)
  -- a fatal SQL error is a Lua error with the reference's wording
  local ok, err = pcall(con.query, con, "SELEC nonsense")
  check(not ok and tostring(err):find("SQL error, errno = ") ~= nil, "fatal error wording: " .. tostring(err))
  con:reconnect()
  check(con:query_row("SELECT 1") == "1", "after reconnect")
end
local restarted = 0
sysbench.hooks.before_restart_event = function(e)
  check(e.sql_state ~= nil and e.sql_errmsg ~= nil, "error descriptor")
  restarted = restarted + 1
end
local attempt = 0
function event()
  attempt = attempt + 1
  if attempt % 2 == 1 then
    -- a duplicate key: ignorable on every driver, restarts the event
    -- (MySQL's 1062 is made ignorable with --mysql-ignore-errors)
    dup_id:set(1)
    dup:execute()
  end
end
function thread_done()
  con:query("DROP TABLE " .. tbl)
  con:disconnect()
  print("sql api ok")
end
