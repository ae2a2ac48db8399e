#!/usr/bin/env bash
# Reproducible benchmarks on a real capture.  Builds rvtrace (Release), the
# real programs (tests/programs/build-real.sh), captures bzip2 -9 compressing
# a generated 35 KB text (16.0 M instructions) in both record layouts, then
# measures, each in one invocation with its baseline:
#   - core: ingress reading and flow walking (bench_flow: block-cache walk
#     vs a per-instruction walk);
#   - every trace family and option set: bytes, bits/instruction, encode and
#     decode speed (counting and PC-list output), peak memory.
#   - speed and scale (bench/speed.sh, issue 12): readers, encode, decode
#     per family with the core/family split, output writers, decode memory
#     against trace size, the N-Trace reference tool beside rvtrace (with
#     NEXRV=/path/to/NexRv.exe), one row per commit in bench/HISTORY.md.
# The reference tool is not part of this tree: clone
# https://github.com/riscv-non-isa/tg-nexus-trace anywhere outside it, run
# `make` in refcode/c, and pass NEXRV=.../refcode/c/NexRv.exe.
# Prints Markdown; bench/RESULTS.md holds a run of it.
#   bench/run.sh [WORKDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
work=${1:-$top/build/bench-work}
mkdir -p "$work"
# -g changes no code; callgrind needs it to split costs by source folder (bench/speed.sh)
cmake -S . -B build/bench -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS_RELEASE="-O3 -DNDEBUG -g" -DRVT_BUILD_TESTS=OFF >/dev/null
cmake --build build/bench -j"$(nproc)" >/dev/null
RV=$top/build/bench/tools/rvtrace
bzip2=$(bash tests/programs/build-real.sh --quiet --cache "$work/real" | awk -F'\t' '$1=="bzip2"{print $2}')
cp "$bzip2" "$work/bzip2"
bash tests/programs/gen-text.sh 35000 > "$work/input.txt"
"$RV" capture -q -o "$work/bzip2.ing" --stdout "$work/out.bz2" -- "$work/bzip2" -9 -c "$work/input.txt"
"$RV" capture -q --per-insn -o "$work/bzip2-pi.ing" --stdout "$work/out.bz2" -- "$work/bzip2" -9 -c "$work/input.txt"

echo "## Machine"
echo
echo "- $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- $(gcc --version | head -1); Release build (-O3 -g)"
echo
echo "## Core: ingress reading and flow walking"
echo
for f in bzip2.ing bzip2-pi.ing; do
    echo '```'
    echo "\$ build/bench/bench/bench_flow bzip2 $f 3"
    "$top/build/bench/bench/bench_flow" "$work/bzip2" "$work/$f" 3
    echo '```'
done

peak() { /usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -1; }
best_of() { # N, command...: the shortest wall time of N runs, in seconds (the machine is shared)
    local n=$1 best= t0 t1 d; shift
    for _ in $(seq "$n"); do
        t0=$(date +%s.%N); "$@" >/dev/null; t1=$(date +%s.%N)
        d=$(echo "$t1 - $t0" | bc -l)
        if [ -z "$best" ] || [ "$(echo "$d < $best" | bc -l)" = 1 ]; then best=$d; fi
    done
    echo "$best"
}
family() { # label, options...
    local label=$1; shift
    local out
    out=$("$RV" verify --elf "$work/bzip2" --input "$work/bzip2.ing" "$@")
    "$RV" encode --elf "$work/bzip2" --input "$work/bzip2.ing" -o "$work/t.bin" "$@"
    local tc tp mem
    tc=$(best_of 5 "$RV" decode --elf "$work/bzip2" "$work/t.bin" --output count "$@")
    tp=$(best_of 3 "$RV" decode --elf "$work/bzip2" "$work/t.bin" --output pcs "$@")
    mem=$(peak "$RV" decode --elf "$work/bzip2" "$work/t.bin" --output count "$@")
    local insns bytes bits enc res
    insns=$(sed -n 's/^instructions *//p' <<<"$out")
    bytes=$(sed -n 's/^bytes *\([0-9]*\).*/\1/p' <<<"$out")
    bits=$(sed -n 's/^bits\/instr *//p' <<<"$out")
    enc=$(sed -n 's/^encode *\([0-9.]*\).*/\1/p' <<<"$out")
    res=$(sed -n 's/^result *\([A-Z]*\).*/\1/p' <<<"$out")
    printf '| %s | %s | %s | %s | %s | %.1f | %.1f | %s | %s |\n' "$label" "$insns" "$bytes" "$bits" "$enc" \
        "$(echo "$insns / $tc / 1000000" | bc -l)" "$(echo "$insns / $tp / 1000000" | bc -l)" \
        "$mem" "$res"
}
echo
echo "## Trace families on bzip2.ing"
echo
echo "Decode speeds are whole \`rvtrace decode\` runs (process start, ELF load and reading the trace included), the best of 5 (count) and 3 (pcs) wall-clock runs."
echo
echo "| family and options | instructions | bytes | bits/instr | encode M/s | decode count M/s | decode pcs M/s | peak KiB | round trip |"
echo "|---|---|---|---|---|---|---|---|---|"
while IFS='|' read -r label opts; do
    [ -n "$label" ] || continue
    # shellcheck disable=SC2086
    family "$label" $opts
done < "$top/bench/families.txt"

# ---- multi-hart system-mode capture (issue 6) -------------------------------
bash tests/programs/baremetal/build.sh "$work/baremetal" >/dev/null
t0=$(date +%s.%N)
"$RV" capture --system --loader "$work/baremetal/bench64" --smp 2 --bios none -o "$work/smp.ing" --timeout 900 \
    > "$work/smp.sum"
t1=$(date +%s.%N)
smp_insns=$(sed -n 's/.*: \([0-9]*\) instructions, .*/\1/p' "$work/smp.sum" | head -1)
echo
echo "## Multi-hart system-mode capture: bench64 on 2 harts (QEMU virt, traps and timer interrupts)"
echo
echo "\`rvtrace capture --system --loader bench64 --smp 2\`: $smp_insns instructions in $(printf '%.1f' "$(echo "$t1 - $t0" | bc -l)") s" \
     "($(printf '%.1f' "$(echo "$smp_insns / ($t1 - $t0) / 1000000" | bc -l)") M instructions/s, QEMU start-up included)," \
     "$(stat -c %s "$work/smp.ing") bytes of ingress."
echo
echo "Each family encodes both harts through one funnel (\`--funnel --src-bits 1\`); the trace is then decoded hart by hart (\`--hart N --output count\`), and the per-hart round trip compares with that hart's records."
echo
echo "| family and options | bytes | bits/instr | encode M/s | decode hart 0 M/s | decode hart 1 M/s | round trip per hart |"
echo "|---|---|---|---|---|---|---|"
for spec in "ntrace|--format ntrace --ntrace-mode htm --callstack 8 --repeat 2 --sync-period 4096" \
            "etrace|--format etrace --implicit-return fixed"; do
    label=${spec%%|*}; opts=${spec#*|}
    # shellcheck disable=SC2086
    t0=$(date +%s.%N); "$RV" encode $opts --ecall trap --elf "$work/baremetal/bench64" --input "$work/smp.ing" --funnel --src-bits 1 -o "$work/smp.bin"; t1=$(date +%s.%N)
    bytes=$(stat -c %s "$work/smp.bin")
    row="| $label $opts | $bytes | $(printf '%.4f' "$(echo "8 * $bytes / $smp_insns" | bc -l)") | $(printf '%.1f' "$(echo "$smp_insns / ($t1 - $t0) / 1000000" | bc -l)")"
    rt=OK
    for h in 0 1; do
        hn=$("$RV" check --ecall trap --elf "$work/baremetal/bench64" --input "$work/smp.ing" --hart $h | sed -n 's/.* records, \([0-9]*\) instructions.*/\1/p')
        # shellcheck disable=SC2086
        t0=$(date +%s.%N); "$RV" decode $opts --ecall trap --elf "$work/baremetal/bench64" "$work/smp.bin" --src-bits 1 --hart $h --output count > "$work/cnt"; t1=$(date +%s.%N)
        row="$row | $(printf '%.1f' "$(echo "$hn / ($t1 - $t0) / 1000000" | bc -l)")"
        # shellcheck disable=SC2086
        "$RV" convert --elf "$work/baremetal/bench64" --input "$work/smp.ing" --hart $h --to pclist -o "$work/h.txt" 2>/dev/null
        # shellcheck disable=SC2086
        "$RV" decode $opts --ecall trap --elf "$work/baremetal/bench64" "$work/smp.bin" --src-bits 1 --hart $h --output pcs | cmp -s - "$work/h.txt" || rt=FAIL
    done
    echo "$row | $rt |"
done

echo
bash "$top/bench/speed.sh" "$work"
