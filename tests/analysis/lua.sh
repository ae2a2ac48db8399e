#!/usr/bin/env bash
# Lua with longjmp-heavy unwinding (errors, pcall, coroutine yields),
# captured under qemu-riscv64: every view from every family's decode equals
# the view from the capture itself, and the call tree shows the unwinding
# (frames left by longjmp) without unmatched returns piling up.
source "$RVT_SRC/tests/capture/lib.sh"
lua=$(real_program lua)
script="$RVT_SRC/tests/analysis/unwind.lua"

capture "$WORK/lua.ing" --stdout "$WORK/lua.out" -- "$lua" "$script" 120
grep -q '^ok caught=' "$WORK/lua.out" || fail "the Lua script did not report ok: $(cat "$WORK/lua.out")"
check "$lua" "$WORK/lua.ing"

"$RVT_BIN" report -q --elf "$lua" --input "$WORK/lua.ing" -o "$WORK/ing" >/dev/null || fail "report of the capture failed"
line=$(sed -n 2p "$WORK/ing/calltree.txt")
unwound=$(echo "$line" | sed -n 's/.*; \([0-9]*\) frames unwound.*/\1/p')
unmatched=$(echo "$line" | sed -n 's/.* \([0-9]*\) unmatched returns.*/\1/p')
calls=$(echo "$line" | sed -n 's/.*; \([0-9]*\) calls (.*/\1/p')
[ "${unwound:-0}" -ge 100 ] || fail "only ${unwound:-?} frames unwound in a run full of longjmps: $line"
[ "${unmatched:-1}" -le 5 ] || fail "$unmatched unmatched returns: longjmp is not matched to its frame: $line"
grep -q 'longjmp \[unwound [0-9]*\]' "$WORK/ing/calltree.txt" || fail "the call tree does not show longjmp's frames unwound"
echo "lua: $CAPTURED_INSNS instructions, $calls calls, $unwound frames unwound, $unmatched unmatched returns"

body() { sed -n '/<\/header>/,$p' "$1"; }
for spec in "ntrace" "ntrace --ntrace-mode btm" "ntrace --callstack 8 --repeat 2" "etrace" \
            "etrace --implicit-return fixed --branch-prediction" "cdl" "dbg"; do
    set -- $spec
    "$RVT_BIN" encode --elf "$lua" --input "$WORK/lua.ing" -o "$WORK/t.bin" --format "$@" ||
        fail "$spec: encode failed"
    rm -rf "$WORK/dec"
    "$RVT_BIN" report -q --elf "$lua" --format "$@" "$WORK/t.bin" -o "$WORK/dec" >/dev/null ||
        fail "$spec: report of the decoded trace failed"
    for f in calltree.txt profile.txt coverage.txt stacks.folded callgrind.out trace.json; do
        cmp -s "$WORK/ing/$f" "$WORK/dec/$f" ||
            fail "$spec: $f differs from the capture's: $(diff "$WORK/ing/$f" "$WORK/dec/$f" | head -4)"
    done
    cmp -s <(body "$WORK/ing/report.html") <(body "$WORK/dec/report.html") || fail "$spec: report.html differs"
    echo "lua: $spec: every view equals the capture's"
done
