# Several harts (tests/programs/baremetal/smp.c: hart 0 in M and U with its
# timer, the others in S and U with IPIs from hart 0, delegated illegal
# instructions and their own timers), RV64 with 2 and 3 harts, RV32 with 2.
# Every hart's stream passes `rvtrace check --ecall trap`; the merged
# stream holds each hart's records in order (the .hartN files) with the
# harts interleaved; each hart's traps are exactly those it saw.
#   smp.sh SYSMODE_CHECK
source "$(dirname "$0")/lib.sh"
syscheck=${1:?usage: smp.sh SYSMODE_CHECK}
need_qemu
for run in 64:2 64:3 32:2; do
    xlen=${run%:*} harts=${run#*:}
    prog=$(program smp$xlen)
    ing=$WORK/s$xlen-$harts.ing out=$WORK/s$xlen-$harts.out
    sys_capture "$ing" --loader "$prog" --smp "$harts" --stdout "$out"
    grep -q "^DONE harts=$harts " "$out" || fail "smp$xlen -smp $harts did not finish: $(tail -3 "$out")"
    for h in $(seq 0 $((harts - 1))); do
        [ -f "$ing.hart$h" ] || fail "no $ing.hart$h"
        check "$prog" "$ing.hart$h"
    done
    [ ! -e "$ing.hart$harts" ] || fail "a stream for a hart that does not exist"
    hart_files=()
    for h in $(seq 0 $((harts - 1))); do hart_files+=("$ing.hart$h"); done
    # Not --ordered: an IPI can preempt a worker's S handler before it notes its own trap.
    "$syscheck" "$out" "$ing" "${hart_files[@]}" >"$WORK/sc.txt" ||
        { cat "$WORK/sc.txt"; fail "smp$xlen -smp $harts: traps or per-hart streams differ"; }
    cat "$WORK/sc.txt"
    grep -q '^hart 0: .* levels U M$' "$WORK/sc.txt" || fail "hart 0 should run in U and M"
    for h in $(seq 1 $((harts - 1))); do
        grep -q "^hart $h: .* levels U S M\$" "$WORK/sc.txt" || fail "hart $h should run in U, S and M"
        expect_trap "$out" "h=$h i=1 c=3 .*to=M" 4        # the IPIs from hart 0
        expect_trap "$out" "h=$h i=1 c=7 .*to=M" 2        # its own timer
        expect_trap "$out" "h=$h i=0 c=2 .*from=S to=S" 2 # delegated illegal instructions
        expect_trap "$out" "h=$h i=0 c=8 .*from=U to=S" 2 # ecalls from U
    done
    expect_trap "$out" "h=0 i=1 c=7 .*from=U to=M" 2      # hart 0's timer in U
    expect_trap "$out" "h=0 i=1 c=3 .*to=M" $((4 * (harts - 1)))  # IPIs back from the others
    switches=$(sed -n 's/^hart switches //p' "$WORK/sc.txt")
    [ "$switches" -ge 4 ] || fail "the merged stream switches harts only $switches times"
    funnel_roundtrip "$prog" "$ing" "$harts"
    echo "smp$xlen -smp $harts: checked"
done
