-- A deterministic Lua workload for capture tests: tables with string keys
-- (hashing), pairs() iteration order, table.sort, closures, coroutines,
-- string patterns and formatting, integer and float arithmetic.  It checks
-- its own results and prints "ok" and a digest; any mismatch raises an error.
local N = tonumber(arg and arg[1]) or 300

local function lcg(seed)
  local x = seed
  return function()
    x = (x * 1103515245 + 12345) % 2147483648
    return x
  end
end

-- Word counts: string keys exercise the string hash (seeded by luai_makeseed).
local rnd = lcg(7)
local syllables = { "ka", "ri", "to", "sa", "ne", "mu", "lo", "pe", "zi", "vu" }
local counts, words = {}, {}
for i = 1, N do
  local w = {}
  for j = 1, 1 + rnd() % 3 do w[j] = syllables[1 + rnd() % #syllables] end
  local word = table.concat(w)
  if not counts[word] then words[#words + 1] = word end
  counts[word] = (counts[word] or 0) + 1
end
local total = 0
for _, c in pairs(counts) do total = total + c end
assert(total == N, "word counts do not add up")

-- Sort by count then name (l_randomizePivot picks the pivots).
table.sort(words, function(a, b)
  if counts[a] ~= counts[b] then return counts[a] > counts[b] end
  return a < b
end)
for i = 2, #words do
  local a, b = words[i - 1], words[i]
  assert(counts[a] > counts[b] or (counts[a] == counts[b] and a < b), "sort order broken")
end

-- Sieve of Eratosthenes and a float series.
local limit = N * 5
local composite, primes = {}, 0
for i = 2, limit do
  if not composite[i] then
    primes = primes + 1
    for j = i * i, limit, i do composite[j] = true end
  end
end
local pi = 0.0
for k = 0, N * 10 do pi = pi + (k % 2 == 0 and 4 or -4) / (2 * k + 1) end
assert(math.abs(pi - math.pi) < 1e-3, "series does not approach pi")

-- Coroutines: a generator of Fibonacci numbers modulo a prime.
local fib = coroutine.wrap(function()
  local a, b = 0, 1
  while true do
    coroutine.yield(a)
    a, b = b, (a + b) % 1000003
  end
end)
local fsum = 0
for _ = 1, N do fsum = (fsum + fib()) % 1000003 end

-- Strings: formatting, gsub with a function, pattern captures.
local parts = {}
for i = 1, 200 do parts[#parts + 1] = string.format("%05d:%x:%.3f", i, i * 37, i / 7) end
local text = table.concat(parts, ";")
local digits = 0
text:gsub("%d", function() digits = digits + 1 end)
local captured = 0
for a, b in text:gmatch("(%d+):(%x+)") do
  assert(tonumber(b, 16) == tonumber(a) * 37, "capture mismatch")
  captured = captured + 1
end
assert(captured == 200, "gmatch missed records")

-- Digest of everything, so a wrong result shows in the output as well.
local h = 0
for i, w in ipairs(words) do
  for c in w:gmatch(".") do h = (h * 31 + c:byte() + i) % 4294967291 end
end
print(string.format("ok words=%d top=%s primes=%d fib=%d digits=%d digest=%08x",
  #words, words[1], primes, fsum, digits, h))
