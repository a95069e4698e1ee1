-- A 0.5-era script: no option declarations, options arrive as globals.
function thread_init(thread_id)
  assert(my_custom_option == "xyz", "global option: " .. tostring(my_custom_option))
  assert(type(sb_rand(1, 10)) == "number")
  assert(#sb_rand_str("##") == 2)
end
function event(thread_id) end
