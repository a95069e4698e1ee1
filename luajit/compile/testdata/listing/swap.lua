-- Multiple assignment: every value before any store, stores right to left.
local x, y = 1, 2
x, y = y, x
local t, i = {}, 1
t[i], i = i, 2
