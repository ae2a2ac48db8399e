#!/usr/bin/env bash
# Reproducible benchmarks on a real capture.  Builds rvtrace (Release), the
# real programs (tests/programs/build-real.sh), captures bzip2 -9 compressing
# a generated 35 KB text (16.0 M instructions) in both record layouts, then
# measures, each in one invocation with its baseline:
#   - core: ingress reading and flow walking (bench_flow: block-cache walk
#     vs a per-instruction walk);
#   - every trace family and option set: bytes, bits/instruction, encode and
#     decode speed (counting and PC-list output), peak memory.
# Prints Markdown; bench/RESULTS.md holds a run of it.
#   bench/run.sh [WORKDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
work=${1:-$top/build/bench-work}
mkdir -p "$work"
cmake -S . -B build/bench -DCMAKE_BUILD_TYPE=Release -DRVT_BUILD_TESTS=OFF >/dev/null
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
echo "- $(gcc --version | head -1); Release build (-O2)"
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
family() { # label, options...
    local label=$1; shift
    local out
    out=$("$RV" verify --elf "$work/bzip2" --input "$work/bzip2.ing" "$@")
    "$RV" encode --elf "$work/bzip2" --input "$work/bzip2.ing" -o "$work/t.bin" "$@"
    local t0 t1 t2 mem
    t0=$(date +%s.%N); "$RV" decode --elf "$work/bzip2" "$work/t.bin" --output count "$@" >/dev/null; t1=$(date +%s.%N)
    "$RV" decode --elf "$work/bzip2" "$work/t.bin" --output pcs "$@" >/dev/null; t2=$(date +%s.%N)
    mem=$(peak "$RV" decode --elf "$work/bzip2" "$work/t.bin" --output count "$@")
    local insns bytes bits enc res
    insns=$(sed -n 's/^instructions *//p' <<<"$out")
    bytes=$(sed -n 's/^bytes *\([0-9]*\).*/\1/p' <<<"$out")
    bits=$(sed -n 's/^bits\/instr *//p' <<<"$out")
    enc=$(sed -n 's/^encode *\([0-9.]*\).*/\1/p' <<<"$out")
    res=$(sed -n 's/^result *\([A-Z]*\).*/\1/p' <<<"$out")
    printf '| %s | %s | %s | %s | %s | %.1f | %.1f | %s | %s |\n' "$label" "$insns" "$bytes" "$bits" "$enc" \
        "$(echo "$insns / ($t1 - $t0) / 1000000" | bc -l)" "$(echo "$insns / ($t2 - $t1) / 1000000" | bc -l)" \
        "$mem" "$res"
}
echo
echo "## Trace families on bzip2.ing"
echo
echo "Decode speeds are whole \`rvtrace decode\` runs (process start, ELF load and reading the trace included)."
echo
echo "| family and options | instructions | bytes | bits/instr | encode M/s | decode count M/s | decode pcs M/s | peak KiB | round trip |"
echo "|---|---|---|---|---|---|---|---|---|"
while IFS='|' read -r label opts; do
    [ -n "$label" ] || continue
    # shellcheck disable=SC2086
    family "$label" $opts
done < "$top/bench/families.txt"
