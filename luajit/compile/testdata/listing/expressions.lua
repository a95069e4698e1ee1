-- Conditions become jumps; values of and/or land in the target register.
local a, b = ...
local c = a and b or 0
local d = not (a == b) and a < 10
if a > b or c then c = -a end
local s = "n=" .. a .. "/" .. 1.5
local t = {1, 2, k = a, [b] = 3, ...}
print(#t, t.k, s:upper(), d)
