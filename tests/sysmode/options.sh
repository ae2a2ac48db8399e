# The system-mode command line: usage errors, a guest that reports failure
# (its trace is still written), a guest that never ends (--timeout), and a
# QEMU that is killed (no final counts: the capture fails, nothing is left).
#   options.sh
source "$(dirname "$0")/lib.sh"
need_qemu
need riscv64-unknown-elf-gcc
traps=$(program traps64)

expect_fail 2 'needs something to run' "$RVT_BIN" capture --system -o "$WORK/x.ing"
expect_fail 2 'user-mode options' "$RVT_BIN" capture --system --mem --loader "$traps" -o "$WORK/x.ing"
expect_fail 2 'is a system-mode option: add --system' "$RVT_BIN" capture --smp 2 -o "$WORK/x.ing" -- "$traps"
expect_fail 2 '--smp 0: expected a number from 1 to 64' "$RVT_BIN" capture --system --smp 0 --loader "$traps"
expect_fail 2 'exclude each other' "$RVT_BIN" capture --system --loader "$traps" --kernel "$traps"
expect_fail 2 'takes no program argument' "$RVT_BIN" capture --system --loader "$traps" "$traps"
expect_fail 2 'QEMU options do not apply' "$RVT_BIN" capture --system --replay-log /dev/null --smp 2
expect_fail 1 'nonexistent.elf: No such file' "$RVT_BIN" capture --system --loader "$WORK/nonexistent.elf" -o "$WORK/x.ing"
echo "not an ELF" >"$WORK/text"
expect_fail 1 'not a little-endian RISC-V ELF' "$RVT_BIN" capture --system --loader "$WORK/text" -o "$WORK/x.ing"
"$RVT_BIN" capture --help | grep -q -- '--replay-log FILE' || fail "--help does not describe system mode"

# A guest that reports failure through the test finisher: exit status 1, trace kept.
cat >"$WORK/fail3.S" <<'ASM'
    .globl _start
_start:
    li t0, 0x100000
    li t1, (3 << 16) | 0x3333
    sw t1, 0(t0)
1:  j 1b
ASM
riscv64-unknown-elf-gcc -march=rv64imac_zicsr -mabi=lp64 -nostdlib -nostartfiles -Wl,-Ttext=0x80000000 \
    -o "$WORK/fail3" "$WORK/fail3.S"
expect_fail 1 'the guest ended with QEMU exit status 3 \(trace written' \
    "$RVT_BIN" capture --system --loader "$WORK/fail3" -o "$WORK/fail3.ing"
check "$WORK/fail3" "$WORK/fail3.ing"

# A guest that never ends.
cat >"$WORK/hang.S" <<'ASM'
    .globl _start
_start:
    addi a0, a0, 1
    j _start
ASM
riscv64-unknown-elf-gcc -march=rv64imac_zicsr -mabi=lp64 -nostdlib -nostartfiles -Wl,-Ttext=0x80000000 \
    -o "$WORK/hang" "$WORK/hang.S"
expect_fail 1 'still running after --timeout 2 s' "$RVT_BIN" capture --system --loader "$WORK/hang" --timeout 2 \
    -o "$WORK/hang.ing"
[ ! -e "$WORK/hang.ing" ] || fail "a timed-out capture left $WORK/hang.ing"
# ... stopped by --max-insns instead: a complete stream.
sys_capture "$WORK/hang2.ing" --loader "$WORK/hang" --max-insns 100000 -q
check "$WORK/hang" "$WORK/hang2.ing" | grep -q ' 100000 instructions' || fail "--max-insns 100000 on the endless loop"

# QEMU killed: the log ends without the plugin's final counts.
cat >"$WORK/killer" <<SH
#!/bin/bash
"\$(command -v qemu-system-riscv64)" "\$@" &
sleep 1
kill -9 \$!
wait
exit 0
SH
chmod +x "$WORK/killer"
expect_fail 1 "ends without hart 0's final count|ends inside a line|without writing its log" \
    "$RVT_BIN" capture --system --qemu "$WORK/killer" --loader "$WORK/hang" -o "$WORK/killed.ing"
[ ! -e "$WORK/killed.ing" ] || fail "a failed capture left $WORK/killed.ing"
echo "options: checked"
