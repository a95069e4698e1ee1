-- fasta: a weighted random sequence from a Park-Miller generator wrapped in
-- lines, its complement through gsub with a table, and counts of 4-mers
-- (string keys) read back in sorted order.
-- Prints one checksum line; LUA_KERNEL_SCALE scales the work.
local scale = tonumber(os.getenv("LUA_KERNEL_SCALE") or "") or 1
local rounds = math.max(1, math.floor(18 * scale + 0.5))
local concat, sort, sub = table.concat, table.sort, string.sub

local seed = 20261201
local function uniform()
	seed = seed * 16807 % 2147483647
	return seed / 2147483647
end

local weights = { { "a", 0.29 }, { "c", 0.21 }, { "g", 0.2 }, { "t", 0.28 }, { "n", 0.02 } }
local cumulative = {}
do
	local acc = 0
	for i, w in ipairs(weights) do
		acc = acc + w[2]
		cumulative[i] = { w[1], acc }
	end
end
local complement = { a = "t", c = "g", g = "c", t = "a", n = "n" }

local function pick()
	local u = uniform()
	for i = 1, #cumulative do
		if u < cumulative[i][2] then return cumulative[i][1] end
	end
	return cumulative[#cumulative][1]
end

local sum, nlines, distinct = 0, 0, 0
for r = 1, rounds do
	local lines, buf = {}, {}
	for l = 1, 1000 do
		for i = 1, 60 do buf[i] = pick() end
		lines[l] = concat(buf)
	end
	nlines = nlines + #lines
	local counts = {}
	for l = 1, #lines do
		local line = lines[l]:gsub(".", complement)
		for i = 1, #line - 3 do
			local k = sub(line, i, i + 3)
			counts[k] = (counts[k] or 0) + 1
		end
	end
	local keys = {}
	for k in pairs(counts) do keys[#keys + 1] = k end
	sort(keys)
	distinct = distinct + #keys
	for i, k in ipairs(keys) do sum = (sum + i * counts[k]) % 1000000007 end
end
print(string.format("fasta %d %d %d", sum, nlines, distinct))
