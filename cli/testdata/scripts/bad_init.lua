function thread_init()
  error("init failed here")
end
function event() end
