-- An option declared and never read.
sysbench.cmdline.options = {
  table_size = {"rows in the table", 1000},
  ["skip-trx"] = {"run without BEGIN/COMMIT", false},
}

function event()
  print(sysbench.rand.uniform(1, sysbench.opt.table_size))
end
