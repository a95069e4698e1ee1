-- apicost.lua: one operation of the general Lua API, 100 times per event,
-- for counting what it costs (docs/performance-history.md, run 9). APICOST names
-- the operation; run it under callgrind for two event counts and divide
-- the difference by the difference of events and by 100:
--
--   for n in 2000 6000; do APICOST=tget GODEBUG=asyncpreemptoff=1 \
--     valgrind --tool=callgrind bin/sysbench-go scripts/apicost.lua \
--     --mysql-dry-run --threads=1 --events=$n --time=0 run; done
--
-- The same under the reference (without GODEBUG) counts LuaJIT's cost.
local what = os.getenv("APICOST") or "empty"

function thread_init()
	drv = sysbench.sql.driver()
	con = drv:connect()
	stmt = con:prepare("SELECT c FROM sbtest1 WHERE id=?")
	p = stmt:bind_create(sysbench.sql.type.INT)
	stmt:bind_param(p)
	t = {a = {b = 1}}
end

local ops = {
	empty = function() end,
	tget = function() for _ = 1, 100 do local x = t.a.b end end,
	optget = function() for _ = 1, 100 do local x = sysbench.opt.threads end end,
	lcall = function() local f = function(a, b) return a end for _ = 1, 100 do local x = f(1, 2) end end,
	gocall = function() local r = sysbench.rand.default for _ = 1, 100 do local x = r(1, 1000) end end,
	rand = function() for _ = 1, 100 do local x = sysbench.rand.default(1, 1000) end end,
	set = function() for _ = 1, 100 do p:set(5) end end,
	execute = function() for _ = 1, 100 do stmt:execute() end end,
}

event = ops[what] or error("APICOST: no operation " .. what)
