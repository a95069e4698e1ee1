-- An option read that no one declares (one of the run's own, --threads,
-- is fine).
sysbench.cmdline.options = {
  table_size = {"rows in the table", 1000},
}

function event()
  local id = sysbench.rand.uniform(1, sysbench.opt.tabel_size)
  print(id, sysbench.opt.threads, sysbench.opt.table_size)
end

-- Options are read by their '_' names: this one is nil.
function thread_init()
  print(sysbench.opt["table-size"])
end
