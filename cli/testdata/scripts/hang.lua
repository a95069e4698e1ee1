-- Events that never end on their own: a run of it ends by --forced-shutdown.
function event()
  while true do end
end
