-- spectral: the largest singular value of an infinite matrix with entries
-- 1/((i+j)(i+j+1)/2+i+1), truncated to n x n, by power iteration on A'A.
-- Prints one checksum line; LUA_KERNEL_SCALE scales the work.
local scale = tonumber(os.getenv("LUA_KERNEL_SCALE") or "") or 1
local n = math.max(10, math.floor(300 * math.sqrt(scale) + 0.5))
local sqrt = math.sqrt

local function entry(i, j) -- 0-based
	local s = i + j
	return 1 / (s * (s + 1) / 2 + i + 1)
end

local function times(v, out, transposed)
	for i = 0, n - 1 do
		local acc = 0
		for j = 0, n - 1 do
			if transposed then
				acc = acc + entry(j, i) * v[j + 1]
			else
				acc = acc + entry(i, j) * v[j + 1]
			end
		end
		out[i + 1] = acc
	end
end

local function normalTimes(v, out, tmp)
	times(v, tmp, false)
	times(tmp, out, true)
end

local u, v, tmp = {}, {}, {}
for i = 1, n do u[i] = 1 end
for _ = 1, 10 do
	normalTimes(u, v, tmp)
	normalTimes(v, u, tmp)
end
local uv, vv = 0, 0
for i = 1, n do
	uv = uv + u[i] * v[i]
	vv = vv + v[i] * v[i]
end
print(string.format("spectral %d %.9f", n, sqrt(uv / vv)))
