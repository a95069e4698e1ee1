-- A main chunk that never ends, even when its inner loop is stopped by an
-- error that a pcall catches.
sysbench.cmdline.options = {never_declared = {"the chunk never ends", 1}}
while true do
  pcall(function() while true do end end)
end
