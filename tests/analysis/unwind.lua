-- Lua's error handling is longjmp: error() unwinds every C frame between
-- the raise and the pcall (luaD_throw -> longjmp -> luaD_rawrunprotected),
-- and a coroutine yield is a longjmp too.  This script raises and catches
-- errors at many depths, through C functions (string.gsub, table.sort),
-- and yields across pcall; it checks its results and prints "ok".
local N = tonumber(arg and arg[1]) or 150

local function deep(n, v)
  if n == 0 then
    if v % 3 == 0 then error({ code = v }) end
    return v
  end
  return deep(n - 1, v) + 1 -- not a tail call: a Lua frame per level
end

local caught, sum = 0, 0
for i = 1, N do
  local ok, r = pcall(deep, i % 12, i)
  if ok then sum = sum + r else caught = caught + 1; sum = sum + r.code end
end

-- errors raised inside callbacks of C functions
for i = 1, N // 3 do
  local ok = pcall(string.gsub, "abcabcabc", "b", function(c)
    if i % 2 == 0 then error("gsub " .. i) end
    return c:upper()
  end)
  if not ok then caught = caught + 1 end
  local t = { 5, 3, 9, 1, 7 }
  ok = pcall(table.sort, t, function(a, b)
    if i % 5 == 0 and a == 9 then error("sort") end
    return a < b
  end)
  if not ok then caught = caught + 1 end
end

-- nested pcalls with errors rethrown outwards
local function layer(k, i)
  if k == 0 then error(i) end
  local ok, e = pcall(layer, k - 1, i)
  if not ok and k % 2 == 0 then error(e, 0) end
  return ok and 0 or e
end
for i = 1, N // 2 do
  local ok, e = pcall(layer, 1 + i % 6, i)
  sum = sum + (ok and e or 0)
end

-- coroutines: yields (longjmp out of the coroutine) across pcall
local co = coroutine.wrap(function()
  for i = 1, N do
    local ok = pcall(function()
      coroutine.yield(i)
      if i % 4 == 0 then error("co " .. i) end
    end)
    if not ok then caught = caught + 1 end
  end
  return 0
end)
for _ = 1, N do sum = sum + co() end

print(string.format("ok caught=%d sum=%d", caught, sum))
