#!/usr/bin/env bash
# Benchmarks of the nybble families (cdl, dbg) on the shared real capture:
# bzip2 -9 compressing a generated 35 KB text under qemu-riscv64 (the same
# capture as bench/run.sh: 16.0 M instructions, merged blocks), and a
# per-instruction capture with memory addresses of the bundled smaller run
# (tests/data/real) for the data packets.  Prints Markdown;
# bench/RESULTS.md (section on the nybble families) holds a run of it.
#   bench/cdl_dbg_run.sh [WORKDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
work=${1:-$top/build/bench-work}
mkdir -p "$work"
cmake -S . -B build/bench -DCMAKE_BUILD_TYPE=Release -DRVT_BUILD_TESTS=OFF >/dev/null
cmake --build build/bench -j2 >/dev/null
RV=$top/build/bench/tools/rvtrace
B=$top/build/bench/bench/bench_cdl_dbg_bench
bzip2=$(bash tests/programs/build-real.sh --quiet --cache "$work/real" | awk -F'\t' '$1=="bzip2"{print $2}')
cp "$bzip2" "$work/bzip2"
bash tests/programs/gen-text.sh 35000 > "$work/input.txt"
[ -f "$work/bzip2.ing" ] ||
    "$RV" capture -q -o "$work/bzip2.ing" --stdout "$work/out.bz2" -- "$work/bzip2" -9 -c "$work/input.txt"
cp "$top/tests/data/real/input.txt" "$work/small.txt"
[ -f "$work/bzip2-small-mem.ing" ] ||
    "$RV" capture -q --mem --per-insn -o "$work/bzip2-small-mem.ing" --stdin "$work/small.txt" \
        --stdout "$work/small.bz2" -- "$work/bzip2" -9

echo "## Machine"
echo
echo "- $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- $(gcc --version | head -1); Release build"
echo
echo "## cdl and dbg on bzip2.ing (bzip2 -9, 35 KB input, merged blocks)"
echo
echo '```'
echo "\$ build/bench/bench/bench_cdl_dbg_bench bzip2 bzip2.ing 3"
echo '```'
echo
"$B" "$work/bzip2" "$work/bzip2.ing" 3
echo
echo "## With memory addresses: bzip2-small-mem.ing (bzip2 -9, 2 KB input, one record per instruction, --mem)"
echo
echo '```'
echo "\$ build/bench/bench/bench_cdl_dbg_bench bzip2 bzip2-small-mem.ing 3"
echo '```'
echo
"$B" "$work/bzip2" "$work/bzip2-small-mem.ing" 3
