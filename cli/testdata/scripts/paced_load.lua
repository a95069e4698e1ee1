-- A prepare that loads --rows rows into each of --tables tables (paced1,
-- paced2, ...) through bulk inserts, --batch rows at a time with a pause
-- of --pause ms after each batch, so that it lasts as long as a test needs
-- to watch its progress. It says its plan with sysbench.progress.expect
-- unless --plan=off. Thread t loads tables t+1, t+1+T, ...
sysbench.cmdline.options = {
  tables = {"tables to load", 2},
  rows = {"rows per table", 500},
  batch = {"rows per bulk insert", 50},
  pause = {"ms after each bulk insert", 100},
  plan = {"say the rows to load", true},
}
local ffi = require("ffi")
ffi.cdef("int usleep(unsigned int);")

local function load()
  local con = sysbench.sql.driver():connect()
  local o = sysbench.opt
  if o.plan then
    for i = 1, o.tables do
      sysbench.progress.expect("paced" .. i, o.rows)
    end
  end
  for i = sysbench.tid % o.threads + 1, o.tables, o.threads do
    local t = "paced" .. i
    print("Creating table '" .. t .. "'...")
    con:query("CREATE TABLE " .. t .. " (id INTEGER PRIMARY KEY, v INTEGER)")
    local id = 0
    while id < o.rows do
      con:bulk_insert_init("INSERT INTO " .. t .. " (id, v) VALUES")
      for _ = 1, math.min(o.batch, o.rows - id) do
        id = id + 1
        con:bulk_insert_next("(" .. id .. ", " .. id .. ")")
      end
      con:bulk_insert_done()
      ffi.C.usleep(o.pause * 1000)
    end
  end
  con:disconnect()
end

sysbench.cmdline.commands = {prepare = {load, sysbench.cmdline.PARALLEL_COMMAND}}
