# The OpenSBI QEMU ships (-bios default) with an S-mode payload
# (tests/programs/baremetal/sbi.c, --kernel): the reset ROM, OpenSBI's
# boot and its SBI calls, S-mode timer and software interrupts, U-mode.
# The code image the capture writes (--code-out) must equal OpenSBI's
# firmware and the payload byte for byte (only the 24-byte reset ROM is in
# no file), the stream must pass `rvtrace check --ecall trap` against it,
# and the traps the payload saw must be among the trace's.
#   opensbi.sh SYSMODE_CHECK SYSMODE_CODECMP
source "$(dirname "$0")/lib.sh"
syscheck=${1:?usage: opensbi.sh SYSMODE_CHECK SYSMODE_CODECMP}
codecmp=${2:?}
need_qemu
fw=/usr/share/qemu/opensbi-riscv64-generic-fw_dynamic.bin
[ -f "$fw" ] || skip "$fw not installed (qemu-system-data)"
prog=$(program sbi64)
sys_capture "$WORK/sbi.ing" --bios default --kernel "$prog" --stdout "$WORK/sbi.out" --code-out "$WORK/code.elf" \
    >"$WORK/summary.txt"
cat "$WORK/summary.txt"
grep -q '^DONE sbi ticks=4 soft=1 u=107' "$WORK/sbi.out" || fail "the payload did not finish: $(tail -3 "$WORK/sbi.out")"
grep -q '^OpenSBI v' "$WORK/sbi.out" || fail "no OpenSBI banner"

"$codecmp" "$WORK/code.elf" "$prog" "0x80000000:$fw" >"$WORK/cmp.txt" ||
    { cat "$WORK/cmp.txt"; fail "the captured code differs from OpenSBI and the payload"; }
cat "$WORK/cmp.txt"
grep -v '^sysmode_codecmp:\|^compared ' "$WORK/cmp.txt" | grep -qv '^outside 0x1000-0x1018$' &&
    fail "code outside OpenSBI, the payload and the reset ROM"
check "$WORK/code.elf" "$WORK/sbi.ing"

"$syscheck" --subset "$WORK/sbi.out" "$WORK/sbi.ing" >"$WORK/sc.txt" ||
    { cat "$WORK/sc.txt"; fail "the payload's traps are not in the trace"; }
cat "$WORK/sc.txt"
grep -q '^hart 0: .* 10 printed traps matched .* levels U S M$' "$WORK/sc.txt" || fail "expected the payload's 10 traps and U, S and M"
out=$WORK/sbi.out
expect_trap "$out" 'i=1 c=5 .*from=S to=S' 4   # S timer (Sstc, set through SBI)
expect_trap "$out" 'i=1 c=1 .*from=S to=S'     # S software interrupt from an SBI IPI
expect_trap "$out" 'i=0 c=8 .*from=U to=S' 2   # ecall from U (delegated by OpenSBI)
expect_trap "$out" 'i=0 c=3 .*from=U to=S'     # breakpoint (delegated)
expect_trap "$out" 'i=0 c=2 .*from=U to=S'     # illegal instruction, redirected by OpenSBI
# OpenSBI's own: SBI calls (ecall from S) and the IPI it turns into SSIP.
grep -q 'exception causes 2,3,8,9; interrupt causes 1,3,5$' "$WORK/summary.txt" ||
    fail "expected ecalls from S to OpenSBI and its machine software interrupt"

# Two harts: OpenSBI starts the payload on its boot hart; the other stays in
# OpenSBI (M-mode, waiting in wfi).
sys_capture "$WORK/sbi2.ing" --bios default --kernel "$prog" --smp 2 --stdout "$WORK/sbi2.out" \
    --code-out "$WORK/code2.elf" >"$WORK/summary2.txt"
cat "$WORK/summary2.txt"
grep -q '^DONE sbi ticks=4 soft=1 u=107' "$WORK/sbi2.out" || fail "the payload did not finish on two harts"
check "$WORK/code2.elf" "$WORK/sbi2.ing.hart0"
check "$WORK/code2.elf" "$WORK/sbi2.ing.hart1"
grep -q '^  hart 1: [1-9][0-9]* instructions, .* levels M$' "$WORK/summary2.txt" || fail "hart 1 should run OpenSBI only"
echo "OpenSBI payload: checked"
