-- calls: Lua-to-Lua calls and recursion, closures over shared upvalues,
-- methods through a metatable's __index, varargs with select and unpack,
-- higher-order functions, and pcall with an occasional error.
-- Prints one checksum line; LUA_KERNEL_SCALE scales the work.
local scale = tonumber(os.getenv("LUA_KERNEL_SCALE") or "") or 1
local rounds = math.max(1, math.floor(4 * scale + 0.5))
local select, unpack, pcall, error = select, unpack, pcall, error

local function fib(n)
	if n < 2 then return n end
	return fib(n - 1) + fib(n - 2)
end

local function counter(step)
	local n = 0
	return function() n = n + step; return n end, function() return n end
end

local Vec = {}
Vec.__index = Vec
function Vec.new(x, y) return setmetatable({ x = x, y = y }, Vec) end
function Vec:add(o) return Vec.new(self.x + o.x, self.y + o.y) end
function Vec:dot(o) return self.x * o.x + self.y * o.y end
function Vec:scaled(k) self.x, self.y = self.x * k % 1000, self.y * k % 1000; return self end

local function sum(...)
	local s = 0
	for i = 1, select("#", ...) do s = s + (select(i, ...)) end
	return s
end

local function pack(...) return { n = select("#", ...), ... } end

local function map(f, t)
	local out = {}
	for i = 1, #t do out[i] = f(t[i]) end
	return out
end

local function fold(f, acc, t)
	for i = 1, #t do acc = f(acc, t[i]) end
	return acc
end

local function risky(i)
	if i % 100 == 0 then error({ code = i }) end
	return i
end

local total, errors = 0, 0
for r = 1, rounds do
	total = total + fib(22 + r % 2)

	local incs, reads = {}, {}
	for i = 1, 50 do incs[i], reads[i] = counter(i) end
	for _ = 1, 800 do
		for i = 1, 50 do incs[i]() end
	end
	for i = 1, 50 do total = total + reads[i]() end

	local v = Vec.new(1, 2)
	for i = 1, 60000 do
		v = v:add(Vec.new(i % 7, i % 11)):scaled(3)
		total = total + v:dot(v) % 97
	end

	for i = 1, 30000 do
		local p = pack(i, i + 1, i + 2, i + 3)
		total = total + sum(unpack(p, 1, p.n)) % 1000
	end

	local xs = {}
	for i = 1, 2000 do xs[i] = i end
	for _ = 1, 10 do
		local ys = map(function(x) return x * 3 % 101 end, xs)
		total = total + fold(function(a, b) return (a + b) % 1000003 end, 0, ys)
	end

	for i = 1, 20000 do
		local ok, v2 = pcall(risky, i + r)
		if ok then total = total + v2 % 13 else errors = errors + v2.code % 7 end
	end
end
print(string.format("calls %d %d", total, errors))
