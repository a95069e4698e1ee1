function event()
  error("boom")
end
