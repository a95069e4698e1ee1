-- A module a script requires for its options, as oltp_common.lua is.
local M = {}
M.options = {
  module_option = {"declared by a required module", 4, sysbench.cmdline.ARG_INT},
  mode = {"The mode: {fast,slow}", "fast"},
}
return M
