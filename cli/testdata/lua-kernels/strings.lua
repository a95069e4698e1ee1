-- strings: string.format with several conversions, concatenation with ..
-- and table.concat, and string.byte/char/sub/rep/lower/upper/find/gsub/gmatch.
-- Prints one checksum line; LUA_KERNEL_SCALE scales the work.
local scale = tonumber(os.getenv("LUA_KERNEL_SCALE") or "") or 1
local rounds = math.max(1, math.floor(56 * scale + 0.5))
local format, byte, char, sub, rep = string.format, string.byte, string.char, string.sub, string.rep
local concat = table.concat

-- A polynomial hash of every third byte, kept below 2^53 so all VMs agree.
local function hash(s, h)
	for i = 1, #s, 3 do h = (h * 31 + byte(s, i)) % 2147483647 end
	return h
end

-- Batches of 2000: gopher-lua's default registry holds ~5000 values, and
-- table.concat pushes each piece and separator onto it.
local batch = 2000
local h, vowels, found, total = 7, 0, 0, 0
for r = 1, rounds do
	local lines = {}
	for i = 1, batch do
		local name = "item" .. (i % 97)
		lines[i] = format("%05d|%-8s|%8.3f|%x|%s|%3d%%", i, name, (i + r) / 7, i * 13, i % 3 == 0 and "yes" or "no", i % 100)
	end
	local text = concat(lines, "\n")
	total = total + #text
	h = hash(text, h)

	local s = ""
	for j = 1, 400 do s = s .. char(65 + (j * r) % 26) end
	h = hash(s:lower() .. rep(sub(s, 10, 20), 5), h)

	-- gsub word by word: gopher-lua's gsub copies the whole subject once
	-- per match, so one gsub over the joined text would time only that.
	local words, stripped = {}, {}
	for i = 1, batch do
		local word = sub(lines[i], 7, 14):upper() .. tostring(i)
		local n
		words[i] = word
		stripped[i], n = word:gsub("[AEIOU]", "")
		vowels = vowels + n
	end
	local joined = concat(words, " ")
	h = hash(concat(stripped), h)
	local at = 1
	while true do
		local b, e = joined:find("ITEM1", at, true)
		if not b then break end
		found = found + 1
		at = e + 1
	end
	for digits in joined:gmatch("%u+(%d+)") do found = found + #digits end
end
print(format("strings %d %d %d %d", h, vowels, found, total))
