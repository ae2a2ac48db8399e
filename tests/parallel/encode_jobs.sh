#!/usr/bin/env bash
# Issue 12 item 4 (encode): `rvtrace encode --funnel --jobs N` encodes each
# hart on its own thread and writes the serial encode's bytes, for N = 2, 4
# and 0 (one per core), on the bundled two-hart system capture, with the
# families and options the funnel supports; each hart decodes back from it.
set -u
RV=${RVT_BIN:?}; D=${RVT_TEST_DATA:?}; T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL: $*" >&2; }

xz -dc "$D/sysmode/smp64.xz" > "$T/smp64"
xz -dc "$D/sysmode/smp64-2.ing.xz" > "$T/smp.ing"
E=$T/smp64
for spec in "ntrace --sync-period 500" "ntrace --ntrace-mode btm --sync-msgs 64 --timestamps" "etrace" \
            "etrace --implicit-return fixed --branch-prediction"; do
    # shellcheck disable=SC2086
    set -- $spec; fmt=$1; shift; opts=("$@")
    name="$spec"
    "$RV" encode --format "$fmt" "${opts[@]}" --ecall trap --elf "$E" --input "$T/smp.ing" --funnel --src-bits 1 \
        -o "$T/serial.bin" || { bad "$name: serial encode"; continue; }
    for j in 2 4 0; do
        "$RV" encode --format "$fmt" "${opts[@]}" --ecall trap --elf "$E" --input "$T/smp.ing" --funnel --src-bits 1 \
            --jobs $j -o "$T/par.bin" || { bad "$name --jobs $j: encode"; continue; }
        cmp -s "$T/serial.bin" "$T/par.bin" && ok || bad "$name --jobs $j: bytes differ from the serial encode"
    done
    for h in 0 1; do
        "$RV" convert --elf "$E" --input "$T/smp.ing" --hart $h --to pclist -o "$T/h$h.txt" 2>/dev/null
        "$RV" decode --format "$fmt" "${opts[@]}" --ecall trap --src-bits 1 --hart $h --elf "$E" "$T/par.bin" \
            -o "$T/d$h.txt" 2>/dev/null
        cmp -s "$T/h$h.txt" "$T/d$h.txt" && ok || bad "$name: hart $h does not decode back from the parallel encode"
    done
done
# A RAM sink may refuse bytes, which the encoders react to: --jobs encodes
# serially there, with the same result.
"$RV" encode --format ntrace --sync-period 500 --ecall trap --elf "$E" --input "$T/smp.ing" --funnel --src-bits 1 \
    --sink sram:8192:stop -o "$T/r1.bin" 2>/dev/null
"$RV" encode --format ntrace --sync-period 500 --ecall trap --elf "$E" --input "$T/smp.ing" --funnel --src-bits 1 \
    --sink sram:8192:stop --jobs 2 -o "$T/r2.bin" 2>/dev/null
cmp -s "$T/r1.bin" "$T/r2.bin" && cmp -s "$T/r1.bin.sink" "$T/r2.bin.sink" && ok || bad "--sink sram:8192:stop --jobs 2 differs"
"$RV" encode --format ntrace --elf "$E" --input "$T/smp.ing" --funnel --src-bits 1 --jobs x -o "$T/x.bin" 2>"$T/e.err"
[ $? != 0 ] && grep -q -- "--jobs: expected a number" "$T/e.err" && ok || bad "--jobs x: $(cat "$T/e.err")"
echo "encode_jobs: $pass passed, $fail failed"
[ $fail = 0 ]
