# Capture modes and error handling, on bzip2 with a small input.
#   capture_options MEMCHECK   (MEMCHECK: the capture_memcheck program)
source "$(dirname "$0")/lib.sh"
memcheck=${1:?usage: capture-options.sh MEMCHECK}
bzip2=$(real_program bzip2)
"$RVT_SRC/tests/programs/gen-text.sh" 5000 5 >"$WORK/input.txt"
run=(-- "$bzip2" -9 -c "$WORK/input.txt")

# Merged blocks (default) versus one record per instruction: the same
# instructions, every record of the second a single instruction.
capture "$WORK/blocks.ing" "${run[@]}"
insns=$CAPTURED_INSNS
[ "$CAPTURED_RECORDS" -lt "$insns" ] || fail "merged capture has $CAPTURED_RECORDS records for $insns instructions"
check "$bzip2" "$WORK/blocks.ing"

capture "$WORK/insn.ing" --per-insn "${run[@]}"
[ "$CAPTURED_INSNS" = "$insns" ] || fail "--per-insn captured $CAPTURED_INSNS instructions, merged $insns"
[ "$CAPTURED_RECORDS" = "$insns" ] || fail "--per-insn wrote $CAPTURED_RECORDS records for $insns instructions"
check "$bzip2" "$WORK/insn.ing"

# ecall recorded as an uninferable call: same instructions, other records.
capture "$WORK/ecall.ing" --ecall uninferable "${run[@]}"
[ "$CAPTURED_INSNS" = "$insns" ] || fail "--ecall uninferable captured $CAPTURED_INSNS instructions, expected $insns"
cmp -s "$WORK/blocks.ing" "$WORK/ecall.ing" && fail "--ecall uninferable wrote the same stream as sequential"
check "$bzip2" "$WORK/ecall.ing"

# Memory accesses: each record's access must match its instruction.
capture "$WORK/mem.ing" --mem --per-insn "${run[@]}"
[ "$CAPTURED_INSNS" = "$insns" ] || fail "--mem captured $CAPTURED_INSNS instructions, expected $insns"
check "$bzip2" "$WORK/mem.ing"
"$memcheck" "$bzip2" "$WORK/mem.ing" || fail "memory fields of the --mem capture are wrong"
capture "$WORK/memblk.ing" --mem "${run[@]}"
check "$bzip2" "$WORK/memblk.ing"

# Commas and spaces in paths survive QEMU's -plugin option syntax.
odd="$WORK/odd, dir"
mkdir -p "$odd"
cp "$bzip2" "$odd/bz,ip2"
cp "$WORK/input.txt" "$odd/in put.txt"
capture "$odd/t,1.ing" -- "$odd/bz,ip2" -9 -c "$odd/in put.txt"
[ "$CAPTURED_INSNS" -gt 0 ] || fail "nothing captured with commas in paths"
check "$odd/bz,ip2" "$odd/t,1.ing"

# A program that fails: the trace is still written and consistent, the exit status says so.
expect_fail 1 "exited with status 1 \(trace written" "$RVT_BIN" capture -o "$WORK/fail.ing" -- "$bzip2" -9 -c "$WORK/missing.txt"
check "$bzip2" "$WORK/fail.ing"

# Usage and environment errors name what is wrong.
expect_fail 1 "not a little-endian RISC-V ELF" "$RVT_BIN" capture -o "$WORK/x.ing" -- /bin/sh -c true
expect_fail 1 "nothere: No such file" "$RVT_BIN" capture -o "$WORK/x.ing" -- "$WORK/nothere"
expect_fail 2 "expected sequential or uninferable" "$RVT_BIN" capture --ecall sometimes "${run[@]}"
expect_fail 2 "no program given" "$RVT_BIN" capture -o "$WORK/x.ing"
expect_fail 2 "unknown option --bogus" "$RVT_BIN" capture --bogus "${run[@]}"
expect_fail 1 "nodir/x.ing: No such file" "$RVT_BIN" capture -o "$WORK/nodir/x.ing" "${run[@]}"
expect_fail 1 "plugin .*/none.so not found" "$RVT_BIN" capture --plugin "$WORK/none.so" -o "$WORK/x.ing" "${run[@]}"
expect_fail 1 "qemu-none: not found" "$RVT_BIN" capture --qemu qemu-none -o "$WORK/x.ing" "${run[@]}"
"$RVT_BIN" capture --help | grep -q -- "--ecall MODE" || fail "capture --help does not describe --ecall"

# The plugin's own argument checking (QEMU refuses to start).
plugin=$(dirname "$RVT_BIN")/librvtrace-qemu.so
[ -f "$plugin" ] || fail "plugin not built beside rvtrace: $plugin"
expect_fail 1 "merge=maybe: expected on or off" qemu-riscv64 -plugin "$plugin,out=$WORK/p.ing,merge=maybe" "$bzip2" -h
expect_fail 1 "unknown argument 'colour=red'" qemu-riscv64 -plugin "$plugin,out=$WORK/p.ing,colour=red" "$bzip2" -h
expect_fail 1 "missing out=FILE" qemu-riscv64 -plugin "$plugin,mem=on" "$bzip2" -h
echo "capture options: $insns instructions per mode, all modes checked, errors reported"
