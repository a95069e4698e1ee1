-- A main chunk that fails after declaring its options.
sysbench.cmdline.options = {never_read = {"the chunk fails", 1}}
error("the main chunk fails")
