#!/usr/bin/env bash
# Issue 6's whole system: a real two-hart system-mode capture with traps and
# interrupts (tests/data/sysmode, QEMU virt, 2 harts), encoded through a
# funnel (one encoder per hart, hart id as source id) into a wrapping SRAM
# sink, in N-Trace and in E-Trace; each hart decoded from the oldest
# surviving sync point must equal that hart's captured instructions from
# there to the end, exactly.
set -u
RV=${RVT_BIN:?}; D=${RVT_TEST_DATA:?}; T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL: $*" >&2; }

xz -dc "$D/sysmode/smp64.xz" > "$T/smp64"
xz -dc "$D/sysmode/smp64-2.ing.xz" > "$T/smp.ing"
E=$T/smp64
for h in 0 1; do
    "$RV" convert --elf "$E" --input "$T/smp.ing" --hart $h --to pclist -o "$T/h$h.txt" 2>/dev/null || bad "convert hart $h"
    [ "$(wc -l < "$T/h$h.txt")" -gt 10000 ] && ok || bad "hart $h has too few instructions"
done

# family, options (periodic synchronisation so a wrapped buffer keeps sync points)
for spec in "ntrace --sync-period 500" "ntrace --ntrace-mode btm --sync-msgs 64" "etrace" "etrace --implicit-return fixed"; do
    set -- $spec; fmt=$1; shift; opts=("$@")
    name="$fmt ${opts[*]}"
    "$RV" encode --format "$fmt" "${opts[@]}" --ecall trap --elf "$E" --input "$T/smp.ing" --funnel --src-bits 1 \
        -o "$T/full.bin" || { bad "$name: funnel encode"; continue; }
    total=$(stat -c %s "$T/full.bin")
    # keep all but about 3%: the wrap cuts into both harts' trace
    size=$(( (total - total / 33) / 4 * 4 ))
    "$RV" encode --format "$fmt" "${opts[@]}" --ecall trap --elf "$E" --input "$T/smp.ing" --funnel --src-bits 1 \
        --sink "sram:$size:wrap" -o "$T/ram.bin" 2>"$T/enc.err" || { bad "$name: encode into the sink"; continue; }
    grep -q '^wrap = 1' "$T/ram.bin.sink" && ok || bad "$name: the sink did not wrap ($size of $total bytes)"
    [ "$(stat -c %s "$T/ram.bin")" -eq "$size" ] && ok || bad "$name: RAM image is not $size bytes"
    for h in 0 1; do
        if ! "$RV" decode --format "$fmt" "${opts[@]}" --ecall trap --elf "$E" "$T/ram.bin" --src-bits 1 --hart $h \
            --output pcs -o "$T/d.txt" 2>"$T/dec.err"; then
            bad "$name hart $h: decode failed: $(tail -2 "$T/dec.err")"; continue
        fi
        grep -q "older bytes were overwritten" "$T/dec.err" && ok || bad "$name hart $h: no report of the bytes lost to wrapping"
        n=$(wc -l < "$T/d.txt"); all=$(wc -l < "$T/h$h.txt")
        if [ "$n" -eq 0 ] || [ "$n" -ge "$all" ]; then
            bad "$name hart $h: decoded $n of $all instructions (expected a proper tail)"; continue
        fi
        if tail -n "$n" "$T/h$h.txt" | cmp -s - "$T/d.txt"; then ok; else bad "$name hart $h: the decoded $n instructions are not the capture's last $n"; fi
        echo "$name: hart $h: the last $n of $all instructions decoded exactly"
    done
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
