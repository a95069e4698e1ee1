-- Every event inserts a row whose key is already there: each try ends in
-- a duplicate-key error, which --mysql-ignore-errors=1062 (MariaDB) or
-- PostgreSQL's default list (23505) makes ignorable, so the event restarts
-- for ever. A run of it must still end at its --time.
function prepare()
  local con = sysbench.sql.driver():connect()
  con:query("CREATE TABLE dup_key (id INT PRIMARY KEY)")
  con:query("INSERT INTO dup_key VALUES (1)")
end

function cleanup()
  sysbench.sql.driver():connect():query("DROP TABLE IF EXISTS dup_key")
end

local con

function thread_init()
  con = sysbench.sql.driver():connect()
end

function event()
  con:query("INSERT INTO dup_key VALUES (1)")
end
