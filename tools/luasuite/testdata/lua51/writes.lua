-- Writes next to itself, as attrib.lua writes libs/.
local f = assert(io.open("written.txt", "w"))
f:write("x")
f:close()
