-- numeric: integer loops with % and math.floor (Collatz chains, Euclid's
-- gcd, a sieve of Eratosthenes) and a float loop through math.*.
-- Prints one checksum line; LUA_KERNEL_SCALE scales the work.
local scale = tonumber(os.getenv("LUA_KERNEL_SCALE") or "") or 1
local rounds = math.max(1, math.floor(4 * scale + 0.5))
local floor, sqrt, sin, cos, abs, fmod = math.floor, math.sqrt, math.sin, math.cos, math.abs, math.fmod

local function chain(n)
	local len = 0
	while n ~= 1 do
		if n % 2 == 0 then n = n / 2 else n = 3 * n + 1 end
		len = len + 1
	end
	return len
end

local function gcd(a, b)
	-- not "a, b = b, a % b": gopher-lua's own compiler gets that wrong
	while b ~= 0 do
		local r = a % b
		a = b
		b = r
	end
	return a
end

local function sieve(n)
	local composite, count, sum = {}, 0, 0
	for i = 2, n do
		if not composite[i] then
			count = count + 1
			sum = (sum + i) % 1000003
			for j = i * i, n, i do composite[j] = true end
		end
	end
	return count, sum
end

local chains, longest, gsum, primes, psum, wave = 0, 0, 0, 0, 0, 0.0
for r = 1, rounds do
	for n = 1, 20000 do
		local len = chain(n + r)
		chains = chains + len
		if len > longest then longest = len end
	end
	for a = 1, 200 do
		for b = 1, 100 do gsum = gsum + gcd(a * 7 + r, b * 11 + 1) end
	end
	local c, s = sieve(100000)
	primes, psum = primes + c, (psum + s) % 1000003
	for i = 1, 100000 do
		local x = i * 0.001 + r
		wave = wave + sqrt(x) * sin(x) + abs(cos(x)) - floor(x) % 7 + fmod(i, 13)
	end
end
print(string.format("numeric %d %d %d %d %d %.6f", chains, longest, gsum, primes, psum, wave))
