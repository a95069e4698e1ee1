-- Numeric loops take numeric strings (x - 0 before FORPREP); generic loops call their generator.
local n = "3"
for i = 1, n do end
for i = n, 1, -1 do end
for k, v in pairs({}) do print(k, v) end
local i = 0
repeat local j = i; i = i + 1 until j > 2
while i > 0 do i = i - 1 end
