-- Throughput that is low by construction for known stretches, paced by the
-- wall clock (os.time(), whole seconds since thread_init, which waits for
-- the start of a second) rather than by a
-- count of sleeps, so that a machine busy with other work does not change
-- it: in every second each thread completes --pace events, spread over the
-- first half of the second, then waits for the next second. In the slow
-- seconds (the first --slow, and --dip-for from --dip-at) it completes a
-- tenth of that. Any one-second window then holds one second's worth,
-- however it lies across the clock's seconds, as long as the thread gets
-- the CPU for a few milliseconds in each second.
sysbench.cmdline.options = {
  pace = {"events a second of each thread, outside the slow stretches", 50},
  slow = {"seconds after thread_init that events are slow", 0},
  ["dip-at"] = {"seconds after thread_init at which a slow stretch begins", 0},
  ["dip-for"] = {"seconds the slow stretch lasts (0: none)", 0},
}
local ffi = require("ffi")
ffi.cdef("int usleep(unsigned int);")
local t0, second, done

-- untilNextSecond waits for the clock's next second and returns it.
local function untilNextSecond(now)
  while os.time() == now do
    ffi.C.usleep(2000)
  end
  return os.time()
end

function thread_init()
  -- From the start of a second: the run's seconds are the clock's, and
  -- the first has its whole quota.
  t0 = untilNextSecond(os.time())
  second, done = t0, 0
end

-- quota is how many events a thread completes in second e after thread_init.
local function quota(e)
  local o = sysbench.opt
  if e < o.slow or (o.dip_for > 0 and e >= o.dip_at and e < o.dip_at + o.dip_for) then
    return math.max(1, math.floor(o.pace / 10))
  end
  return o.pace
end

function event()
  local now = os.time()
  if now ~= second then
    second, done = now, 0
  end
  local q = quota(second - t0)
  if done >= q then
    -- This second's events are done: this one is the next second's.
    second, done = untilNextSecond(second), 0
    q = quota(second - t0)
  end
  done = done + 1
  ffi.C.usleep(math.floor(500000 / q))
end
