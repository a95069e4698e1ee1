do --- band
  assert(bit.band(6, 3) == 2)
end
