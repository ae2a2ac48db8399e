#!/usr/bin/env bash
# The ATB bridge: a trace through CoreSight formatter frames under a trace
# ID decodes back exactly, also from a wrapped RAM sink (frames found after
# the first frame sync), and a wrong ID yields nothing.
set -u
RV=${RVT_BIN:?}; D=${RVT_TEST_DATA:?}; T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL: $*" >&2; }
E=$D/ntrace-t1/test.elf; P=$D/ntrace-t1/test-PCONLY.txt
for spec in "ntrace --sync-period 1000" "etrace --resync-max 0"; do
    set -- $spec; fmt=$1; shift; opts=("$@")
    "$RV" encode --format $fmt --elf "$E" --input "$P" --atb 5 -o "$T/a.bin" && ok || bad "$fmt: encode --atb"
    head -c 4 "$T/a.bin" | od -An -tx1 | grep -q "ff ff ff 7f" && ok || bad "$fmt: output does not start with a frame sync"
    "$RV" decode --format $fmt --elf "$E" "$T/a.bin" --atb 5 | cmp -s - "$P" && ok || bad "$fmt: decode --atb 5 differs"
    "$RV" decode --format $fmt --elf "$E" "$T/a.bin" --atb 6 >/dev/null 2>&1 && bad "$fmt: wrong ID decoded" || ok
    "$RV" encode --format $fmt "${opts[@]}" --elf "$E" --input "$P" --atb 5 --sink sram:1024:wrap -o "$T/r.bin" 2>/dev/null \
        && ok || bad "$fmt: encode --atb into a RAM"
    "$RV" decode --format $fmt --elf "$E" "$T/r.bin" --atb 5 2>/dev/null > "$T/d.txt"
    n=$(wc -l < "$T/d.txt")
    [ "$n" -gt 0 ] && [ "$n" -lt 164959 ] && tail -n "$n" "$P" | cmp -s - "$T/d.txt" && ok \
        || bad "$fmt: wrapped ATB RAM: $n instructions, not the input's tail"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
