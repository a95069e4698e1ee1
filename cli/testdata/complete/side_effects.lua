-- A script whose main chunk acts on the world: completion must not let
-- any of it happen. SIDE_EFFECTS_DIR names a directory the test watches;
-- the connection goes to --mysql-host/--mysql-port, a listener the test
-- holds. Each act is in a pcall so that the chunk goes on to its options.
local dir = assert(os.getenv("SIDE_EFFECTS_DIR"))

pcall(function()
  local f = io.open(dir .. "/written", "w")
  f:write("the main chunk ran\n")
  f:close()
end)
pcall(os.execute, "touch " .. dir .. "/executed")
pcall(os.remove, dir .. "/keep")
pcall(function()
  local con = sysbench.sql.driver("mysql"):connect()
  con:query("SELECT 1")
end)

sysbench.cmdline.options = {
  after_side_effects = {"declared after the refused calls", 1},
}
