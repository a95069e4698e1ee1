-- A syntax error: LuaJIT's words, at the token it names.
function event()
  local n = sysbench.rand.uniform(1, 10)
  if n > 5
    print(n)
  end
end
