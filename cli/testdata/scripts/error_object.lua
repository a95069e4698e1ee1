-- Raises an error object from the function --where names (init,
-- thread_init or event): --what=table raises {code = 7}, nil raises nil,
-- number raises 42. The reference prints "(not a string)" for a table or
-- nil, and "FILE:LINE: 42" for a number (error() gives it a position).
sysbench.cmdline.options = {
  where = {"init, thread_init or event", "event"},
  what = {"table, nil or number", "table"},
}

local function raise(where)
  if sysbench.opt.where ~= where then
    return
  end
  if sysbench.opt.what == "table" then
    error({code = 7})
  elseif sysbench.opt.what == "nil" then
    error(nil)
  else
    error(42)
  end
end

function init() raise("init") end
function thread_init() raise("thread_init") end
function event() raise("event") end
