# Synchronous exceptions, delegation, nested traps and U/S/M transitions
# (tests/programs/baremetal/traps.c) on RV64 and RV32: the capture passes
# `rvtrace check --ecall trap`, holds exactly the traps the program's
# handlers saw, in order (cause, epc, tval, handler address and level, the
# level it came from), and those include every kind the program makes.
#   traps.sh SYSMODE_CHECK
source "$(dirname "$0")/lib.sh"
syscheck=${1:?usage: traps.sh SYSMODE_CHECK}
need_qemu
for xlen in 64 32; do
    prog=$(program traps$xlen)
    sys_capture "$WORK/t$xlen.ing" --loader "$prog" --stdout "$WORK/t$xlen.out"
    grep -q '^DONE traps=27 sum=97' "$WORK/t$xlen.out" || fail "traps$xlen did not finish: $(tail -3 "$WORK/t$xlen.out")"
    check "$prog" "$WORK/t$xlen.ing"
    "$syscheck" --ordered "$WORK/t$xlen.out" "$WORK/t$xlen.ing" >"$WORK/sc.txt" ||
        { cat "$WORK/sc.txt"; fail "traps$xlen: the trace's traps differ from the program's"; }
    cat "$WORK/sc.txt"
    grep -q 'hart 0: .* 27 traps (0 interrupts), 27 printed traps matched .*max depth 2,.* levels U S M$' "$WORK/sc.txt" ||
        fail "traps$xlen: expected 27 exceptions, nesting and all three levels"
    out=$WORK/t$xlen.out
    expect_trap "$out" 'i=0 c=2 .*from=M to=M' 3      # illegal (32-bit, 16-bit, inside the ecall handler)
    expect_trap "$out" 'i=0 c=3 .*from=M to=M' 2      # ebreak, c.ebreak
    expect_trap "$out" 'i=0 c=5 .*from=M to=M'        # load access fault
    expect_trap "$out" 'i=0 c=7 .*from=M to=M'        # store access fault
    expect_trap "$out" 'i=0 c=4 .*from=M to=M' 2      # misaligned AMO and LR (QEMU 7.2 says cause 4)
    expect_trap "$out" 'i=0 c=11 .*from=M to=M' 2     # ecall from M
    expect_trap "$out" 'i=0 c=2 .*from=S to=S'        # delegated: illegal in S
    expect_trap "$out" 'i=0 c=3 .*from=S to=S'        # delegated: c.ebreak in S
    expect_trap "$out" 'i=0 c=5 .*from=S to=S'        # delegated: load fault in S
    expect_trap "$out" 'i=0 c=9 .*from=S to=M' 3      # ecall from S
    expect_trap "$out" 'i=0 c=8 .*from=U to=S' 3      # delegated ecall from U
    expect_trap "$out" 'i=0 c=2 .*from=U to=S' 2      # S CSR and wfi in U
    expect_trap "$out" 'i=0 c=7 .*from=U to=S'        # store fault in U
    expect_trap "$out" 'i=0 c=8 .*from=U to=M' 2      # ecall from U, not delegated
    expect_trap "$out" 'i=0 c=2 .*from=U to=M'        # c.unimp in U, not delegated
    echo "traps$xlen: checked"
done
