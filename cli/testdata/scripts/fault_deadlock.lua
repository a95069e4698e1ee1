-- Deadlocks on purpose, for faults_test.go. Threads pair up (0-1, 2-3,
-- ...) on two rows of their own; in each event one thread of a pair
-- updates its rows in one order and the other in the opposite order,
-- inside BEGIN/COMMIT. In a thread's first event the partners meet,
-- through a counter on a second connection, while each holds its first
-- row, so that every pair deadlocks at least once whatever the timing;
-- later events run freely (--order=opposite) or all take the rows in one
-- order (--order=first: no more deadlocks, for PostgreSQL, which takes
-- deadlock_timeout, 1 s by default, to find each). The server picks a
-- victim, which the driver
-- reports as an ignorable error (MySQL 1213, PostgreSQL 40P01): the event
-- restarts and the run goes on.
sysbench.cmdline.options = {
  ["meet-timeout"] = {"seconds to wait for the partner in the first event", 20},
  order = {"opposite: every event in opposite orders; first: only the first", "opposite"},
}

local function pairs_count()
  return math.floor((sysbench.opt.threads + 1) / 2)
end

function prepare()
  local con = sysbench.sql.driver():connect()
  con:query("DROP TABLE IF EXISTS sbgo_fault_rows")
  con:query("DROP TABLE IF EXISTS sbgo_fault_meet")
  con:query("CREATE TABLE sbgo_fault_rows (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)")
  con:query("CREATE TABLE sbgo_fault_meet (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)")
  for p = 0, pairs_count() - 1 do
    con:query(string.format("INSERT INTO sbgo_fault_rows (id, v) VALUES (%d, 0), (%d, 0)", 2 * p + 1, 2 * p + 2))
    con:query(string.format("INSERT INTO sbgo_fault_meet (id, n) VALUES (%d, 0)", p))
  end
  con:disconnect()
end

function cleanup()
  local con = sysbench.sql.driver():connect()
  con:query("DROP TABLE IF EXISTS sbgo_fault_rows")
  con:query("DROP TABLE IF EXISTS sbgo_fault_meet")
  con:disconnect()
end

local con, side, pair, first, second
local met = false

function thread_init()
  local drv = sysbench.sql.driver()
  con = drv:connect()
  side = drv:connect()
  pair = math.floor(sysbench.tid / 2)
  first, second = 2 * pair + 1, 2 * pair + 2
  if sysbench.tid % 2 == 1 then
    first, second = second, first
  end
end

-- meet waits until both threads of the pair hold their first row. A
-- partner that never comes (it got no event at all) is not waited for
-- beyond --meet-timeout.
local function meet()
  side:query("UPDATE sbgo_fault_meet SET n = n + 1 WHERE id = " .. pair)
  local deadline = os.time() + sysbench.opt.meet_timeout
  while tonumber(side:query_row("SELECT n FROM sbgo_fault_meet WHERE id = " .. pair)) < 2 do
    if os.time() > deadline then
      print(string.format("thread %d: partner never came", sysbench.tid))
      return
    end
    ffi.C.usleep(1000)
  end
end

function event()
  con:query("BEGIN")
  local a, b = first, second
  if met and sysbench.opt.order == "first" then
    a, b = math.min(first, second), math.max(first, second)
  end
  con:query("UPDATE sbgo_fault_rows SET v = v + 1 WHERE id = " .. a)
  if not met then
    met = true -- the restarted event must not wait again
    meet()
  end
  con:query("UPDATE sbgo_fault_rows SET v = v + 1 WHERE id = " .. b)
  con:query("COMMIT")
end

function thread_done()
  side:disconnect()
  con:disconnect()
end
