-- Captured loop locals are closed at the end of each iteration and on break.
local fs = {}
for i = 1, 3 do
  local v = i
  fs[i] = function() return v end
  if v == 2 then break end
end
