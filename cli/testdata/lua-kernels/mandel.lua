-- mandel: escape-time iteration over a grid of the complex plane, floats
-- only; counts the points that stay bounded and the iterations spent.
-- Prints one checksum line; LUA_KERNEL_SCALE scales the work.
local scale = tonumber(os.getenv("LUA_KERNEL_SCALE") or "") or 1
local size = math.max(16, math.floor(600 * math.sqrt(scale) + 0.5))
local limit = 50

local inside, iterations = 0, 0
for py = 0, size - 1 do
	local ci = 2.5 * py / size - 1.25
	for px = 0, size - 1 do
		local cr = 2.5 * px / size - 2.0
		local zr, zi, k = 0.0, 0.0, 0
		while k < limit do
			local zr2, zi2 = zr * zr, zi * zi
			if zr2 + zi2 > 4.0 then break end
			zi = 2.0 * zr * zi + ci
			zr = zr2 - zi2 + cr
			k = k + 1
		end
		iterations = iterations + k
		if k == limit then inside = inside + 1 end
	end
end
print(string.format("mandel %d %d %d", size, inside, iterations))
