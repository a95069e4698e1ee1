-- Hooks misspelt: sysbench never calls them.
local con

function thread_inti()
  con = sysbench.sql.driver():connect()
end

function event()
  con:query("SELECT 1")
end

function sysbench.hooks.report_intermedate(stat)
  sysbench.report_default(stat)
end

sysbench.cmdline.option = {rows = {"rows", 10}}
