-- Throughput that is low by construction for known stretches, paced by the
-- clock (os.time(), whole seconds; the tests run it on a fake one, whose
-- seconds pass only when the run waits) rather than by the length of
-- sleeps, so that a machine busy with other work does not change it: each
-- thread completes --pace events in every second of the clock, spread over
-- it, and a tenth of that in the slow seconds (the first --slow after
-- thread_init, and --dip-for from --dip-at). A thread that its sleeps made
-- late completes the rest of a second's events as the next begins.
--
-- thread_init returns half a second into a second of the clock, so the
-- run's report intervals end half-way through the clock's seconds, away
-- from the catching up: each interval holds a second's events.
sysbench.cmdline.options = {
  pace = {"events a second of each thread, outside the slow stretches", 200},
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

-- quota is how many events a thread completes in second e after thread_init.
local function quota(e)
  local o = sysbench.opt
  if e < o.slow or (o.dip_for > 0 and e >= o.dip_at and e < o.dip_at + o.dip_for) then
    return math.max(1, math.floor(o.pace / 10))
  end
  return o.pace
end

function thread_init()
  t0 = untilNextSecond(os.time())
  ffi.C.usleep(500000)
  -- Half of the first second is gone: so are half its events.
  second, done = t0, math.floor(quota(0) / 2)
end

function event()
  local now = os.time()
  if now ~= second then
    if now == second + 1 and done < quota(second - t0) then
      -- Late: the rest of the last second's events, at once.
      done = done + 1
      return
    end
    second, done = now, 0
  end
  local q = quota(second - t0)
  if done >= q then
    second, done = untilNextSecond(second), 0
    q = quota(second - t0)
  end
  done = done + 1
  -- A tenth of the second to spare for the sleeps' overshoot.
  ffi.C.usleep(math.floor(900000 / q))
end
