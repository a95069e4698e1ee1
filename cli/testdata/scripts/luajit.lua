-- LuaJIT's libraries as community scripts use them. Every line printed
-- starts with "LJ " so that a test can compare them with sysbench 1.0.20's.
local ffi = require("ffi")
local bit = require("bit")
local new = require("table.new")
local clear = require("table.clear")

ffi.cdef[[int usleep(unsigned int);]]

-- Drawn in every state's main chunk, before thread_init draws again.
local first = math.random()

local function out(...)
  print("LJ " .. table.concat({...}, " "))
end

function thread_init()
  out("random", string.format("%.17g %.17g %d", first, math.random(), math.random(1, 1000)))
  out("random wide", string.format("%.17g", math.random(0, 9223372036854775807)))
  math.randomseed(42)
  out("randomseed", math.random(1, 100), math.random(1, 100))
  -- NURand from sysbench-tpcc
  local A, x, y, C = 255, 0, 999, 123
  out("nurand", ((bit.bor(math.random(0, A), math.random(x, y)) + C) % (y - x + 1)) + x)
  out("bit", bit.tobit(0xffffffff), bit.tohex(-1), bit.bor(2^31, 1), bit.band(0xff, 0x0f, 7),
    bit.lshift(1, 33), bit.arshift(-256, 4), bit.bswap(0x12345678), bit.tohex(255, -4))
  out("jit", jit.version, jit.version_num, jit.os, jit.arch)
  local t = new(16, 4)
  for i = 1, 10 do t[i] = i end
  clear(t)
  t[#t + 1] = "x"
  out("table", #t, t[1], tostring(table.new == new), tostring(table.clear == clear))
  out("sizeof", ffi.sizeof("char"), ffi.sizeof("short"), ffi.sizeof("int"), ffi.sizeof("long"),
    ffi.sizeof("long long"), ffi.sizeof("float"), ffi.sizeof("double"), ffi.sizeof("void *"),
    ffi.sizeof("uint64_t"), ffi.sizeof("size_t"), ffi.sizeof("bool"), ffi.sizeof("char[16]"))
  local u64 = ffi.typeof("uint64_t")
  local big = u64(2^63) + u64(12345)
  out("cdata", tostring(big), tostring(ffi.new("int64_t", -5) * 3), tostring(big / 10),
    tostring(ffi.cast("uint64_t", -1)), tonumber(ffi.cast("uint32_t", -1)), tonumber(ffi.cast("int8_t", 200)),
    tostring(ffi.istype(u64, big)), tostring(ffi.istype("int64_t", big)), type(big))
  out("format", string.format("%d|%d|%x|%u|%5.2f|%.0f|%g|%s", 2^53, 2^63, 2^40, -1, 3.14159, 2.5, 1e20, 1e15),
    string.format("%d|%x", big, ffi.new("int64_t", -1)))
  local r = sysbench.rand.uniform_uint64()
  out("uint64", tostring(r), type(r), tostring(ffi.istype("uint64_t", r)), string.format("%u", r))
end

function event()
  ffi.C.usleep(1)
end
