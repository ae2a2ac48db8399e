# Reproducible captures: the same command gives the same streams, byte for
# byte (-icount shift=0,sleep=off: timer interrupts land on the same
# instruction), whether the plugin writes block entries in batches or one
# at a time (--flush-each: the trap placement does not depend on the
# batches), and a saved log replays to the same streams.  --max-insns
# stops at exactly that many instructions with consistent streams.
#   repro.sh
source "$(dirname "$0")/lib.sh"
need_qemu
timer=$(program timer64)
smp=$(program smp64)
for run in "timer:$timer:1" "smp:$smp:2"; do
    IFS=: read -r name prog harts <<<"$run"
    sys_capture "$WORK/$name-a.ing" --loader "$prog" --smp "$harts" --keep-log "$WORK/$name.log" -q
    sys_capture "$WORK/$name-b.ing" --loader "$prog" --smp "$harts" -q
    sys_capture "$WORK/$name-c.ing" --loader "$prog" --smp "$harts" --flush-each -q
    "$RVT_BIN" capture --system --replay-log "$WORK/$name.log" -o "$WORK/$name-d.ing" -q ||
        fail "replaying $name.log failed"
    for v in b c d; do
        cmp "$WORK/$name-a.ing" "$WORK/$name-$v.ing" || fail "$name: capture $v differs from the first"
        for h in $(seq 0 $((harts - 1))); do
            [ "$harts" = 1 ] || cmp "$WORK/$name-a.ing.hart$h" "$WORK/$name-$v.ing.hart$h" ||
                fail "$name: hart $h of capture $v differs"
        done
    done
    echo "$name: 4 identical captures ($(stat -c %s "$WORK/$name-a.ing") bytes)"
done

# --max-insns: exactly N instructions in all, each hart's stream consistent.
sys_capture "$WORK/m.ing" --loader "$smp" --smp 2 --max-insns 123457 >"$WORK/m.txt"
cat "$WORK/m.txt"
grep -q ': 123457 instructions,' "$WORK/m.txt" || fail "--max-insns 123457 did not stop there"
grep -q 'stopped at --max-insns 123457' "$WORK/m.txt" || fail "no stop note"
total=0
for h in 0 1; do
    n=$("$RVT_BIN" check --ecall trap --elf "$smp" --input "$WORK/m.ing.hart$h" | sed -n 's/.* records, \([0-9]*\) instructions.*/\1/p')
    [ -n "$n" ] || fail "hart $h of the --max-insns capture does not check"
    total=$((total + n))
done
[ "$total" = 123457 ] || fail "the per-hart streams hold $total instructions, not 123457"
sys_capture "$WORK/m2.ing" --loader "$smp" --smp 2 --max-insns 123457 -q
cmp "$WORK/m.ing" "$WORK/m2.ing" || fail "--max-insns captures differ"

# One record per instruction: the same instructions.
sys_capture "$WORK/p.ing" --loader "$timer" --per-insn -q
check "$timer" "$WORK/p.ing" >"$WORK/p.txt"
check "$timer" "$WORK/timer-a.ing" >"$WORK/a.txt"
[ "$(sed 's/.* records, //' "$WORK/p.txt")" = "$(sed 's/.* records, //' "$WORK/a.txt")" ] ||
    fail "--per-insn retires other instructions: $(cat "$WORK/p.txt") vs $(cat "$WORK/a.txt")"
echo "reproducible"
