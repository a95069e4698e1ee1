-- A statement parameter is a table, as the reference's: its type, its
-- max_len, "<sql_param>" when printed; misused, its methods fail in Lua.
function thread_init()
  local con = sysbench.sql.driver():connect()
  local st = con:prepare("SELECT ?")
  local p = st:bind_create(sysbench.sql.type.INT)
  local s = st:bind_create(sysbench.sql.type.VARCHAR, 10)
  print("param", type(p), tostring(p), p.type == sysbench.sql.type.BIGINT, p.max_len,
    s.type == sysbench.sql.type.VARCHAR, s.max_len)
  st:bind_param(p, s)
  p:set(42)
  s:set_rand_str("###")
  st:execute()
  print("without self", (pcall(p.set, 5)))
  print("bind something else", (pcall(st.bind_param, st, {})))
end
function event() end
