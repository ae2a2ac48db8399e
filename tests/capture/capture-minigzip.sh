# zlib's minigzip -9 compressing a generated text, captured and checked.
source "$(dirname "$0")/lib.sh"
minigzip=$(real_program minigzip)
"$RVT_SRC/tests/programs/gen-text.sh" 20000 3 >"$WORK/input.txt"

capture "$WORK/a.ing" --stdout "$WORK/out.gz" -- "$minigzip" -9 -c "$WORK/input.txt"
[ "$CAPTURED_INSNS" -ge 1000000 ] || fail "only $CAPTURED_INSNS instructions captured"
qemu-riscv64 "$minigzip" -d -c "$WORK/out.gz" | cmp - "$WORK/input.txt" || fail "minigzip output under capture is wrong"
check "$minigzip" "$WORK/a.ing"

capture "$WORK/b.ing" --stdout "$WORK/out2.gz" -- "$minigzip" -9 -c "$WORK/input.txt"
cmp "$WORK/a.ing" "$WORK/b.ing" || fail "two captures of the same command differ"
echo "minigzip: $CAPTURED_INSNS instructions, reproducible, check passed"
