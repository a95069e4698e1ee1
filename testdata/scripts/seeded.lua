-- Prints draws from every distribution, per thread, for --rand-seed tests.
function event(tid)
  print(string.format("t%d %d %d %d %d %s", tid, sysbench.rand.uniform(1, 1000000),
    sysbench.rand.default(1, 1000), sysbench.rand.gaussian(1, 1000),
    sysbench.rand.pareto(1, 1000), sysbench.rand.string("###@@@")))
end
