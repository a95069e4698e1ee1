-- Draws from each distribution in thread_init, where a given --rand-seed
-- makes them the reference's, and prints them.
function thread_init()
  local out = {}
  for _ = 1, 3 do
    out[#out + 1] = sysbench.rand.default(1, 1000)
    out[#out + 1] = sysbench.rand.uniform(1, 1000)
    out[#out + 1] = sysbench.rand.gaussian(1, 1000)
    out[#out + 1] = sysbench.rand.special(1, 1000)
    out[#out + 1] = sysbench.rand.pareto(1, 1000)
  end
  print(table.concat(out, " "))
end

function event()
end
