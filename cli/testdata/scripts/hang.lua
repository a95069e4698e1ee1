-- Events that never end on their own: a run of it ends by --forced-shutdown.
-- A Lua loop that waits in a command nothing can cancel (an empty loop
-- would do the same, spinning a core until the shutdown).
function event()
  while true do os.execute("sleep 0.2") end
end
