-- tables: arrays grown and emptied, hash tables with string keys filled
-- and thinned during pairs, table.insert/remove as a queue, table.sort with
-- and without a comparator.
-- Prints one checksum line; LUA_KERNEL_SCALE scales the work.
local scale = tonumber(os.getenv("LUA_KERNEL_SCALE") or "") or 1
local rounds = math.max(1, math.floor(6 * scale + 0.5))
local insert, remove, sort = table.insert, table.remove, table.sort

local seed = 4242
local function rand(n)
	seed = seed * 16807 % 2147483647
	return seed % n
end

-- A total order (key, then id descending), so an unstable sort gives every
-- VM the same sequence.
local function byKeyThenId(x, y)
	if x.key ~= y.key then return x.key < y.key end
	return x.id > y.id
end

local sum, kept, queued = 0, 0, 0
for r = 1, rounds do
	local a = {}
	for i = 1, 30000 do a[i] = rand(100000) end
	sort(a)
	for i = 1, #a, 7 do sum = (sum + a[i] * i) % 1000000007 end

	local recs = {}
	for i = 1, 20000 do recs[#recs + 1] = { key = rand(500), id = i } end
	sort(recs, byKeyThenId)
	for i = 1, #recs, 5 do sum = (sum + recs[i].id * i) % 1000000007 end

	local h = {}
	for i = 1, 40000 do h["k" .. rand(15000)] = i end
	for k, v in pairs(h) do
		if v % 3 == 0 then h[k] = nil end
	end
	for _, v in pairs(h) do
		kept = kept + 1
		sum = (sum + v) % 1000000007
	end

	local q = {}
	for i = 1, 30000 do
		insert(q, i)
		while #q > 50 do queued = queued + remove(q, 1) end
		if i % 3 == 0 then insert(q, 1, -i) end
	end
	while #q > 0 do queued = queued + remove(q) end

	local grid = {}
	for y = 1, 100 do
		local row = {}
		for x = 1, 100 do row[x] = { x = x, y = y, v = (x * y + r) % 17 } end
		grid[y] = row
	end
	for y = 2, 99 do
		for x = 2, 99 do
			local c = grid[y][x]
			c.v = (c.v + grid[y - 1][x].v + grid[y + 1][x].v + grid[y][x - 1].v + grid[y][x + 1].v) % 1009
			sum = sum + c.v
		end
	end
end
print(string.format("tables %d %d %d", sum % 1000000007, kept, queued))
