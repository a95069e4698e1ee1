-- Prints draws from every distribution in each thread's thread_init (a
-- fixed number per thread, whatever the events), for --rand-seed tests.
function thread_init(tid)
  for _ = 1, 8 do
    print(string.format("t%d %d %d %d %d %s", tid, sysbench.rand.uniform(1, 1000000),
      sysbench.rand.default(1, 1000), sysbench.rand.gaussian(1, 1000),
      sysbench.rand.pareto(1, 1000), sysbench.rand.string("###@@@")))
  end
end
function event() end
