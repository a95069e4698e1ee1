-- Sends a query with a syntax error from event(), for faults_test.go:
-- --how=query runs it as text, --how=prepare prepares and executes it.
sysbench.cmdline.options = {
  how = {"query or prepare", "query"},
}

local con

function thread_init()
  con = sysbench.sql.driver():connect()
end

function event()
  if sysbench.opt.how == "prepare" then
    local st = con:prepare("SELEC id FROM nowhere WHERE id = ?")
    local p = st:bind_create(sysbench.sql.type.INT)
    st:bind_param(p)
    p:set(1)
    st:execute()
  else
    con:query("SELEC 1")
  end
end

function thread_done()
  con:disconnect()
end
