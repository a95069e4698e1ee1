do --- writes a global !private_G
  written_by_a_test = 1
  assert(_G.written_by_a_test == 1)
  -- The real globals are the private copy's __index: untouched.
  assert(getmetatable(_G).__index.written_by_a_test == nil)
end

do --- sees the real globals
  assert(getmetatable(_G) == nil or getmetatable(_G).__index == nil)
end
