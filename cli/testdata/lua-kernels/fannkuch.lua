-- fannkuch: every permutation of 1..n (Heap's algorithm); for each, the
-- number of prefix reversals until 1 comes first; prints the most flips
-- and a weighted sum of them.
-- Prints one checksum line; LUA_KERNEL_SCALE scales the work.
local scale = tonumber(os.getenv("LUA_KERNEL_SCALE") or "") or 1
local rounds = math.max(1, math.floor(12 * scale + 0.5))
local n = 8

local function flips(p, work)
	for i = 1, n do work[i] = p[i] end
	local count = 0
	local first = work[1]
	while first ~= 1 do
		local lo, hi = 1, first
		while lo < hi do
			work[lo], work[hi] = work[hi], work[lo]
			lo, hi = lo + 1, hi - 1
		end
		count = count + 1
		first = work[1]
	end
	return count
end

local most, weighted, perms = 0, 0, 0
for r = 1, rounds do
	local p, c, work = {}, {}, {}
	for i = 1, n do
		p[i] = (i + r - 2) % n + 1
		c[i] = 1
	end
	local function visit()
		local f = flips(p, work)
		perms = perms + 1
		if f > most then most = f end
		weighted = (weighted + f * (perms % 13 + 1)) % 1000000007
	end
	visit()
	local i = 1
	while i <= n do
		if c[i] < i then
			local j = (i % 2 == 1) and 1 or c[i]
			p[j], p[i] = p[i], p[j]
			visit()
			c[i] = c[i] + 1
			i = 1
		else
			c[i] = 1
			i = i + 1
		end
	end
end
print(string.format("fannkuch %d %d %d", most, weighted, perms))
