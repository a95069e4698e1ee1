function thread_init() end
