-- A backward goto leaving captured locals closes them; continue lands at the end.
local fs = {}
do
  local i = 1
  ::again::
  local v = i
  fs[i] = function() return v end
  i = i + 1
  if i <= 3 then goto again end
end
for j = 1, 2 do
  if j == 1 then goto continue end
  print(j)
  ::continue::
end
