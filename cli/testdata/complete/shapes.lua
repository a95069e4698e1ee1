-- Options declared in the shapes scripts use: a table constructor, fields
-- set one by one, a loop, and a table from a module beside the script.
ffi.cdef[[int usleep(unsigned int microseconds);]]
local base = 10LL

sysbench.cmdline.options = {
  literal_option = {"declared in the table constructor", tonumber(base)},
}
sysbench.cmdline.options.field_option = {"set as a field", "x"}
for _, name in ipairs({"loop_a", "loop_b"}) do
  sysbench.cmdline.options[name .. "_option"] = {"made in a loop: " .. name, false}
end
local common = require("shapes_common")
for name, decl in pairs(common.options) do
  sysbench.cmdline.options[name] = decl
end

sysbench.cmdline.commands = {
  seed = {function() print("seeding") end},
}
