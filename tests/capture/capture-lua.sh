# Lua running a self-checking script (string hashing, table.sort, coroutines,
# patterns).  Two captures must be identical, which holds only because the
# build replaced Lua's clock-seeded string hash and sort pivot.
source "$(dirname "$0")/lib.sh"
lua=$(real_program lua)
script="$RVT_SRC/tests/capture/workload.lua"

capture "$WORK/a.ing" --stdout "$WORK/a.out" -- "$lua" "$script" 300
grep -q '^ok ' "$WORK/a.out" || fail "the Lua workload did not report ok: $(cat "$WORK/a.out")"
check "$lua" "$WORK/a.ing"

# The second run from another directory, with another environment and
# stack limit: capture isolates the program from all three.
(
    ulimit -s unlimited 2>/dev/null || ulimit -s 65536 2>/dev/null || true
    cd /
    export RVT_UNRELATED=1 LUA_INIT='print("not isolated")'
    capture "$WORK/b.ing" --stdout "$WORK/b.out" -- "$lua" "$script" 300
) || fail "second capture failed"
cmp "$WORK/a.out" "$WORK/b.out" || fail "the Lua workload printed different results"
cmp "$WORK/a.ing" "$WORK/b.ing" || fail "two captures of the same Lua run differ"
echo "lua: $CAPTURED_INSNS instructions, $(cat "$WORK/a.out"), reproducible, check passed"
