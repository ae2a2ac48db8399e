# bzip2 -9 compressing a generated 35 KB text: several million instructions,
# captured, validated transition by transition against the ELF, and
# captured again to prove the capture is reproducible byte for byte.
source "$(dirname "$0")/lib.sh"
bzip2=$(real_program bzip2)
"$RVT_SRC/tests/programs/gen-text.sh" 35000 >"$WORK/input.txt"

capture "$WORK/a.ing" --stdout "$WORK/a.bz2" -- "$bzip2" -9 -c "$WORK/input.txt"
[ "$CAPTURED_INSNS" -ge 5000000 ] || fail "only $CAPTURED_INSNS instructions captured (expected several million)"
# The traced run did the real work: its output decompresses to the input.
qemu-riscv64 "$bzip2" -dc <"$WORK/a.bz2" | cmp - "$WORK/input.txt" || fail "bzip2 output under capture is wrong"

check "$bzip2" "$WORK/a.ing"

capture "$WORK/b.ing" --stdout "$WORK/b.bz2" -- "$bzip2" -9 -c "$WORK/input.txt"
cmp "$WORK/a.ing" "$WORK/b.ing" || fail "two captures of the same command differ"
echo "bzip2: $CAPTURED_INSNS instructions, $(stat -c %s "$WORK/a.ing") bytes, reproducible, check passed"
