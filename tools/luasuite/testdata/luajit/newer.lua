do --- from a later LuaJIT
  error("deselected by its index line: never runs")
end
