do --- never ends
  while true do end
end
