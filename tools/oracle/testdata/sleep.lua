-- An event that sleeps 10 ms: runs bound by --time that cost no CPU.
ffi.cdef("int usleep(unsigned int);")

function event()
  ffi.C.usleep(10000)
end
