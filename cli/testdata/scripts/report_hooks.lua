-- Intermediate reports through the reference's CSV or JSON formatter.
sysbench.cmdline.options = { format = {"csv, json or default", "csv"} }
function init()
  local f = sysbench.opt.format
  sysbench.hooks.report_intermediate = sysbench["report_" .. f]
end
function event() local x = 0 for i = 1, 100 do x = x + i end end
