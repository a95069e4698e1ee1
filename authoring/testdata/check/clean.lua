-- What check must accept: the shapes real scripts are written in, none a
-- defect. No finding.
local unpack = table.unpack or unpack
local ffi = require("ffi")
require("table.new")
local opt = sysbench.opt

sysbench.cmdline.options = {
  ["table-size"] = {"rows per table", 100},
  skip_trx = {"run without BEGIN/COMMIT", false},
  tables = {"number of tables", 2},
}

ffi.cdef[[int usleep(unsigned int);]]

local stmts, params = {}, {}

function thread_init(tid)
  drv = sysbench.sql.driver()
  con = drv:connect()
  for i = 1, opt.tables do
    stmts[i] = con:prepare(string.format("SELECT c FROM sbtest%d WHERE id = ?", i))
    params[i] = {stmts[i]:bind_create(sysbench.sql.type.INT)}
    stmts[i]:bind_param(unpack(params[i]))
  end
  local reserved = table.new(4, 0)
  reserved[1] = tid
end

local function pick()
  return stmts[sysbench.rand.uniform(1, opt.tables)]
end

function event(tid)
  if not opt.skip_trx then
    con:query("BEGIN")
  end
  pick():execute(sysbench.rand.default(1, opt.table_size))
  local a, b = con:query_row("SELECT 1, 2")
  if type(on_event) == "function" then
    on_event(a, b)
  end
  if not opt.skip_trx then
    con:query("COMMIT")
  end
  if jit and jit.status then
    ffi.C.usleep(1)
  end
end

function sysbench.hooks.report_intermediate(stat)
  if sysbench.opt.threads > 1 then
    sysbench.report_csv(stat)
  else
    sysbench.report_default(stat)
  end
end

function thread_done()
  for _, s in ipairs(stmts) do
    s:close()
  end
  con:disconnect()
end
