-- Integers of every width, doubles and decimals through bulk_insert, built
-- as community scripts build them: math.random(...) .. "," (LuaJIT's
-- %.14g, so 64-bit draws arrive in exponent form). The same rows also go
-- in one INSERT each through con:query, and (sysbench-go only) through
-- bulk_insert_next's pieces; each table is then printed, to be compared.

local tables = {"bw_bulk", "bw_plain", "bw_pieces"}
local cols = " (id, b, i, s, d, n, r, z) VALUES"

function prepare()
   local drv = sysbench.sql.driver()
   local con = drv:connect()
   for _, t in ipairs(tables) do
      con:query("DROP TABLE IF EXISTS " .. t)
      con:query("CREATE TABLE " .. t .. " (id INTEGER PRIMARY KEY, b BIGINT, i INTEGER, s SMALLINT," ..
                " d DOUBLE PRECISION, n NUMERIC(30,5), r DOUBLE PRECISION, z DOUBLE PRECISION)")
   end
   local vals = {}
   for j = 1, 300 do
      vals[j] = {j, math.random(-4611686018427387904, 4611686018427387903),
                 math.random(-2147483648, 2147483647), math.random(-32768, 32767),
                 math.random(-4611686018427387904, 4611686018427387903),
                 math.random(-1000000, 1000000) / 7, math.random(), -0.0}
   end
   local function row(v)
      return "(" .. table.concat(v, ",") .. ")"
   end
   con:bulk_insert_init("INSERT INTO bw_bulk" .. cols)
   for _, v in ipairs(vals) do
      con:bulk_insert_next(row(v))
   end
   con:bulk_insert_done()
   for _, v in ipairs(vals) do
      con:query("INSERT INTO bw_plain" .. cols .. " " .. row(v))
   end
   if sysbench.event_plan then -- sysbench-go: the pieces form
      con:bulk_insert_init("INSERT INTO bw_pieces" .. cols)
      for _, v in ipairs(vals) do
         con:bulk_insert_next("(", v[1], ",", v[2], ",", v[3], ",", v[4], ",", v[5], ",", v[6], ",", v[7], ",", v[8], ")")
      end
      con:bulk_insert_done()
   end
   for _, t in ipairs(tables) do
      local rs = con:query("SELECT id, b, i, s, d, n, r, z FROM " .. t .. " ORDER BY id")
      for _ = 1, rs.nrows do
         print("row " .. t:sub(4) .. " " .. table.concat(rs:fetch_row(), " ", 1, 8))
      end
   end
   print("example " .. row(vals[1]))
   con:disconnect()
end
