-- A workload whose threads query a table that nothing creates: its cells
-- fail at thread_init, after the driver's line that says why (compare's
-- failed-cell test).
sysbench.cmdline.options = {
   table = {"the table the threads query", "compare_missing"},
}

function thread_init()
   drv = sysbench.sql.driver()
   con = drv:connect()
   con:query("SELECT COUNT(*) FROM " .. sysbench.opt.table)
end

function event()
end
