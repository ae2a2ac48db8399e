# Interrupts (tests/programs/baremetal/timer.c) on RV64 and RV32: machine
# timer and software interrupts in M, S and U, wfi, the S-mode timer made
# by M (STIP through mideleg), the S software interrupt, an exception
# nested in an interrupt handler, vectored mtvec.  The capture passes
# `rvtrace check --ecall trap` and holds exactly the program's traps.
#   timer.sh SYSMODE_CHECK
source "$(dirname "$0")/lib.sh"
syscheck=${1:?usage: timer.sh SYSMODE_CHECK}
need_qemu
for xlen in 64 32; do
    prog=$(program timer$xlen)
    sys_capture "$WORK/t$xlen.ing" --loader "$prog" --stdout "$WORK/t$xlen.out"
    grep -q '^DONE .*s_ticks=6 m_soft=1 s_soft=1' "$WORK/t$xlen.out" ||
        fail "timer$xlen did not finish: $(tail -3 "$WORK/t$xlen.out")"
    check "$prog" "$WORK/t$xlen.ing"
    "$syscheck" --ordered --elf "$prog" "$WORK/t$xlen.out" "$WORK/t$xlen.ing" >"$WORK/sc.txt" ||
        { cat "$WORK/sc.txt"; fail "timer$xlen: the trace's traps differ from the program's"; }
    cat "$WORK/sc.txt"
    grep -q 'max depth 2, after wfi 3, levels U S M$' "$WORK/sc.txt" ||
        fail "timer$xlen: expected nesting, three interrupts right after wfi and all three levels"
    out=$WORK/t$xlen.out
    expect_trap "$out" 'i=1 c=7 .*from=M to=M' 5      # machine timer while computing, and after wfi
    expect_trap "$out" 'i=1 c=7 .*from=S to=M' 2      # machine timer while S runs
    expect_trap "$out" 'i=1 c=7 .*from=U to=M' 2      # ... and while U runs
    expect_trap "$out" 'i=1 c=3 .*from=M to=M'        # machine software interrupt
    expect_trap "$out" 'i=1 c=5 .*from=[SU] to=S' 6   # supervisor timer (STIP raised by M)
    expect_trap "$out" 'i=1 c=1 .*from=S to=S'        # supervisor software interrupt
    expect_trap "$out" 'i=0 c=2 .*from=M to=M'        # illegal instruction inside the timer handler
    expect_trap "$out" 'i=0 c=9 .*from=S to=M' 6      # the S timer handler asks M
    # Vectored mtvec: interrupts enter at base + 4 * cause, exceptions at base.
    base=$(grep -E -m1 '^TRAP .*i=0 .*to=M' "$out" | sed 's/.*handler=//')
    expect_trap "$out" "i=1 c=7 .*to=M handler=$(printf '%x' $((0x$base + 28)))" 5
    echo "timer$xlen: checked"
done
