-- bintrees: complete binary trees built as nested tables and walked, many
-- short-lived and one long-lived: allocation and the garbage collector.
-- Prints one checksum line; LUA_KERNEL_SCALE scales the work.
local scale = tonumber(os.getenv("LUA_KERNEL_SCALE") or "") or 1
local rounds = math.max(1, math.floor(12 * scale + 0.5))

local function build(depth, label)
	if depth == 0 then return { label } end
	return { label, build(depth - 1, 2 * label), build(depth - 1, 2 * label + 1) }
end

local function walk(node)
	if not node[2] then return 1, node[1] % 1009 end
	local ln, ls = walk(node[2])
	local rn, rs = walk(node[3])
	return 1 + ln + rn, (node[1] + ls + rs) % 1000003
end

local maxDepth = 14
local keep = build(maxDepth, 1)
local nodes, sum = 0, 0
for r = 1, rounds do
	for depth = 4, maxDepth, 2 do
		for k = 1, 2 ^ (maxDepth - depth) do
			local cn, cs = walk(build(depth, k + r))
			nodes = nodes + cn
			sum = (sum + cs) % 1000003
		end
	end
end
local kn, ks = walk(keep)
print(string.format("bintrees %d %d %d %d", nodes, sum, kn, ks))
