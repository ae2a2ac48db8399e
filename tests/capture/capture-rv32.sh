# A hand-written RV32IMAC program under qemu-riscv32: the 32-bit path of the
# plugin and the capture command (xlen from the ELF, qemu-riscv32 chosen).
#   capture-rv32.sh MEMCHECK
source "$(dirname "$0")/lib.sh"
memcheck=${1:?usage: capture-rv32.sh MEMCHECK}
command -v qemu-riscv32 >/dev/null || skip "qemu-riscv32 not installed (apt-get install qemu-user)"
command -v riscv64-unknown-elf-gcc >/dev/null || skip "riscv64-unknown-elf-gcc not installed (apt-get install gcc-riscv64-unknown-elf)"
prog=$WORK/rv32-prog
riscv64-unknown-elf-gcc -march=rv32imac -mabi=ilp32 -nostdlib -nostartfiles -static \
    -o "$prog" "$RVT_SRC/tests/capture/rv32-prog.S" || fail "cannot assemble rv32-prog.S"

capture "$WORK/a.ing" --stdout "$WORK/a.out" -- "$prog"
[ "$(cat "$WORK/a.out")" = "rv32 ok" ] || fail "rv32-prog printed '$(cat "$WORK/a.out")'"
check "$prog" "$WORK/a.ing"
capture "$WORK/b.ing" --ecall uninferable --per-insn -- "$prog"
check "$prog" "$WORK/b.ing"
capture "$WORK/m.ing" --mem --per-insn -- "$prog"
"$memcheck" "$prog" "$WORK/m.ing" || fail "memory fields of the rv32 capture are wrong"
echo "rv32: $CAPTURED_INSNS instructions, checked"
