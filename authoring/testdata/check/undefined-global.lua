-- Globals read and never defined: a local misspelt, a name no one
-- defines, and a declared option read as a global (options are globals
-- only in a script that declares none).
sysbench.cmdline.options = {
  rows = {"queries per event", 10},
  engine_variant = {"the engine's variant", "plain"},
}

local conn

function thread_init()
  conn = sysbench.sql.driver():connect()
end

function event()
  for i = 1, sysbench.opt.rows do
    con:query("SELECT 1")
  end
  print(total_rows)
  if engine_variant == "fast" then
    print("fast")
  end
  print(sysbench.opt.engine_variant)
end
