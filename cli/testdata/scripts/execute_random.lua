-- stmt:execute_random against the Lua loop it replaces: run with
-- --mode=go and --mode=lua under the same --rand-seed, the rows and the
-- draws that follow must be the same.
sysbench.cmdline.options = {
  mode = {"go: stmt:execute_random, lua: the equivalent Lua loop", "go"},
}
local con, tbl, one, two, p1, p2, q1, q2
-- the list form: one of these is picked per call, the row's b tells which
local picks, pick_param = {}, {}
function thread_init()
  con = sysbench.sql.driver():connect()
  tbl = "sbgo_er_" .. sysbench.tid
  con:query("DROP TABLE IF EXISTS " .. tbl)
  con:query("CREATE TABLE " .. tbl .. " (a INTEGER, b INTEGER)")
  one = con:prepare("INSERT INTO " .. tbl .. " (a) VALUES (?)")
  p1 = one:bind_create(sysbench.sql.type.INT)
  one:bind_param(p1)
  two = con:prepare("INSERT INTO " .. tbl .. " (a, b) VALUES (?, ?)")
  q1, q2 = two:bind_create(sysbench.sql.type.INT), two:bind_create(sysbench.sql.type.INT)
  two:bind_param(q1, q2)
  for i = 1, 3 do
    local s = con:prepare("INSERT INTO " .. tbl .. " (a, b) VALUES (?, " .. i .. ")")
    pick_param[i] = s:bind_create(sysbench.sql.type.INT)
    s:bind_param(pick_param[i])
    picks[i] = s
  end
  local ok, err = pcall(con:prepare("SELECT 1").execute_random, con:prepare("SELECT 1"), 1, 1, 10)
  if ok or not tostring(err):find("bound parameter") then
    error("execute_random without parameters: " .. tostring(err))
  end
end
local draws = {}
function event()
  if sysbench.opt.mode == "go" then
    one:execute_random(3, 1, 1000)
    two:execute_random(2, 5, 50, 99)
    one.execute_random(picks, 2, 1000, 2000)
  else
    for _ = 1, 3 do
      p1:set(sysbench.rand.default(1, 1000))
      one:execute()
    end
    for _ = 1, 2 do
      local id = sysbench.rand.default(5, 50)
      q1:set(id)
      q2:set(id + 99)
      two:execute()
    end
    local i = sysbench.rand.uniform(1, #picks)
    for _ = 1, 2 do
      pick_param[i]:set(sysbench.rand.default(1000, 2000))
      picks[i]:execute()
    end
  end
  draws[#draws + 1] = sysbench.rand.default(1, 1000000)
end
function thread_done()
  local rs = con:query("SELECT a, b FROM " .. tbl .. " ORDER BY a, b")
  local rows = {}
  for _ = 1, rs.nrows do
    local r = rs:fetch_row()
    rows[#rows + 1] = r[1] .. "/" .. tostring(r[2])
  end
  print("rows: " .. table.concat(rows, " "))
  print("draws: " .. table.concat(draws, " "))
  con:query("DROP TABLE " .. tbl)
end
