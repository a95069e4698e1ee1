-- nbody: a few bodies pulling on each other, stepped with a fixed time
-- step (velocities from all pairwise forces, then positions); prints the
-- total energy before and after. The bodies are made up.
-- Prints one checksum line; LUA_KERNEL_SCALE scales the work.
local scale = tonumber(os.getenv("LUA_KERNEL_SCALE") or "") or 1
local steps = math.max(1, math.floor(60000 * scale + 0.5))
local sqrt = math.sqrt

local G = 39.47841760435743 -- 4 pi^2: units of AU, years, solar masses
local bodies = {
	{ x = 0, y = 0, z = 0, vx = 0, vy = 0, vz = 0, m = 1.0 },
	{ x = 1.2, y = 0.1, z = -0.02, vx = -0.3, vy = 5.6, vz = 0.05, m = 2.1e-4 },
	{ x = -3.4, y = 2.2, z = 0.11, vx = -1.9, vy = -2.7, vz = 0.02, m = 7.5e-4 },
	{ x = 6.1, y = -4.9, z = -0.3, vx = 1.4, vy = 1.6, vz = -0.04, m = 3.3e-4 },
	{ x = -9.8, y = -7.5, z = 0.6, vx = 1.1, vy = -1.3, vz = 0.01, m = 4.4e-5 },
	{ x = 14.2, y = 3.3, z = -0.9, vx = -0.35, vy = 1.5, vz = 0.03, m = 5.2e-5 },
}
local n = #bodies

-- Give the central body the opposite momentum of the rest.
local px, py, pz = 0, 0, 0
for i = 2, n do
	local b = bodies[i]
	px, py, pz = px + b.vx * b.m, py + b.vy * b.m, pz + b.vz * b.m
end
bodies[1].vx, bodies[1].vy, bodies[1].vz = -px / bodies[1].m, -py / bodies[1].m, -pz / bodies[1].m

local function energy()
	local e = 0
	for i = 1, n do
		local a = bodies[i]
		e = e + 0.5 * a.m * (a.vx * a.vx + a.vy * a.vy + a.vz * a.vz)
		for j = i + 1, n do
			local b = bodies[j]
			local dx, dy, dz = a.x - b.x, a.y - b.y, a.z - b.z
			e = e - G * a.m * b.m / sqrt(dx * dx + dy * dy + dz * dz)
		end
	end
	return e
end

local function step(dt)
	for i = 1, n do
		local a = bodies[i]
		for j = i + 1, n do
			local b = bodies[j]
			local dx, dy, dz = a.x - b.x, a.y - b.y, a.z - b.z
			local d2 = dx * dx + dy * dy + dz * dz
			local mag = G * dt / (d2 * sqrt(d2))
			local am, bm = a.m * mag, b.m * mag
			a.vx, a.vy, a.vz = a.vx - dx * bm, a.vy - dy * bm, a.vz - dz * bm
			b.vx, b.vy, b.vz = b.vx + dx * am, b.vy + dy * am, b.vz + dz * am
		end
	end
	for i = 1, n do
		local a = bodies[i]
		a.x, a.y, a.z = a.x + dt * a.vx, a.y + dt * a.vy, a.z + dt * a.vz
	end
end

local before = energy()
for _ = 1, steps do step(0.001) end
print(string.format("nbody %.12f %.12f", before, energy()))
